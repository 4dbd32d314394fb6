"""rules.karpenter: which sizes a NodePool's requirements admit (through the catalog), limits, cost, NAP's limits."""

from __future__ import annotations

import typing

import pytest

from gpu_catalog.karpenter import load_karpenter_facts
from rules.karpenter import (
    SKU_FAMILY,
    SKU_GPU_COUNT,
    SKU_GPU_NAME,
    SKU_NAME,
    SKU_SERIES,
    AgentPoolFacts,
    Requirement,
    gpu_nodepool_limits,
    limit_cost,
    nap_agent_pools,
    nodepool_sizes,
    parse_quantity,
    read_requirements,
    resolve_sizes,
    sku_family,
    sku_gpu_name,
    sku_series,
)
from stack_config.nap import CapacityType, ConsolidationPolicy, ImageFamily
from tests.conftest import TODAY

T4 = ("Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3", "Standard_NC64as_T4_v3")


def test_labels_are_derived_from_the_size_name_like_karpenter_provider_azure() -> None:
    assert sku_family("Standard_NC24ads_A100_v4") == "N"
    assert sku_series("Standard_NC24ads_A100_v4") == "NCads_A100_v4"
    assert sku_series("Standard_D4pls_v6") == "Dpls_v6"  # the labels.go example
    assert sku_gpu_name("Standard_NC16as_T4_v3") == "T4"  # the provider's test expects T4 for this size
    assert sku_gpu_name("Standard_NC6s_v3") is None


def test_an_in_list_names_its_sizes_as_written_including_unknown_ones() -> None:
    sizes = nodepool_sizes([Requirement(SKU_NAME, "In", ("Standard_NC4as_T4_v3", "Standard_NC99zz_v9"))])
    assert [n.size for n in sizes.named] == ["Standard_NC4as_T4_v3", "Standard_NC99zz_v9"]
    assert sizes.admitted == ("Standard_NC4as_T4_v3",)
    assert sizes.extra == ()


def test_a_gpu_name_requirement_admits_every_catalog_size_with_that_gpu() -> None:
    sizes = nodepool_sizes([Requirement(SKU_GPU_NAME, "In", ("T4",))])
    assert sizes.named == ()
    assert sizes.admitted == T4


def test_not_in_is_open_and_admits_retired_and_nvv4_sizes() -> None:
    sizes = nodepool_sizes([Requirement(SKU_FAMILY, "In", ("N",)), Requirement(SKU_NAME, "NotIn", ("Standard_NC6",))])
    assert "Standard_NC6" not in sizes.admitted
    assert {"Standard_NC6s_v3", "Standard_NV32as_v4", "Standard_NC4as_T4_v3"} <= set(sizes.admitted)


def test_a_cpu_family_admits_no_gpu_size_and_no_requirement_admits_all() -> None:
    assert not nodepool_sizes([Requirement(SKU_FAMILY, "In", ("D",))]).is_gpu()
    everything = nodepool_sizes([Requirement("kubernetes.io/arch", "In", ("amd64",))])
    assert len(everything.admitted) == 112


def test_numeric_and_series_requirements() -> None:
    four = nodepool_sizes([Requirement(SKU_GPU_NAME, "In", ("T4",)), Requirement(SKU_GPU_COUNT, "Gt", ("1",))])
    assert four.admitted == ("Standard_NC64as_T4_v3",)
    series = nodepool_sizes([Requirement(SKU_SERIES, "In", ("NCads_A100_v4",))])
    assert series.admitted == ("Standard_NC24ads_A100_v4", "Standard_NC48ads_A100_v4", "Standard_NC96ads_A100_v4")


def test_a_name_another_requirement_excludes_is_not_allowed() -> None:
    sizes = nodepool_sizes(
        [
            Requirement(SKU_NAME, "In", ("Standard_NC4as_T4_v3", "Standard_NC6s_v3")),
            Requirement(SKU_NAME, "NotIn", ("Standard_NC6s_v3",)),
        ]
    )
    assert sizes.all_sizes() == ["Standard_NC4as_T4_v3"]


def test_resolve_sizes_refuses_nvv4_and_retired_sizes_naming_them() -> None:
    sizes, found = resolve_sizes(["Standard_NC4as_T4_v3", "Standard_NV32as_v4", "Standard_NC6s_v3"], today=TODAY)
    assert sizes == ["Standard_NC4as_T4_v3", "Standard_NV32as_v4", "Standard_NC6s_v3"]
    assert [f.field for f in found] == ["sizes[1]", "sizes[1]", "sizes[2]"]
    assert found[0].message.startswith("Standard_NV32as_v4 is an NVv4 size")
    assert found[2].message.startswith("Standard_NC6s_v3 (NVIDIA Tesla V100 16 GiB) was retired by Microsoft")


def test_resolve_gpu_models_and_series_to_deployable_sizes_only() -> None:
    sizes, found = resolve_sizes([], ["NCads_A100_v4"], ["T4"], today=TODAY)
    assert found == []
    assert sizes == [  # cheapest first
        "Standard_NC4as_T4_v3",
        "Standard_NC8as_T4_v3",
        "Standard_NC16as_T4_v3",
        "Standard_NC24ads_A100_v4",
        "Standard_NC64as_T4_v3",
        "Standard_NC48ads_A100_v4",
        "Standard_NC96ads_A100_v4",
    ]
    _, found = resolve_sizes([], ["NCs_v3"], ["P100"], today=TODAY)
    assert [f.field for f in found] == ["series[0]", "gpuModels[0]"]
    assert "none is deployable today" in found[0].message
    assert found[1].message.startswith("'P100' names no catalog size. Known: A10, A100,")


def test_gpu_limit_rule() -> None:
    [finding] = gpu_nodepool_limits({}, gpu=True)
    assert finding.field == "limits"
    assert "sets no spec.limits['nvidia.com/gpu']" in finding.message
    assert gpu_nodepool_limits({"nvidia.com/gpu": "8"}, gpu=True) == []
    assert gpu_nodepool_limits({}, gpu=False) == []
    assert [f.message for f in gpu_nodepool_limits({"nvidia.com/gpu": "lots"}, gpu=True)] == [
        "spec.limits['nvidia.com/gpu'] is 'lots', not a GPU count."
    ]
    assert parse_quantity(6.0) == 6.0 and parse_quantity("2k") == 2000.0 and parse_quantity(True) is None


def test_limit_cost_fills_the_limit_with_the_priciest_allowed_size() -> None:
    # 6 T4 GPUs: NC4as 6 x 0.526, NC8as 6 x 0.752, NC16as 6 x 1.204 = 7.224, NC64as 2 x 4.352 = 8.704 (the maximum)
    worst = limit_cost(T4, 6)
    assert worst is not None
    assert (worst.size, worst.nodes, worst.usd_per_node_hour) == ("Standard_NC64as_T4_v3", 2, 4.352)
    worst8 = limit_cost(T4, 8)
    assert worst8 is not None and (worst8.size, worst8.nodes) == ("Standard_NC16as_T4_v3", 8)
    assert limit_cost(["Standard_NC40ads_H100_v5"], 4) is None  # unpriced


def test_nap_refuses_autoscaling_and_windows_agent_pools() -> None:
    found = nap_agent_pools([AgentPoolFacts("a100", autoscaling=False), AgentPoolFacts("t4", True, "Windows")])
    assert [f.field for f in found] == ["1.maxCount", "1.os"]
    assert "autoscaling ones cannot" in found[0].message
    assert "NAP does not support Windows node pools" in found[1].message


@pytest.mark.parametrize(
    ("literal", "facts_key"),
    [
        (ImageFamily, "image_families"),
        (CapacityType, "capacity_types"),
        (ConsolidationPolicy, "consolidation_policies"),
    ],
)
def test_config_enums_are_the_facts_enums(literal: object, facts_key: str) -> None:
    assert sorted(typing.get_args(literal)) == sorted(getattr(load_karpenter_facts(), facts_key))


def test_facts_name_the_versions_aks_runs_and_the_gpu_mode_spelling() -> None:
    facts = load_karpenter_facts()
    assert facts.node_pool_api_version == "karpenter.sh/v1"
    assert facts.node_class_api_version == "karpenter.azure.com/v1beta1"
    assert facts.gpu_modes == ("Driver", "None")  # the CRD's enum; the AKS article writes driver|none


UNKNOWN = object()


def _is_unknown(value: object) -> bool:
    return value is UNKNOWN


def test_read_requirements_keeps_known_entries_names_unknown_ones_and_skips_malformed_ones() -> None:
    base = "spec.template.spec.requirements"
    raw = [
        {"key": SKU_NAME, "operator": "In", "values": ["Standard_NC4as_T4_v3"]},
        {"key": SKU_FAMILY, "operator": "In", "values": [UNKNOWN]},
        UNKNOWN,
        "not a requirement",
        {"key": SKU_SERIES, "operator": "In", "values": "NCasT4_v3"},
        {"key": 3, "operator": "Exists"},
        {"key": SKU_GPU_COUNT, "operator": "Gt", "values": [1.0]},
        {"key": SKU_GPU_NAME, "operator": UNKNOWN},
    ]
    reqs, unknown = read_requirements({"spec": {"template": {"spec": {"requirements": raw}}}}, _is_unknown)
    assert reqs == [
        Requirement(SKU_NAME, "In", ("Standard_NC4as_T4_v3",)),
        Requirement(SKU_GPU_COUNT, "Gt", ("1.0",)),
    ]
    assert unknown == [f"{base}[1]", f"{base}[2]", f"{base}[7]"]


@pytest.mark.parametrize(
    "props",
    [
        UNKNOWN,
        {"spec": UNKNOWN},
        {"spec": {"template": UNKNOWN}},
        {"spec": {"template": {"spec": {"requirements": UNKNOWN}}}},
    ],
)
def test_read_requirements_names_the_whole_list_when_it_is_unknown(props: object) -> None:
    assert read_requirements(props, _is_unknown) == ([], ["spec.template.spec.requirements"])


def test_read_requirements_without_requirements_reads_none() -> None:
    assert read_requirements({"spec": {}}, _is_unknown) == ([], [])
    assert read_requirements({}, _is_unknown) == ([], [])


def test_nodepool_sizes_and_size_labels_are_computed_once() -> None:
    from gpu_catalog import default_catalog
    from rules.karpenter import size_labels

    reqs = [Requirement(SKU_GPU_NAME, "In", ("T4",))]
    first = nodepool_sizes(reqs)
    assert nodepool_sizes(tuple(reqs)) is first
    assert nodepool_sizes(reqs, default_catalog()) is first
    assert first.admitted == T4
    size = default_catalog()["Standard_NC4as_T4_v3"]
    assert size_labels(size) is size_labels(size)
    assert size_labels(size)[SKU_SERIES] == "NCas_T4_v3"


def test_nodepool_defaults_are_defined_once_and_within_the_facts_enums() -> None:
    from components.nap_pool import NapGpuPoolArgs
    from rules.karpenter import DEFAULT_CAPACITY_TYPES, DEFAULT_CONSOLIDATE_AFTER, DEFAULT_CONSOLIDATION_POLICY
    from stack_config.nap import DisruptionConfig, GpuNodePoolConfig

    facts = load_karpenter_facts()
    assert DEFAULT_CAPACITY_TYPES == ("on-demand",)
    assert (DEFAULT_CONSOLIDATION_POLICY, DEFAULT_CONSOLIDATE_AFTER) == ("WhenEmpty", "5m")
    assert set(DEFAULT_CAPACITY_TYPES) <= set(facts.capacity_types)
    assert DEFAULT_CONSOLIDATION_POLICY in facts.consolidation_policies
    disruption = DisruptionConfig()
    assert (disruption.consolidationPolicy, disruption.consolidateAfter) == ("WhenEmpty", "5m")
    pool = GpuNodePoolConfig.model_validate({"name": "infer", "limits": {"gpus": 4}})
    assert pool.capacityTypes == ["on-demand"]
    fields = NapGpuPoolArgs.__dataclass_fields__
    assert fields["capacity_types"].default == ("on-demand",)
    assert (fields["consolidation_policy"].default, fields["consolidate_after"].default) == ("WhenEmpty", "5m")
