"""Facts about Kubernetes API access on AKS with Azure RBAC (``facts/aks_access.json``). No Pulumi imports."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ACCESS_FACTS = Path(__file__).with_name("facts") / "aks_access.json"


@dataclass(frozen=True, slots=True)
class AksRbacRole:
    key: str
    name: str
    id: str
    """The built-in role definition's GUID (the same in every subscription)."""

    def definition_id(self, subscription_id: str) -> str:
        """The ARM id a role assignment names: ``/subscriptions/<sub>/providers/Microsoft.Authorization/...``."""
        return f"/subscriptions/{subscription_id}/providers/Microsoft.Authorization/roleDefinitions/{self.id}"


@dataclass(frozen=True, slots=True)
class AccessFacts:
    roles: dict[str, AksRbacRole]
    propagation_seconds: int
    needed_to_assign: str


@lru_cache(maxsize=2)
def load_access_facts(path: Path = ACCESS_FACTS) -> AccessFacts:
    doc = json.loads(path.read_text(encoding="utf-8"))
    roles = {key: AksRbacRole(key, row["name"], row["id"]) for key, row in doc["roles"].items()}
    return AccessFacts(roles, int(doc["propagationSeconds"]), str(doc["neededToAssign"]))


def cluster_admin_role() -> AksRbacRole:
    """*Azure Kubernetes Service RBAC Cluster Admin*: what installing the GPU operator chart needs (CRDs,
    ClusterRoles, its namespace), so what the deploying identity and the admin groups get."""
    return load_access_facts().roles["ClusterAdmin"]


def fleet_cluster_admin_role() -> AksRbacRole:
    """*Azure Kubernetes Fleet Manager RBAC Cluster Admin*: what writing placements (and their namespaces) on a
    fleet's hub cluster needs, so what the deploying identity gets on a fleet with a hub and placements."""
    return load_access_facts().roles["FleetClusterAdmin"]
