"""``policies/_specs.py``: the pack builds the pool spec from wire props, with the spec's defaults where AKS has the
same (the OS SKU of an ``osType``) and AKS's where it differs (no taints written: none); the KAITO Workspace and the
Databricks cluster specs likewise, each once per resource and request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy.policy import _PolicyAnalyzerServicer

import policies._databricks as databricks
import policies._specs as specs
from policies._resources import Pool, agent_pools, plain
from policies._specs import wire_cluster, wire_databricks, wire_pool, wire_workspace
from preflight.analyzer.protocol import to_struct
from tests.policies._helpers import (
    CLUSTER,
    DATABRICKS_CLUSTER,
    DATABRICKS_GPU,
    KAITO_WORKSPACE,
    KAITO_WS,
    MANAGED_CLUSTER,
    urn_of,
    with_,
)
from tests.policies._helpers import UNKNOWN as UNKNOWN_VALUE

AGENT_POOL = "azure-native:containerservice:AgentPool"
AMOUNT = "spark.task.resource.gpu.amount"


def _pool(**props: object) -> Pool:
    [pool], unknown = agent_pools(AGENT_POOL, {"agentPoolName": "gpu", "vmSize": "Standard_NC4as_T4_v3", **props})
    assert unknown == []
    return pool


def test_the_spec_resolves_the_os_sku_of_the_os_type() -> None:
    assert wire_pool(_pool()).os_sku == "Ubuntu"
    assert wire_pool(_pool(osType="Windows")).os_sku == "Windows2022"
    assert wire_pool(_pool(osSKU="AzureLinux")).os_sku == "AzureLinux"


def test_aks_defaults_where_the_spec_would_add_its_own() -> None:
    bare = wire_pool(_pool())
    assert (bare.node_taints, bare.skips_driver, bare.name) == ((), False, "gpu")
    skipped = wire_pool(_pool(gpuProfile={"driver": "None"}, nodeTaints=["a=b:NoSchedule"]))
    assert (skipped.node_taints, skipped.skips_driver) == (("a=b:NoSchedule",), True)


def test_built_once_per_pool() -> None:
    pool = _pool()
    assert wire_pool(pool) is wire_pool(pool)


# ------------------------------------------------------------------------------ KAITO Workspace, Databricks cluster


def test_the_workspace_spec_from_wire_props() -> None:
    """One mapping for both KAITO policies: the catalog's and the preset table's spelling, a float count as nodes,
    KAITO's default count for a missing or nonsensical one, and "not set" as the rules read it."""
    spec = wire_workspace(with_(KAITO_WS, resource={"instanceType": "standard_nc24ads_a100_v4", "count": 2.0}))
    assert (spec.workspace_name, spec.instance_type, spec.count, spec.preset) == (
        "phi-4",
        "Standard_NC24ads_A100_v4",
        2,
        "phi-4",
    )
    assert spec.model_access_secret is None
    bare = wire_workspace({"resource": {"count": 0.0}, "inference": {"preset": {"presetOptions": {}}}})
    assert (bare.instance_type, bare.preset, bare.count, bare.workspace.preset) == ("", "", 1, "")
    secret = {"name": "llama-3.1-8b-instruct", "presetOptions": {"modelAccessSecret": "hf"}}
    assert wire_workspace(with_(KAITO_WS, inference={"preset": secret})).workspace.model_access_secret == "hf"


def test_the_databricks_spec_from_wire_props() -> None:
    """One mapping for the five Databricks policies: the request's fields the resource names and its own words,
    which the rules judge (``runtimeEngine``, the ``sparkConf`` amount as written)."""
    spec = wire_databricks(with_(DATABRICKS_GPU, runtimeEngine="PHOTON", sparkConf={AMOUNT: 0.25}))
    assert (spec.cluster_name, spec.node_type_id, spec.driver_node_type_id, spec.single_user_name) == (
        "gpu-train",
        "Standard_NC4as_T4_v3",
        "Standard_NC4as_T4_v3",
        "ml-team@contoso.com",
    )
    judged = spec.judged
    assert judged is spec.written
    assert (judged.runtime_engine, judged.gpu_settings, judged.gpu_amount) == ("PHOTON", (AMOUNT,), 0.25)
    assert (judged.spark_version, judged.single_node, judged.declared_gpu) == ("15.4.x-gpu-ml-scala2.12", False, False)


def test_unknown_databricks_values_as_the_policies_read_them() -> None:
    """A ``kind`` unknown during a preview is judged as CLASSIC_PREVIEW (checked at ``pulumi up``); an unknown amount
    keeps its key among the GPU settings and is not set; an unknown principal is not set."""
    props = with_(DATABRICKS_GPU, kind=UNKNOWN_VALUE, singleUserName=UNKNOWN_VALUE, sparkConf={AMOUNT: UNKNOWN_VALUE})
    words = wire_databricks(plain(props)).judged  # as the policies read it: sentinels as UNKNOWN
    assert (words.kind, words.single_user_name, words.gpu_settings, words.gpu_amount) == (
        "CLASSIC_PREVIEW",
        None,
        (AMOUNT,),
        None,
    )


def test_the_cluster_spec_from_wire_props() -> None:
    """The switches the cluster policies judge, as AKS reads them (off unless ``true``, where the spec would turn the
    OIDC issuer on), and Image Cleaner's interval as written."""
    spec = wire_cluster(
        with_(
            CLUSTER,
            oidcIssuerProfile={"enabled": False},
            securityProfile={"imageCleaner": {"enabled": "true", "intervalHours": 12.0}},
        )
    )
    assert (spec.kaito_addon, spec.oidc_issuer, spec.disable_run_command) == (True, False, False)
    assert (spec.image_cleaner, spec.image_cleaner_interval_hours, spec.kubernetes_version) == (True, 12, "1.31.2")
    assert (spec.facts.kaito_addon, spec.facts.oidc_issuer) == (True, False)
    bare = wire_cluster({"apiServerAccessProfile": {"disableRunCommand": True}})
    assert (bare.oidc_issuer, bare.kaito_addon) == (False, False)  # AKS's default, not the spec's (on)
    assert (bare.cluster_name, bare.disable_run_command, bare.image_cleaner, bare.image_cleaner_interval_hours) == (
        "",
        True,
        False,
        168,
    )


def test_each_spec_built_once_per_request(servicer: _PolicyAnalyzerServicer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both KAITO policies share one Workspace spec, the five Databricks policies one cluster spec, the three
    ManagedCluster policies that read one (KAITO's OIDC issuer, Run Command, Image Cleaner) one cluster spec, per
    request."""
    built: list[str] = []

    def counting(name: str, build: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def counted(props: Any) -> Any:
            built.append(name)
            return build(props)

        return counted

    monkeypatch.setattr(specs, "wire_workspace", counting("workspace", specs.wire_workspace))
    monkeypatch.setattr(databricks, "wire_databricks", counting("databricks", databricks.wire_databricks))
    monkeypatch.setattr(specs, "wire_cluster", counting("cluster", specs.wire_cluster))
    for typ, props in ((KAITO_WORKSPACE, KAITO_WS), (DATABRICKS_CLUSTER, DATABRICKS_GPU), (MANAGED_CLUSTER, CLUSTER)):
        request = analyzer_pb2.AnalyzeRequest(type=typ, properties=to_struct(props), urn=urn_of(typ, "r"), name="r")
        servicer.Analyze(request, None)
    assert built == ["workspace", "databricks", "cluster"]
