"""The GPU alert rules judged by Prometheus's own tool: the rule groups of every shipped stack (read from the
preflight JSON, i.e. exactly what the program sends) are written as Prometheus rule files, checked with
``promtool check rules`` and tested with ``promtool test rules`` against input series shaped as the managed agent
stores them (``tests/rules/promtool_scenarios.py``). Two subprocesses for the whole module.

Scenarios, per pool kind of each stack: idle unallocated, idle allocated, busy, briefly idle; MIG instances idle
(allocated / not) and busy, with the exporter's parent-GPU and per-instance ``GPU_UTIL`` zeros as a trap; two pods on
one time-sliced / MPS GPU (one series, the operator's default) and the same with ``KUBERNETES_VIRTUAL_GPUS=true``
(one series per pod); pools at and below their maximum; memory near full, an XID, a row-remap failure. At the
evaluation time every alert of the group fires exactly at the expected labels; inside the idle window no idle alert
fires yet (the ISO ``for`` converted faithfully).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_catalog.monitoring import load_monitoring_facts
from rules.monitoring import ScaledPool, Thresholds, gpu_alert_rules, labels_of
from rules.prometheus_rules import iso_minutes, prometheus_duration, rule_file
from tests.rules.promtool_scenarios import CHART_TARGET, OPERATOR_TARGET, Gpu, Scenario, gpu_keys
from tests.shared_runs import shipped_stack_run

FACTS = load_monitoring_facts()
RULE_GROUP = "azure-native:alertsmanagement:PrometheusRuleGroup"
MONITORED_STACKS = ("staging", "prod")
"""The shipped stacks with ``monitoring.enabled`` (dev has none: checked below)."""
BUSY = "93+0x200"
IDLE = "0+0x200"
FB_OK = ("20000+0x200", "60000+0x200")
H100, A100, T4 = "NVIDIA H100 80GB HBM3", "NVIDIA A100 80GB PCIe", "Tesla T4"


def promtool() -> str:
    found = shutil.which("promtool")
    assert found, "promtool is missing: `make setup` installs Debian's prometheus package (as root, in CI)"
    return found


def rule_groups(stack: str) -> list[dict[str, Any]]:
    run = shipped_stack_run(stack, "json")
    assert run.code == 0, run.stderr
    return [r["inputs"] for r in json.loads(run.stdout)["resources"] if r["type"] == RULE_GROUP]


def summaries(groups: list[dict[str, Any]]) -> dict[str, str]:
    return {r["alert"]: r["annotations"]["summary"] for g in groups for r in g["rules"]}


def gpu(scn: Scenario, g: Gpu, util: str | None = BUSY, *, fb: tuple[str, str] = FB_OK) -> dict[str, str]:
    """The default series of one GPU or MIG instance: utilisation (``GPU_UTIL``, or ``GR_ENGINE_ACTIVE`` for MIG),
    framebuffer, XID and row-remap health at zero. Returns the stored labels."""
    labels = scn.add("DCGM_FI_DEV_FB_USED", g, fb[0])
    scn.add("DCGM_FI_DEV_FB_FREE", g, fb[1])
    if util is not None:
        scn.add("DCGM_FI_PROF_GR_ENGINE_ACTIVE" if g.mig else "DCGM_FI_DEV_GPU_UTIL", g, util)
    return labels


def prod_scenario(alerts: dict[str, str]) -> dict[str, Any]:
    """prod: h100 (whole GPUs, maxCount 2), a100mig (MIG 3g.40gb, maxCount 4), t4 (time-sliced, maxCount 4)."""
    scn = Scenario("aks-gpu-prod", "hostname", OPERATOR_TARGET)
    h1, h2 = "aks-h100-31245817-vmss000000", "aks-h100-31245817-vmss000001"
    a1, t1 = "aks-a100mig-20485716-vmss000000", "aks-t4-88120455-vmss000000"
    for node, pool in ((h1, "h100"), (h2, "h100"), (a1, "a100mig"), (t1, "t4")):
        scn.node(node, pool)
    # whole GPUs: idle unallocated; busy; idle allocated; idle only for the first half hour; memory near full
    free = gpu(scn, Gpu(h1, "GPU-5e1c0f3a-h100-0000-0000-000000000000", 0, H100), IDLE)
    scn.expect("GpuIdleUnallocated", gpu_keys(free, "hostname"))
    busy = gpu(scn, Gpu(h1, "GPU-5e1c0f3a-h100-0000-0000-000000000001", 1, H100, pod=("ml", "train-0")))
    scn.add("DCGM_FI_DEV_ROW_REMAP_FAILURE", Gpu(h1, busy["UUID"], 1, H100, pod=("ml", "train-0")), "1+0x200")
    scn.expect("GpuRowRemapFailure", busy)
    stuck = gpu(scn, Gpu(h1, "GPU-5e1c0f3a-h100-0000-0000-000000000002", 2, H100, pod=("ml", "stuck-0")), "1+0x200")
    scn.expect("GpuIdleWhileAllocated", gpu_keys(stuck, "hostname", "exported_namespace", "exported_pod"))
    late = Gpu(h2, "GPU-5e1c0f3a-h100-0000-0000-000000000003", 0, H100, pod=("ml", "train-1"))
    full = gpu(scn, late, "0+0x29 80+0x170", fb=("80000+0x200", "500+0x200"))
    scn.expect("GpuMemoryNearFull", full)
    # MIG: instance 1 allocated and idle, instance 2 unallocated and idle, another GPU's instance busy; the parent
    # GPU and an instance also report GPU_UTIL 0 (what an exporter told to report blanks as zero would send)
    parent = "GPU-7a2b9c4d-a100-0000-0000-000000000000"
    held = gpu(scn, Gpu(a1, parent, 0, A100, mig=("3g.40gb", 1), pod=("infer", "phi-a")), "0.01+0x200")
    keys = ("GPU_I_ID", "GPU_I_PROFILE")
    scn.expect("MigInstanceIdleWhileAllocated", gpu_keys(held, "hostname", *keys, "exported_namespace", "exported_pod"))
    spare = Gpu(a1, parent, 0, A100, mig=("3g.40gb", 2))
    scn.expect("MigInstanceIdleUnallocated", gpu_keys(gpu(scn, spare, IDLE), "hostname", *keys))
    scn.add("DCGM_FI_DEV_GPU_UTIL", spare, IDLE)
    scn.add("DCGM_FI_DEV_GPU_UTIL", Gpu(a1, parent, 0, A100), IDLE)
    gpu(
        scn,
        Gpu(a1, "GPU-7a2b9c4d-a100-0000-0000-000000000001", 1, A100, mig=("3g.40gb", 1), pod=("infer", "m-a")),
        "0.7+0x200",
    )
    # time-slicing (2 replicas): two pods on each GPU, one series per GPU (the operator's exporter default)
    shared = Gpu(t1, "GPU-3c4d5e6f-t4-0000-0000-000000000000", 0, T4, pod=("apps", "chat-1"))
    gpu(scn, shared, "45+0x200")
    xid = scn.add("DCGM_FI_DEV_XID_ERRORS", shared, "0+0x49 79+0x150")
    scn.expect("GpuXidError", xid)
    idle_shared = gpu(scn, Gpu(t1, "GPU-3c4d5e6f-t4-0000-0000-000000000001", 1, T4, pod=("apps", "chat-3")), IDLE)
    scn.expect("GpuIdleWhileAllocated", gpu_keys(idle_shared, "hostname", "exported_namespace", "exported_pod"))
    scn.expect("GpuPoolAtMax_h100", {})  # two nodes of maxCount 2
    return scn.test(alerts, 61, 30)


def staging_scenario(alerts: dict[str, str], *, virtual_gpus: bool) -> dict[str, Any]:
    """staging: a100 (one whole GPU, fixed count), infer (NAP, MPS 4 replicas, limit 2 physical GPUs)."""
    scn = Scenario("aks-gpu-staging", "hostname", OPERATOR_TARGET)
    a1, i1, i2 = "aks-a100-55102938-vmss000000", "aks-infer-7qk2d", "aks-infer-m3x9p"
    for node, pool in ((a1, "a100"), (i1, "infer"), (i2, "infer")):
        scn.node(node, pool)
    free = gpu(scn, Gpu(a1, "GPU-1f2e3d4c-a100-0000-0000-000000000000", 0, A100), "2+0x200")
    scn.expect("GpuIdleUnallocated", gpu_keys(free, "hostname"))
    uuid = "GPU-9d8c7b6a-t4-0000-0000-000000000000"
    if virtual_gpus:  # four pods on one MPS GPU, one series each: still one physical GPU, below the limit of 2
        for replica in range(4):
            gpu(scn, Gpu(i1, uuid, 0, T4, pod=("apps", f"embed-{replica}"), vgpu=replica), "60+0x200")
    else:  # two pods on one MPS GPU (one series); a second node's GPU unallocated: 2 GPUs = the limit
        gpu(scn, Gpu(i1, uuid, 0, T4, pod=("apps", "embed-1")), "60+0x200")
        spare = gpu(scn, Gpu(i2, "GPU-9d8c7b6a-t4-0000-0000-000000000001", 0, T4), IDLE)
        scn.expect("GpuIdleUnallocated", gpu_keys(spare, "hostname"))
        scn.expect("GpuPoolAtMax_infer", {})
    return scn.test(alerts, 121, 60)


def chart_scenario(alerts: dict[str, str]) -> dict[str, Any]:
    """A stack without the GPU operator: NVIDIA's dcgm-exporter chart 4.8.2 (image 4.5.3-4.8.2) writes Hostname."""
    scn = Scenario("aks-gpu-dev", "Hostname", CHART_TARGET)
    node = "aks-t4-40391827-vmss000000"
    scn.node(node, "t4")
    free = gpu(scn, Gpu(node, "GPU-0a1b2c3d-t4-0000-0000-000000000000", 0, T4), IDLE)
    scn.expect("GpuIdleUnallocated", gpu_keys(free, "Hostname"))
    scn.expect("GpuPoolAtMax_t4", {})
    return scn.test(alerts, 61, 30)


def chart_group() -> dict[str, Any]:
    """The rule group a no-operator stack sends (the component's wire fields, built from the same rules)."""
    rules = gpu_alert_rules(Thresholds(), [ScaledPool("t4", max_gpus=1)], labels_of(FACTS.chart.exporter))
    return {
        "ruleGroupName": "gpu-alerts-aks-gpu-dev",
        "interval": "PT1M",
        "rules": [
            {
                "alert": r.alert,
                "expression": r.expression,
                **({"for": iso_minutes(r.for_minutes)} if r.for_minutes else {}),
                "annotations": {"summary": r.summary},
                "enabled": True,
            }
            for r in rules
        ],
    }


@pytest.fixture(scope="module")
def rule_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("promtool")
    groups = {stack: rule_groups(stack) for stack in MONITORED_STACKS} | {"chart": [chart_group()]}
    files: dict[str, Path] = {}
    for name, stack_groups in groups.items():
        assert stack_groups, name
        files[name] = out / f"{name}.rules.yaml"
        files[name].write_text(yaml.safe_dump(rule_file(stack_groups), sort_keys=False), encoding="utf-8")
    return files


def test_dev_sends_no_rule_group() -> None:
    assert rule_groups("dev") == []


def test_promtool_checks_every_rule_file(rule_files: dict[str, Path]) -> None:
    proc = subprocess.run(
        [promtool(), "check", "rules", *map(str, rule_files.values())], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name, path in rule_files.items():
        rules = len(yaml.safe_load(path.read_text(encoding="utf-8"))["groups"][0]["rules"])
        assert f"SUCCESS: {rules} rules found" in proc.stdout, (name, proc.stdout)


def test_promtool_fires_each_alert_exactly_where_it_says(rule_files: dict[str, Path]) -> None:
    tests_dir = next(iter(rule_files.values())).parent
    prod, staging = (summaries(rule_groups(s)) for s in ("prod", "staging"))
    assert {"MigInstanceIdleWhileAllocated", "GpuIdleWhileAllocated", "GpuPoolAtMax_a100mig"} <= set(prod)
    assert "MigInstanceIdleUnallocated" not in staging  # no MIG pool in staging
    chart = summaries([chart_group()])
    suites = {
        "prod": [prod_scenario(prod)],
        "staging": [staging_scenario(staging, virtual_gpus=False), staging_scenario(staging, virtual_gpus=True)],
        "chart": [chart_scenario(chart)],
    }
    paths = []
    for name, tests in suites.items():
        path = tests_dir / f"{name}.test.yaml"
        doc = {"rule_files": [rule_files[name].name], "evaluation_interval": "1m", "tests": tests}
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        paths.append(str(path))
    proc = subprocess.run(
        [promtool(), "test", "rules", *paths], capture_output=True, text=True, check=False, cwd=tests_dir
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("SUCCESS") == len(paths), proc.stdout


@pytest.mark.parametrize(
    ("iso", "prom"),
    [("PT1M", "1m"), ("PT60M", "60m"), ("PT1H30M", "1h30m"), ("P1D", "1d"), ("PT90S", "90s"), ("PT0M", "0s")],
)
def test_iso_durations_convert_exactly(iso: str, prom: str) -> None:
    assert prometheus_duration(iso) == prom


@pytest.mark.parametrize("iso", ["P1M", "P1Y", "P1W", "PT1.5M", "PT", "P", "60m", "PT1H30"])
def test_durations_without_an_exact_prometheus_equivalent_are_refused(iso: str) -> None:
    with pytest.raises(ValueError, match="no exact Prometheus duration"):
        prometheus_duration(iso)
