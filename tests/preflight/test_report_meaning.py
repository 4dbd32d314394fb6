"""Issue 27, item 2: reports that say what they mean — per pool in the resource tree (MIG profile, sharing, spot,
driver, device plugin), spot priced as an upper bound, the budget fix naming the knob that drives the cost."""

from __future__ import annotations

from preflight.cost import SPOT_NOTE, check_budget, estimate_cost, parse_budget
from preflight.model import RecordedResource
from tests.preflight.test_cost import DBX, POOL, res
from tests.preflight.test_nap_cost import node_pool
from tests.shared_runs import Run, shipped_stack_run

WHERE = "stacks/Pulumi.dev.yaml: azure-gpu-platform:budget"
A100 = "Standard_NC24ads_A100_v4"


def text(stack: str) -> Run:
    return shipped_stack_run(stack, "text")  # once per session (tests/shared_runs.py)


def _tree_line(run: Run, name: str) -> str:
    return next(
        line for line in run.stdout.splitlines() if f"AgentPool  {name}  [" in line or f"Pool  {name}  [" in line
    )


def test_the_tree_shows_each_pools_mig_sharing_spot_driver_and_device_plugin() -> None:
    dev, prod = text("dev"), text("prod")
    assert dev.code == 0 and prod.code == 0, dev.stderr + prod.stderr
    assert _tree_line(dev, "aks-t4").endswith(
        "[Standard_NC4as_T4_v3 ×1–2]  (sharing timeSlicing ×4 · spot · driver AKS · device plugin nvidia-device-plugin)"
    )
    assert _tree_line(prod, "aks-a100mig").endswith(
        "[Standard_NC24ads_A100_v4 ×1–4]  (MIG 3g.40gb · no sharing · on-demand · driver GPU operator, not AKS "
        "(gpuProfile.driver None) · device plugin gpu-operator)"
    )
    assert _tree_line(prod, "aks-t4").endswith(
        "(sharing timeSlicing ×2 · on-demand · driver GPU operator, not AKS "
        "(gpuProfile.driver None) · device plugin gpu-operator)"
    )


def test_spot_capacity_is_labelled_as_priced_at_on_demand_rates() -> None:
    assert SPOT_NOTE == (
        "spot: priced at on-demand rates, an upper bound (spot prices vary by region and hour; the catalog has no "
        "documented spot price)"
    )
    assert f"  note: AgentPool aks-t4 pool: {SPOT_NOTE}" in text("dev").stdout.splitlines()
    spot = res(POOL, "s", vmSize=A100, count=1.0, scaleSetPriority="Spot")
    regular = res(POOL, "r", vmSize=A100, count=1.0)
    nap = node_pool(values=[A100], limits={"nvidia.com/gpu": "2"})
    nap.inputs["spec"]["template"]["spec"]["requirements"].append(
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}
    )
    notes = [ln.note for ln in estimate_cost([spot, regular, nap]).lines if not ln.role.endswith(".upgradeSurge")]
    assert notes[0] == SPOT_NOTE and notes[1] is None and notes[2] is not None and notes[2].endswith(SPOT_NOTE)


def _over(resources: list[RecordedResource]) -> str:
    finding = check_budget(estimate_cost(resources), parse_budget({"monthlyUsd": 100}, where=WHERE))
    assert finding is not None and finding.over
    return finding.message.split(" Fix: ", 1)[1]


def test_the_budget_fix_names_the_knob_of_the_resource_that_drives_the_cost() -> None:
    pool = res(POOL, "aks-a100", vmSize=A100, enableAutoScaling=True, minCount=1.0, maxCount=4.0)
    fixed = res(POOL, "aks-t4", vmSize="Standard_NC4as_T4_v3", count=1.0)
    assert _over([pool, fixed]) == (
        "the largest maximum is AgentPool aks-a100 (Standard_NC24ads_A100_v4, up to $10,725.16/month): lower its "
        "maxCount, or pick a smaller GPU size, or raise the budget."
    )
    cluster = res(DBX, "ml", nodeTypeId=A100, autoscale={"minWorkers": 1.0, "maxWorkers": 8.0})
    assert _over([fixed, cluster]).startswith(
        "the largest maximum is Cluster ml (Standard_NC24ads_A100_v4, up to $21,450.32/month): lower its "
        "autoscale.maxWorkers,"
    )
    nap = node_pool(values=[A100], limits={"nvidia.com/gpu": "8"})
    assert _over([fixed, nap]).startswith(
        "the largest maximum is NodePool np (Standard_NC24ads_A100_v4, up to $21,450.32/month): lower its limits "
        "(nvidia.com/gpu; a stack file's gpuNodePools[].limits.gpus),"
    )
