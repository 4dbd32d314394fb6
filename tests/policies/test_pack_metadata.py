"""The pack's policies (each module registers itself), metadata and generated RULES.md (never instantiates
PolicyPack: it blocks forever)."""

from __future__ import annotations

import importlib
import re
import runpy
import sys
import types
import warnings
from pathlib import Path

import pytest
import yaml
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

from policies import pack, rules_md
from policies.pack import ALL_POLICIES, PACK_NAME, PolicyModuleError, policy_module_names

POLICIES_DIR = Path(__file__).resolve().parents[2] / "policies"
NOT_POLICY_MODULES = {"__init__", "__main__", "pack", "rules_md"}

EXPECTED_LEVELS = {
    "gpu-size-no-nvv4": "mandatory",
    "gpu-size-minimum": "mandatory",
    "gpu-size-not-retired": "mandatory",
    "gpu-size-known": "mandatory",
    "gpu-size-aks-supported": "mandatory",
    "gpu-mig-profile-capable-size": "mandatory",
    "gpu-windows-pool": "mandatory",
    "gpu-driver-no-legacy-skip-tag": "advisory",
    "gpu-pool-tainted": "advisory",
    "gpu-nodepool-limits": "mandatory",
    "gpu-nodepool-constrains-gpus": "advisory",
    "aks-kaito-requires-oidc": "mandatory",
    "aks-kaito-addon-version": "mandatory",
    "aks-cost-analysis-requires-paid-tier": "mandatory",
    "aks-kubernetes-version-supported": "mandatory",
    "aks-kubernetes-version-expiring": "advisory",
    "aks-node-os-supported": "mandatory",
    "aks-run-command-disabled": "advisory",
    "aks-node-ssh-disabled": "advisory",
    "aks-image-cleaner-enabled": "advisory",
    "aks-control-plane-logs": "advisory",
    "databricks-gpu-node-types": "mandatory",
    "databricks-gpu-runtime": "mandatory",
    "databricks-gpu-no-photon": "mandatory",
    "databricks-gpu-dedicated-access": "mandatory",
    "databricks-gpu-task-amount": "mandatory",
    "kaito-workspace-instance-type": "mandatory",
    "kaito-workspace-model-access": "mandatory",
    "gpu-operator-driver-mode": "mandatory",
    "gpu-driver-skipped-needs-operator": "advisory",
    "gpu-operator-autoscale-min-count": "mandatory",
    "gpu-operator-platform-supported": "mandatory",
    "gpu-node-device-plugin": "mandatory",
    "gpu-node-device-plugin-missing": "advisory",
    "gpu-pool-idle-minimum": "advisory",
    "fleet-update-strategy-stages": "mandatory",
    "fleet-update-run-version": "mandatory",
    "fleet-auto-upgrade-channel": "mandatory",
    "fleet-auto-upgrade-next-move": "advisory",
}


def test_pack_name() -> None:
    assert PACK_NAME == "azure-gpu-guardrails"


def test_policies_and_levels() -> None:
    assert {p.name: p.enforcement_level.value for p in ALL_POLICIES if p.enforcement_level} == EXPECTED_LEVELS
    assert len({p.name for p in ALL_POLICIES}) == len(ALL_POLICIES) == len(EXPECTED_LEVELS)


def test_one_module_per_policy_named_after_it() -> None:
    modules = {p.stem for p in POLICIES_DIR.glob("*.py") if not p.stem.startswith("_")} - NOT_POLICY_MODULES
    assert modules == {name.replace("-", "_") for name in EXPECTED_LEVELS}
    for name in EXPECTED_LEVELS:
        module = importlib.import_module(f"policies.{name.replace('-', '_')}")
        assert module.POLICY.name == name


def test_a_policy_registers_itself_in_name_order(tmp_path: Path) -> None:
    """The pack is every public module of policies/ but pack and rules_md, imported in name order: no hand list."""
    assert [p.name for p in ALL_POLICIES] == sorted(EXPECTED_LEVELS)
    assert policy_module_names() == sorted(name.replace("-", "_") for name in EXPECTED_LEVELS)
    for name in ("zeta_policy.py", "alpha_policy.py", "_helper.py", "pack.py", "rules_md.py", "notes.md"):
        (tmp_path / name).write_text("", encoding="utf-8")
    assert policy_module_names(tmp_path) == ["alpha_policy", "zeta_policy"]


def test_a_module_that_is_not_a_policy_stops_the_pack(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(PolicyModuleError, match=r"policies/rules_md\.py has no POLICY built with policies\._meta"):
        pack._load("rules_md")  # pyright: ignore[reportPrivateUsage]
    impostor = types.ModuleType("policies.gpu_size_known_twice")
    impostor.POLICY = ALL_POLICIES[0]  # pyright: ignore[reportAttributeAccessIssue]
    monkeypatch.setitem(sys.modules, "policies.gpu_size_known_twice", impostor)
    with pytest.raises(PolicyModuleError) as refused:
        pack._load("gpu_size_known_twice")  # pyright: ignore[reportPrivateUsage]
    assert str(refused.value) == (
        f"policies/gpu_size_known_twice.py defines policy {ALL_POLICIES[0].name!r}: a policy module is named after its "
        f"policy ({ALL_POLICIES[0].name.replace('-', '_')}.py)"
    )


def test_every_policy_carries_metadata() -> None:
    for policy in ALL_POLICIES:
        assert policy.what and policy.why and policy.remediation_steps, policy.name
        assert policy.description == f"{policy.what} — {policy.why}"
        assert policy.severity is not None, policy.name
        assert (policy.tags and "gpu" in policy.tags) or "aks" in (policy.tags or []), policy.name
        assert policy.enforcement_level in (EnforcementLevel.MANDATORY, EnforcementLevel.ADVISORY)
        assert isinstance(policy, ResourceValidationPolicy | StackValidationPolicy)


def test_stack_policies() -> None:
    stack = sorted(p.name for p in ALL_POLICIES if isinstance(p, StackValidationPolicy))
    assert stack == [
        "aks-control-plane-logs",
        "aks-kaito-addon-version",
        "aks-kubernetes-version-expiring",
        "aks-kubernetes-version-supported",
        "aks-node-os-supported",
        "fleet-auto-upgrade-channel",
        "fleet-auto-upgrade-next-move",
        "fleet-update-run-version",
        "fleet-update-strategy-stages",
        "gpu-driver-skipped-needs-operator",
        "gpu-node-device-plugin",
        "gpu-node-device-plugin-missing",
        "gpu-operator-autoscale-min-count",
        "gpu-operator-driver-mode",
        "gpu-operator-platform-supported",
        "gpu-pool-idle-minimum",
    ]


def test_rules_md_is_in_sync() -> None:
    committed = (POLICIES_DIR / "RULES.md").read_text(encoding="utf-8")
    assert committed == rules_md.render(), "policies/RULES.md is stale: run `make rules`"


def test_rules_md_lists_every_policy_with_level_and_config() -> None:
    text = rules_md.render()
    for name, level in EXPECTED_LEVELS.items():
        assert re.search(rf"^\| `{re.escape(name)}` \| {level} \|", text, re.MULTILINE), name
    assert "`minimumSize`: any catalog size (default `Standard_NC6s_v3`)" in text


def test_rules_md_module_runs(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m policies.rules_md`` (what ``make rules`` runs), as its ``__main__`` in this process."""
    monkeypatch.chdir(POLICIES_DIR.parent)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # runpy: the module is already imported (by this test)
        runpy.run_module("policies.rules_md", run_name="__main__")
    assert capsys.readouterr().out == rules_md.render()


def test_pack_requirements_take_pins_from_the_root_file() -> None:
    lines = [
        line.strip()
        for line in (POLICIES_DIR / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines == ["-c ../requirements.txt", "pulumi", "pulumi-policy"]
    root = (POLICIES_DIR.parent / "requirements.txt").read_text(encoding="utf-8")
    assert re.search(r"^pulumi>=", root, re.MULTILINE) and re.search(r"^pulumi-policy>=", root, re.MULTILINE)


def test_pulumi_policy_yaml() -> None:
    doc = yaml.safe_load((POLICIES_DIR / "PulumiPolicy.yaml").read_text(encoding="utf-8"))
    assert doc["runtime"] == {"name": "python", "options": {"virtualenv": "venv"}}
    assert doc["version"] == "0.1.0"
    assert doc["description"].startswith("azure-gpu-guardrails: ")
