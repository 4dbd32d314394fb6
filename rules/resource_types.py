"""Which resource a type token names, for the policies and the cost estimate alike.

Type tokens as the engine sends them, including azure-native's explicit API-version modules
(``azure-native:containerservice/v20250901:AgentPool`` is an AgentPool like ``azure-native:containerservice:AgentPool``)
and every served version of the KAITO CRD (``kubernetes:kaito.sh/v1beta1:Workspace``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from gpu_catalog.karpenter import load_karpenter_facts

AGENT_POOL_RE: Final = re.compile(r"^azure-native:containerservice(?:/v[0-9a-z]+)?:AgentPool$")
MANAGED_CLUSTER_RE: Final = re.compile(r"^azure-native:containerservice(?:/v[0-9a-z]+)?:ManagedCluster$")
DATABRICKS_CLUSTER: Final = "databricks:index/cluster:Cluster"
DATABRICKS_INSTANCE_POOL: Final = "databricks:index/instancePool:InstancePool"
KAITO_WORKSPACE_RE: Final = re.compile(r"^kubernetes:kaito\.sh/v[0-9a-z]+:Workspace$")
HELM_RELEASE_RE: Final = re.compile(r"^kubernetes:helm\.sh/v3:Release$")
DIAGNOSTIC_SETTING_RE: Final = re.compile(r"^azure-native:(?:monitor|insights)(?:/v[0-9a-z]+)?:DiagnosticSetting$")
"""``Microsoft.Insights/diagnosticSettings``: pulumi-azure-native 3.29 ``monitor:DiagnosticSetting`` (API
2021-05-01-preview) and its alias ``insights:DiagnosticSetting``."""
_TYPES_MAX: Final = 1024
"""Distinct type tokens each predicate remembers (the pack asks about every resource; tokens are few)."""


@lru_cache(maxsize=_TYPES_MAX)
def is_agent_pool(resource_type: str) -> bool:
    return bool(AGENT_POOL_RE.match(resource_type))


@lru_cache(maxsize=_TYPES_MAX)
def is_managed_cluster(resource_type: str) -> bool:
    return bool(MANAGED_CLUSTER_RE.match(resource_type))


@lru_cache(maxsize=_TYPES_MAX)
def is_diagnostic_setting(resource_type: str) -> bool:
    return bool(DIAGNOSTIC_SETTING_RE.match(resource_type))


def is_aks_pool_resource(resource_type: str) -> bool:
    """An AgentPool or a ManagedCluster: the resources that define AKS node pools."""
    return is_agent_pool(resource_type) or is_managed_cluster(resource_type)


def is_databricks_cluster(resource_type: str) -> bool:
    return resource_type == DATABRICKS_CLUSTER


def is_databricks_instance_pool(resource_type: str) -> bool:
    return resource_type == DATABRICKS_INSTANCE_POOL


@lru_cache(maxsize=_TYPES_MAX)
def is_kaito_workspace(resource_type: str) -> bool:
    return bool(KAITO_WORKSPACE_RE.match(resource_type))


@lru_cache(maxsize=_TYPES_MAX)
def is_helm_release(resource_type: str) -> bool:
    return bool(HELM_RELEASE_RE.match(resource_type))


KARPENTER_NODE_POOL: Final = f"kubernetes:{load_karpenter_facts().node_pool_api_version}:NodePool"
"""The NodePool type token at the version AKS runs (``gpu_catalog/facts/karpenter.json``); every served version
matches :data:`KARPENTER_NODE_POOL_RE`."""
KARPENTER_NODE_POOL_RE: Final = re.compile(r"^kubernetes:karpenter\.sh/v[0-9a-z]+:NodePool$")
"""Karpenter NodePools (``karpenter.sh/v1`` on AKS node auto-provisioning), ours or raw."""


@lru_cache(maxsize=_TYPES_MAX)
def is_karpenter_node_pool(resource_type: str) -> bool:
    return bool(KARPENTER_NODE_POOL_RE.match(resource_type))


AKS_NODE_CLASS_RE: Final = re.compile(r"^kubernetes:karpenter\.azure\.com/v[0-9a-z]+:AKSNodeClass$")
"""AKS node auto-provisioning's ``AKSNodeClass`` (``karpenter.azure.com/v1beta1``, ``v1alpha2``), ours or raw: the
image family of the NodePools that reference it."""


@lru_cache(maxsize=_TYPES_MAX)
def is_aks_node_class(resource_type: str) -> bool:
    return bool(AKS_NODE_CLASS_RE.match(resource_type))
