"""rules.karpenter: a NodePool's GPU scope from its own requirements (explicit GPU, GPU excluded, unconstrained), the
one finding for an unconstrained NodePool, the sizes Karpenter on AKS can launch (karpenter-provider-azure's GPU
registry) and one message per rule for many refused sizes (issue 28)."""

from __future__ import annotations

from datetime import date

import pytest

from gpu_catalog import default_catalog
from gpu_catalog.karpenter import load_karpenter_facts
from rules.karpenter import (
    EXCLUDE_GPUS,
    SKU_FAMILY,
    SKU_GPU_COUNT,
    SKU_GPU_MANUFACTURER,
    SKU_GPU_NAME,
    SKU_NAME,
    SKU_SERIES,
    GpuScope,
    Requirement,
    gpu_scope,
    launchable_sizes,
    nodepool_sizes,
    selects_gpus,
    summarise_sizes,
    unconstrained_gpus,
)

DAY = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("requirements", "scope"),
    [
        ((), GpuScope.UNCONSTRAINED),
        ((Requirement("karpenter.sh/capacity-type", "In", ("spot",)),), GpuScope.UNCONSTRAINED),
        ((Requirement("karpenter.azure.com/sku-storage-ephemeralos-maxsize", "Gt", ("128",)),), GpuScope.UNCONSTRAINED),
        # every node carries sku-gpu-count (0 without GPUs): Exists does not ask for GPUs
        ((Requirement(SKU_GPU_COUNT, "Exists"),), GpuScope.UNCONSTRAINED),
        ((Requirement(SKU_GPU_NAME, "NotIn", ("K80",)),), GpuScope.UNCONSTRAINED),
        ((Requirement(SKU_NAME, "In", ("Standard_NC4as_T4_v3",)),), GpuScope.EXPLICIT),
        ((Requirement(SKU_NAME, "In", ("Standard_D4s_v5", "Standard_NC4as_T4_v3")),), GpuScope.EXPLICIT),
        ((Requirement("node.kubernetes.io/instance-type", "In", ("Standard_NC99zz_v9",)),), GpuScope.EXPLICIT),
        ((Requirement(SKU_FAMILY, "In", ("N",)),), GpuScope.EXPLICIT),
        ((Requirement(SKU_FAMILY, "In", ("D", "N")),), GpuScope.EXPLICIT),
        ((Requirement(SKU_SERIES, "In", ("NCas_T4_v3",)),), GpuScope.EXPLICIT),
        ((Requirement(SKU_GPU_NAME, "In", ("A100",)),), GpuScope.EXPLICIT),
        ((Requirement(SKU_GPU_MANUFACTURER, "Exists"),), GpuScope.EXPLICIT),
        ((Requirement(SKU_GPU_COUNT, "Gt", ("0",)),), GpuScope.EXPLICIT),
        ((Requirement(SKU_GPU_COUNT, "In", ("1", "2")),), GpuScope.EXPLICIT),
        ((Requirement(SKU_FAMILY, "In", ("D",)),), GpuScope.EXCLUDED),
        ((EXCLUDE_GPUS,), GpuScope.EXCLUDED),
        ((Requirement(SKU_GPU_COUNT, "Lt", ("1",)),), GpuScope.EXCLUDED),
        ((Requirement(SKU_GPU_COUNT, "In", ("0",)),), GpuScope.EXCLUDED),
        ((Requirement(SKU_GPU_COUNT, "DoesNotExist"),), GpuScope.EXCLUDED),
        ((Requirement(SKU_GPU_MANUFACTURER, "DoesNotExist"),), GpuScope.EXCLUDED),
        ((Requirement(SKU_NAME, "In", ("Standard_D4s_v3", "Standard_F8s_v2")),), GpuScope.EXCLUDED),
        # asks for GPUs and excludes them all: nothing GPU is admitted
        ((Requirement(SKU_FAMILY, "In", ("N",)), Requirement(SKU_GPU_COUNT, "Lt", ("1",))), GpuScope.EXCLUDED),
    ],
)
def test_gpu_scope(requirements: tuple[Requirement, ...], scope: GpuScope) -> None:
    assert gpu_scope(requirements) is scope


def test_a_fractional_size_is_excluded_by_a_count_below_one_and_admitted_by_an_open_one() -> None:
    # Standard_NV6ads_A10_v5 is a sixth of an A10: Karpenter labels it with the SKU API's whole count
    assert "Standard_NV6ads_A10_v5" not in nodepool_sizes([Requirement(SKU_GPU_COUNT, "Lt", ("1",))]).admitted
    assert "Standard_NV6ads_A10_v5" in nodepool_sizes([Requirement(SKU_GPU_COUNT, "Gt", ("2",))]).admitted
    assert not selects_gpus(Requirement(SKU_GPU_COUNT, "Lt", ("4",)))


def test_launchable_sizes_follow_karpenter_provider_azures_gpu_registry() -> None:
    facts = load_karpenter_facts()
    assert len(facts.gpu_sizes) == 89
    assert facts.gpu_sizes["standard_nc24ads_a100_v4"] == ("nvidia", ("ubuntu", "windows", "azurelinux3"))
    assert facts.gpu_sizes["standard_nv4ads_v710_v5"] == ("amd", ("ubuntu",))
    assert facts.launchable_gpu_size("Standard_NC6_Promo") and facts.launchable_gpu_size("STANDARD_NC4AS_T4_V3")
    everything = nodepool_sizes([])
    launchable = launchable_sizes(everything)
    assert (len(everything.admitted), len(launchable)) == (
        112,
        89,
    )  # the catalog after issue 21 holds every registry name
    left_out = sorted(set(everything.admitted) - set(launchable))
    assert left_out == sorted(
        [
            *(f"Standard_NV{n}as_v4" for n in (4, 8, 16, 32)),  # NVv4: not in the registry
            *(f"Standard_NV{n}ahs_v4" for n in (4, 8, 16, 32)),
            *(f"Standard_NV{n}_v3" for n in ("12hs", "24ms", "32ms")),  # NVv3 variants (retired)
            *(f"Standard_NG{n}_V620_v1" for n in ("8ads", "16ads", "32ads", "32adms")),
            *(f"Standard_NC{n}_xl_RTXPRO6000BSE_v6" for n in ("128ds", "128lds", "256ds", "256lds", "320ds", "320lds")),
            "Standard_NCC40ads_H100_v5",
            "Standard_ND128isrG5_GB300_v6",
        ]
    )


def test_the_unconstrained_finding_names_counts_first_sizes_why_and_the_fix() -> None:
    finding = unconstrained_gpus("default", nodepool_sizes([]), gpu_tainted=False, today=DAY)
    assert finding.field == "requirements"
    assert finding.message == (
        "NodePool 'default' does not constrain GPUs: its requirements admit 89 GPU sizes that Karpenter on AKS can "
        "launch (karpenter-provider-azure's GPU registry), and 41 of them are refused by the size rules (30 retired, "
        "37 below the floor Standard_NC6s_v3): Standard_NC6, Standard_NC12, "
        "Standard_NC6s_v2, Standard_NC6s_v3, Standard_NC24 and 36 more. A pending pod that requests nvidia.com/gpu "
        "makes Karpenter create whichever of them fits, on a node without the nvidia.com/gpu taint (so ordinary pods "
        "share the GPU VM). Add the requirement {key: karpenter.azure.com/sku-family, operator: NotIn, values: [N]} "
        "to keep GPUs out of this NodePool, or pin its GPU sizes, e.g. {key: karpenter.azure.com/sku-name, "
        "operator: In, values: [Standard_NC4as_T4_v3, Standard_NC8as_T4_v3, Standard_NC16as_T4_v3]}, and bound them "
        "with spec.limits['nvidia.com/gpu']."
    )


def test_the_unconstrained_finding_with_a_taint_a_limit_a_higher_floor_and_nothing_refused() -> None:
    a100 = unconstrained_gpus(
        "p", nodepool_sizes([]), gpu_tainted=True, gpu_limited=True, floor="Standard_NC24ads_A100_v4", today=DAY
    )
    assert "below the floor Standard_NC24ads_A100_v4" in a100.message
    assert "without the nvidia.com/gpu taint" not in a100.message
    assert a100.message.endswith(
        "values: [Standard_NC24ads_A100_v4, Standard_NC48ads_A100_v4, Standard_NC96ads_A100_v4]}."
    )
    # a GPU-name NotIn that leaves only good sizes: still unconstrained, nothing refused
    good = nodepool_sizes(
        [
            Requirement(
                SKU_NAME, "NotIn", tuple(s.name for s in default_catalog().sizes() if s.name != "Standard_NC4as_T4_v3")
            )
        ]
    )
    message = unconstrained_gpus("p", good, gpu_tainted=False, today=DAY).message
    assert "admit 1 GPU sizes that Karpenter on AKS can launch" in message
    assert "and none of them is refused by the size rules." in message


def test_many_refused_sizes_make_one_message() -> None:
    base = "spec.template.spec.requirements"
    assert summarise_sizes("np", []) is None
    assert summarise_sizes("np", [(f"{base}[0].values[1]", "Standard_NC6", "Standard_NC6 was retired.")]) == (
        f"{base}[0].values[1]: Standard_NC6 was retired."
    )
    refused = [(f"{base}[0].values[0]", "Standard_NC6", "Standard_NC6 was retired.")] + [
        (f"{base} (admits Standard_X{i})", f"Standard_X{i}", f"Standard_X{i} was retired.") for i in range(7)
    ]
    assert summarise_sizes("np", refused) == (
        f"{base}: NodePool 'np' admits 8 sizes this policy refuses: Standard_NC6 (requirements[0].values[0]), "
        "Standard_X0, Standard_X1, Standard_X2, Standard_X3 and 3 more. The first: Standard_NC6 was retired."
    )
