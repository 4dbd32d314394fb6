"""The Azure resource providers (``az provider register --namespace …``) a stack's resources need, from their
Pulumi types (no Pulumi import): ``docs/deploying.md`` lists them per shipped stack, and a test derives them from the
URN snapshots of the shipped stacks (``tests/components/snapshots/``), so a new resource type fails until it is here.

Sources: the ARM namespace of each azure-native type (pulumi-azure-native 3.29.0 names its modules after the ARM
namespace; ``monitor`` holds ``Microsoft.Insights`` types, action groups, data collection endpoints, rules and
associations, diagnostic settings, and ``Microsoft.Monitor/accounts``, the Azure Monitor workspace). An AKS cluster
also needs ``Microsoft.Compute`` and ``Microsoft.Network``: AKS creates the pools' virtual machine scale sets, the
load balancer and the virtual network in the node resource group. Registration is
per subscription (MicrosoftDocs/azure-docs ``articles/azure-resource-manager/management/resource-providers-and-
types.md``); registering a namespace that is already registered changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

MODULE_NAMESPACES: Final = {
    "containerservice": "Microsoft.ContainerService",
    "resources": "Microsoft.Resources",
    "authorization": "Microsoft.Authorization",
    "monitor": "Microsoft.Insights",
    "insights": "Microsoft.Insights",
    "alertsmanagement": "Microsoft.AlertsManagement",
    "operationalinsights": "Microsoft.OperationalInsights",
    "databricks": "Microsoft.Databricks",
    "network": "Microsoft.Network",
    "managedidentity": "Microsoft.ManagedIdentity",
    "maintenance": "Microsoft.Maintenance",
    "compute": "Microsoft.Compute",
}
"""The azure-native module of a type (``azure-native:<module>:<Type>``) → its ARM namespace."""
TYPE_NAMESPACES: Final = {"azure-native:monitor:AzureMonitorWorkspace": "Microsoft.Monitor"}
"""Types whose namespace is not their module's (``Microsoft.Monitor/accounts``)."""
ALSO_NEEDED: Final = {"Microsoft.ContainerService": ("Microsoft.Compute", "Microsoft.Network")}
"""What a namespace's resources create in the subscription on their own (AKS: scale sets, load balancer, network)."""


def resource_providers(types: Iterable[str]) -> list[str]:
    """The namespaces to register for resources of ``types`` (Pulumi type tokens), sorted; other providers' types
    (``kubernetes:…``, ``databricks:…``, ``time:…``, ``pulumi:providers:…``) need none. Raises ``KeyError`` naming an
    azure-native module this table does not know."""
    found: set[str] = set()
    for token in types:
        parts = token.split(":")
        if len(parts) != 3 or parts[0] != "azure-native":
            continue
        namespace = TYPE_NAMESPACES.get(token) or MODULE_NAMESPACES.get(parts[1])
        if namespace is None:
            raise KeyError(f"{token}: add its azure-native module to rules/resource_providers.py MODULE_NAMESPACES")
        found.add(namespace)
        found.update(ALSO_NEEDED.get(namespace, ()))
    return sorted(found)
