"""A fleet stack as the preflight records it, built by hand: per member a ManagedCluster, a GPU AgentPool, a
Kubernetes provider and a KAITO Workspace through it, the Azure resources tagged ``fleet-member: <member>`` and every
name prefixed with the member's; the Fleet and one FleetMember per member through the generic
``azure-native:resources:Resource`` (resource types ``fleets``, ``fleets/members``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from preflight.model import RecordedResource

PRE = "urn:pulumi:fleet::azure-gpu-platform::"
STACK = f"{PRE}pulumi:pulumi:Stack::azure-gpu-platform-fleet"
GENERIC = "azure-native:resources:Resource"
CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
K8S_PROVIDER = "pulumi:providers:kubernetes"
KAITO = "kubernetes:kaito.sh/v1beta1:Workspace"
FLEET_API = "2025-03-01"


@dataclass(frozen=True)
class Member:
    name: str
    region: str
    group: str
    vm_size: str
    min_count: int
    max_count: int
    kaito_size: str | None = None


def _res(typ: str, name: str, inputs: dict[str, Any], **kw: Any) -> RecordedResource:
    return RecordedResource(urn=f"{PRE}{typ}::{name}", type=typ, name=name, inputs=inputs, parent=STACK, **kw)


def member_resources(m: Member) -> list[RecordedResource]:
    tags = {"managed-by": "pulumi:azure-gpu-platform", "fleet-member": m.name}
    cluster = _res(
        CLUSTER,
        f"{m.name}-aks-cluster",
        {
            "location": m.region,
            "resourceName": f"{m.name}-aks",
            "kubernetesVersion": "1.34",
            "tags": tags,
            "agentPoolProfiles": [{"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5", "count": 2.0}],
        },
    )
    pool = _res(
        POOL,
        f"{m.name}-aks-gpu",
        {
            "resourceName": f"{m.name}-aks",
            "agentPoolName": "gpu",
            "vmSize": m.vm_size,
            "enableAutoScaling": True,
            "minCount": float(m.min_count),
            "maxCount": float(m.max_count),
            "count": float(max(m.min_count, 1)),
            "tags": {**tags, "gpu-pool": "gpu"},
        },
    )
    provider = _res(K8S_PROVIDER, f"{m.name}-aks-k8s", {"kubeconfig": "..."})
    out = [cluster, pool, provider]
    if m.kaito_size:
        out.append(
            _res(
                KAITO,
                f"{m.name}-kaito-phi",
                {"metadata": {"name": "phi"}, "resource": {"instanceType": m.kaito_size, "count": 1.0}},
                provider=f"{provider.urn}::04da6b54-80e4-46f7-96ec-b56ff0331ba9",
            )
        )
    return out


def fleet_resources(members: list[Member], *, fleet: str = "gpu-fleet") -> list[RecordedResource]:
    """The stack resource, the Fleet, then per member its FleetMember and its platform."""
    out = [RecordedResource(urn=STACK, type="pulumi:pulumi:Stack", name="azure-gpu-platform-fleet", inputs={})]
    base = {"resourceProviderNamespace": "Microsoft.ContainerService", "apiVersion": FLEET_API}
    out.append(
        _res(
            GENERIC,
            fleet,
            {**base, "resourceType": "fleets", "resourceName": fleet, "location": "westeurope"},
        )
    )
    for m in members:
        out.append(
            _res(
                GENERIC,
                f"{fleet}-member-{m.name}",
                {
                    **base,
                    "resourceType": "fleets/members",
                    "parentResourcePath": f"fleets/{fleet}",
                    "resourceName": m.name,
                    "properties": {"clusterResourceId": f"/subscriptions/0/.../{m.name}-aks", "group": m.group},
                },
            )
        )
        out.extend(member_resources(m))
    return out


THREE = [
    Member("weu", "westeurope", "canary", "Standard_NC24ads_A100_v4", 1, 3, kaito_size="Standard_NC8as_T4_v3"),
    Member("sec", "swedencentral", "rest", "Standard_NC8as_T4_v3", 0, 4, kaito_size="Standard_NC8as_T4_v3"),
    Member("eus", "eastus", "rest", "Standard_NC4as_T4_v3", 2, 2),
]
"""Three members in three regions: a canary (A100, 1–3 nodes) and two more (T4, 0–4 and 2 nodes)."""
