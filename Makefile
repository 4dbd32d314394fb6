# Everything a developer or CI needs: `make test` on a fresh clone creates .venv and runs every check.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
STACK ?= dev

.PHONY: setup promtool test lint typecheck unit rules preflight bench clean export-policies

# (Re)install only when .venv is missing or a requirements file changed since the last install.
# Nothing is cached outside .venv: pip runs without its download cache; ruff and pytest keep theirs in .venv.
setup: $(STAMP) promtool

# promtool judges the GPU alert rules (tests/rules/test_promtool.py): Debian's prometheus package, installed only when
# missing and only as root (CI runs as root on Debian); otherwise the command to run is printed and setup stops.
promtool:
	@command -v promtool >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus; \
	  else \
	    echo "promtool is missing: sudo apt-get update && sudo apt-get install --no-install-recommends prometheus" >&2; \
	    exit 1; \
	  fi; }

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-cache-dir -r requirements-dev.txt
	touch $(STAMP)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup
	$(VENV)/bin/pyright

unit: setup
	$(PY) -m pytest -q -n auto --durations=10

test: lint typecheck unit

rules: setup
	$(PY) -m policies.rules_md > policies/RULES.md

# docs/gpu-reference.md (KAITO presets with the smallest size each fits, MIG slices per size), generated from the facts
# on today, or on $AGP_TODAY when set (the day every other entry point honours: gpu_catalog/clock.py).
.PHONY: reference
reference: setup
	$(PY) -m rules.reference $(AGP_TODAY) > docs/gpu-reference.md

# Benchmarks (bench/RESULTS.md): the pack against its floor (gated on executed instructions: valgrind), component
# overhead, policy throughput, program scaling, imports. ~15 min on 2 cores. Exit 0 exactly when every gated target holds.
# valgrind: Debian's package, installed when missing and make runs as root; otherwise install it yourself.
bench: setup
	command -v valgrind >/dev/null || { test "$$(id -u)" = 0 && apt-get update -qq && apt-get install -y -qq --no-install-recommends valgrind; } \
	  || { echo "make bench needs valgrind (Debian: apt-get install valgrind, as root)" >&2; exit 2; }
	$(PY) bench/run_all.py

# Offline preflight: the program under mocks + the policy pack over gRPC + GPU cost (no Pulumi CLI, no cloud).
# `make preflight` checks stacks/Pulumi.dev.yaml; `make preflight STACK=prod FORMAT=json`. Exit 1 = mandatory violation.
FORMAT ?= text
preflight: setup
	$(PY) -m preflight --stack $(STACK) --format $(FORMAT)

# Guard rails for teams that manage policies elsewhere (docs/guardrail-layers.md): the Azure Policy definition and the
# Databricks cluster policy, generated from the catalog and the rules. `make export-policies FLOOR=<size> POLICY_OUT=DIR`.
FLOOR ?= Standard_NC6s_v3
POLICY_OUT ?= build/policies
export-policies: setup
	mkdir -p $(POLICY_OUT)
	$(PY) -m exports azure-policy --floor $(FLOOR) --out $(POLICY_OUT)/aks-gpu-vm-sizes.json
	$(PY) -m exports databricks-policy --floor $(FLOOR) --out $(POLICY_OUT)/databricks-gpu-cluster-policy.json
	$(PY) -m exports databricks-policy --floor $(FLOOR) --shape kind --out $(POLICY_OUT)/databricks-gpu-cluster-policy-kind.json
	$(PY) -m exports databricks-policy --floor $(FLOOR) --shape container --out $(POLICY_OUT)/databricks-gpu-cluster-policy-container.json

clean:
	rm -rf $(VENV)

# The publishable policy pack (docs/policy-pack-publishing.md): policies/ with the gpu_catalog and rules it imports and
# pinned requirements, in build/policy-pack (PACK_OUT=DIR for another place). Publish it from there.
PACK_OUT ?= build/policy-pack
.PHONY: pack
pack: setup
	$(PY) -m policies._build_pack $(PACK_OUT)

# Checkov's AKS checks (ARM framework) over the ARM form of prod and staging (docs/security-checks.md): the preflight's
# recorded ManagedCluster/AgentPool inputs as an ARM template (preflight/arm.py), scanned by a pinned Checkov in its own
# virtualenv (.venv-checkov, from PyPI; nothing cached outside the repo). CKV_AZURE_8 and CKV_AZURE_172: see the doc.
CHECKOV_VERSION ?= 3.3.30
CHECKOV_VENV := .venv-checkov
CHECKOV_STACKS ?= prod staging
# The applicable AKS checks; not applicable, with the reason in docs/security-checks.md: CKV_AZURE_8, CKV_AZURE_172.
CHECKOV_AKS := CKV_AZURE_4,CKV_AZURE_5,CKV_AZURE_6,CKV_AZURE_7,CKV_AZURE_141,CKV_AZURE_168,CKV_AZURE_169,CKV_AZURE_171,CKV_AZURE_226,CKV_AZURE_227
.PHONY: checkov
$(CHECKOV_VENV)/.installed-$(CHECKOV_VERSION):
	test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-cache-dir checkov==$(CHECKOV_VERSION)
	touch $@
checkov: setup $(CHECKOV_VENV)/.installed-$(CHECKOV_VERSION)
	mkdir -p build/arm
	set -e; for s in $(CHECKOV_STACKS); do \
	  $(PY) -m preflight --stack $$s --format json > build/arm/$$s-preflight.json; \
	  $(PY) -m preflight.arm build/arm/$$s-preflight.json build/arm/$$s.json; \
	done
	BC_SKIP_MAPPING=TRUE $(CHECKOV_VENV)/bin/checkov --framework arm --skip-download --compact \
	  --check $(CHECKOV_AKS) $(foreach s,$(CHECKOV_STACKS),-f build/arm/$(s).json)
