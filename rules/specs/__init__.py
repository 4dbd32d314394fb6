"""One spec per deployable: the fields, the defaults resolved once, the whole checklist with ``today`` passed in.

A spec is a frozen dataclass, free of Pulumi, in the rules layer. Every door builds the same spec: the stack config
parses camelCase into it (:mod:`stack_config`), the Python API constructs it directly (the component Args hold it and
their Pulumi inputs, :mod:`components`), the component package maps its inputs to it (:mod:`component_package`), the
policies can build it (partially) from wire props. Whatever the door, a field not given gets the same default, so
the same pool, written three ways, sends the same inputs (``tests/components/test_three_ways.py``).

- :class:`~rules.specs.aks_gpu_pool.AksGpuPool`: an AKS GPU agent pool;
- :class:`~rules.specs.aks_cluster.AksCluster`: the AKS cluster (its system pool, access, hardening, upgrades);
- :class:`~rules.specs.nap_gpu_pool.NapGpuNodePool`: a node auto-provisioning (Karpenter) GPU NodePool;
- :class:`~rules.specs.kaito_workspace.KaitoGpuWorkspace`: a KAITO model workspace;
- :class:`~rules.specs.databricks_cluster.DatabricksGpuCompute`: a Databricks GPU cluster.
"""

from __future__ import annotations

from .aks_cluster import AKS_CLUSTER_FIELDS, AksCluster, ClusterAccess, SystemPoolSpec
from .aks_gpu_pool import AKS_GPU_POOL_FIELDS, AksGpuPool, pool_defaults
from .databricks_cluster import DATABRICKS_CLUSTER_FIELDS, DatabricksAutoscale, DatabricksGpuCompute
from .kaito_workspace import KAITO_WORKSPACE_FIELDS, KaitoGpuWorkspace
from .nap_gpu_pool import NAP_GPU_NODE_POOL_FIELDS, NapGpuNodePool
from .pool_software import PoolDevicePlugin, PoolGpuOperator

__all__ = [
    "AKS_CLUSTER_FIELDS",
    "AKS_GPU_POOL_FIELDS",
    "DATABRICKS_CLUSTER_FIELDS",
    "KAITO_WORKSPACE_FIELDS",
    "NAP_GPU_NODE_POOL_FIELDS",
    "AksCluster",
    "AksGpuPool",
    "ClusterAccess",
    "DatabricksAutoscale",
    "DatabricksGpuCompute",
    "KaitoGpuWorkspace",
    "NapGpuNodePool",
    "PoolDevicePlugin",
    "PoolGpuOperator",
    "SystemPoolSpec",
    "pool_defaults",
]
