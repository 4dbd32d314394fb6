"""Run a policy's validate function the way pulumi_policy's analyzer servicer does, without serving gRPC.

``PolicyPack(...)`` blocks forever, so tests never build the pack: they construct ``ResourceValidationArgs`` /
``StackValidationArgs`` with the engine's property shape (camelCase, numbers as floats, wrapped in the
unknown-checking proxy) and collect what the servicer would report.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

UNKNOWN = UNKNOWN_STRING_VALUE
"""What the engine sends for a string that is unknown during preview."""

AGENT_POOL = "azure-native:containerservice:AgentPool"
MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
DATABRICKS_CLUSTER = "databricks:index/cluster:Cluster"
KAITO_WORKSPACE = "kubernetes:kaito.sh/v1beta1:Workspace"
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"


@dataclass
class Outcome:
    """What the servicer would send back for one policy: violation messages (without the description prefix),
    the advisory "can't run during preview" message, and not-applicable reasons."""

    violations: list[str] = field(default_factory=list)
    violation_urns: list[str | None] = field(default_factory=list)
    preview_unknown: str | None = None
    not_applicable: list[str] = field(default_factory=list)


def _opts() -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], None)


def urn_of(resource_type: str, name: str) -> str:
    return f"urn:pulumi:dev::azure-gpu-platform::{resource_type}::{name}"


def run_policy(
    policy: ResourceValidationPolicy,
    resource_type: str,
    props: dict[str, Any],
    config: dict[str, Any] | None = None,
    name: str = "res",
) -> Outcome:
    outcome = Outcome()

    def report(message: str, urn: str | None = None) -> None:
        outcome.violations.append(message)
        outcome.violation_urns.append(urn)

    proxied = unknown_checking_proxy(copy.deepcopy(props))
    args = ResourceValidationArgs(resource_type, proxied, urn_of(resource_type, name), name, _opts(), None, config)
    try:
        result = policy.validate(args, report)
        assert result is None, "policies here are synchronous"
    except UnknownValueError as exc:
        outcome.preview_unknown = exc.message
    except _NotApplicableError as exc:
        outcome.not_applicable.append(exc.reason or "")
    return outcome


def run_stack_policy(
    policy: StackValidationPolicy,
    resources: list[tuple[str, str, dict[str, Any]]],
    config: dict[str, Any] | None = None,
) -> Outcome:
    """``resources`` are (type, name, properties) as AnalyzeStack sends them."""
    outcome = Outcome()

    def report(message: str, urn: str | None = None) -> None:
        outcome.violations.append(message)
        outcome.violation_urns.append(urn)

    stack = [
        PolicyResource(t, unknown_checking_proxy(copy.deepcopy(p)), urn_of(t, n), n, _opts(), None, None, [], {})
        for t, n, p in resources
    ]
    try:
        result = policy.validate(StackValidationArgs(stack, config), report)
        assert result is None, "policies here are synchronous"
    except UnknownValueError as exc:
        outcome.preview_unknown = exc.message
    except _NotApplicableError as exc:
        outcome.not_applicable.append(exc.reason or "")
    return outcome


def with_(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The compliant baseline with one mutation (``None`` removes a key)."""
    out = copy.deepcopy(base)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


# Compliant baselines, as the engine sends them (camelCase, numbers as floats).

GPU_POOL: dict[str, Any] = {
    "resourceGroupName": "rg-gpu-dev",
    "resourceName": "aks-gpu-dev",
    "agentPoolName": "gpua100",
    "vmSize": "Standard_NC24ads_A100_v4",
    "count": 1.0,
    "enableAutoScaling": True,
    "minCount": 1.0,
    "maxCount": 3.0,
    "mode": "User",
    "osType": "Linux",
    "osSKU": "Ubuntu",
    "orchestratorVersion": "1.31.2",
    "gpuProfile": {"driver": "None"},
    "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"],
    "nodeLabels": {"gpu": "a100"},
    "tags": {"environment": "dev"},
}

SYSTEM_PROFILE: dict[str, Any] = {
    "name": "system",
    "mode": "System",
    "vmSize": "Standard_D4s_v5",
    "count": 2.0,
    "osType": "Linux",
}

CLUSTER: dict[str, Any] = {
    "resourceGroupName": "rg-gpu-dev",
    "resourceName": "aks-gpu-dev",
    "kubernetesVersion": "1.31.2",
    "dnsPrefix": "aks-gpu-dev",
    "sku": {"name": "Base", "tier": "Standard"},
    "agentPoolProfiles": [SYSTEM_PROFILE],
    "oidcIssuerProfile": {"enabled": True},
    "aiToolchainOperatorProfile": {"enabled": True},
    "metricsProfile": {"costAnalysis": {"enabled": True}},
}

DATABRICKS_GPU: dict[str, Any] = {
    "clusterName": "gpu-train",
    "sparkVersion": "15.4.x-gpu-ml-scala2.12",
    "nodeTypeId": "Standard_NC4as_T4_v3",
    "driverNodeTypeId": "Standard_NC4as_T4_v3",
    "numWorkers": 2.0,
    "dataSecurityMode": "SINGLE_USER",
    "singleUserName": "ml-team@contoso.com",
    "runtimeEngine": "STANDARD",
    "sparkConf": {"spark.task.resource.gpu.amount": "1"},
    "autoterminationMinutes": 30.0,
}

KAITO_WS: dict[str, Any] = {
    "apiVersion": "kaito.sh/v1beta1",
    "kind": "Workspace",
    "metadata": {"name": "phi-4", "namespace": "default"},
    "resource": {
        "instanceType": "Standard_NC24ads_A100_v4",
        "count": 1.0,
        "labelSelector": {"matchLabels": {"apps": "phi-4"}},
    },
    "inference": {"preset": {"name": "phi-4"}},
}

OPERATOR_RELEASE: dict[str, Any] = {
    "chart": "gpu-operator",
    "version": "v25.3.0",
    "namespace": "gpu-operator",
    "repositoryOpts": {"repo": "https://helm.ngc.nvidia.com/nvidia"},
    "values": {"driver": {"enabled": True}, "toolkit": {"enabled": True}},
}


def corpus_with_unknowns(n: int) -> list[tuple[str, str, str, dict[str, Any]]]:
    """bench's synthetic corpus of ``n`` resources (AgentPool, ManagedCluster, Databricks; every catalog size) as
    (type, engine URN, name, inputs), every seventh resource with one field unknown and every eleventh with an
    unknown pool list / node count."""
    from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE

    from bench.bench_policy import synth_resources
    from preflight.analyzer.protocol import engine_urn

    out: list[tuple[str, str, str, dict[str, Any]]] = []
    for i, r in enumerate(synth_resources(n)):
        inputs = dict(r.inputs)
        if i % 7 == 0:
            inputs[sorted(inputs)[i % len(inputs)]] = UNKNOWN_STRING_VALUE
        if i % 11 == 0:
            key = "agentPoolProfiles" if "agentPoolProfiles" in inputs else "count"
            inputs[key] = UNKNOWN_STRING_VALUE if key == "agentPoolProfiles" else UNKNOWN_NUMBER_VALUE
        out.append((r.type, engine_urn(r.urn), r.name, inputs))
    return out
