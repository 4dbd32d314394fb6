"""Stack configuration: the typed shape of ``stacks/Pulumi.<env>.yaml`` and its validation.

Everything under the ``azure-gpu-platform:`` namespace of a stack file is parsed into :class:`StackConfig` before
any resource is registered. Structural problems (unknown keys, wrong types, out-of-range numbers) come from the
pydantic models; cross-field problems (catalog rules, Windows limits, GPU sharing, operator-managed autoscaling,
cost analysis tier) from :func:`semantic_problems`. Every problem becomes one line naming the stack file, the key
path (``gpuPools[1].minCount``) and what is allowed; all of them are raised together as :class:`StackConfigError`.

GPU size rules come from :mod:`gpu_catalog` (the same functions and messages as the policy pack).
This module does not import any Pulumi provider package, so the preflight can validate a stack file cheaply.
"""

from __future__ import annotations

from gpu_catalog import MIG_PROFILES
from gpu_catalog.problems import Problem, key_path
from rules.aks import DEFAULT_GPU_TAINT, MAX_NODE_POOL_SKEW, parse_taint

from .base import NAMESPACE, STACK_FILE_ENV
from .checks import (
    EXTRA_CHECKS,
    azure_pool_name,
    cluster_problems,
    pool_problems,
    semantic_problems,
)
from .databricks import DatabricksConfig
from .errors import (
    StackConfigError,
    stack_file_name,
)
from .kaito import KaitoConfig
from .loading import (
    config_from_stack_yaml,
    decode_config_value,
    validate_stack_config,
)
from .models import (
    DEFAULT_GPU_OPERATOR_VERSION,
    DEFAULT_KUBERNETES_VERSION,
    ClusterAccessConfig,
    ClusterConfig,
    Environment,
    GpuOperatorConfig,
    GpuPoolConfig,
    KubernetesVersion,
    LinuxOsSku,
    PolicyLevel,
    ResourceGroupConfig,
    StackConfig,
    SystemPoolConfig,
    WindowsOsSku,
)
from .sharing import MpsConfig, SharingConfig, TimeSlicingConfig

__all__ = [
    "DEFAULT_GPU_OPERATOR_VERSION",
    "DEFAULT_GPU_TAINT",
    "DEFAULT_KUBERNETES_VERSION",
    "EXTRA_CHECKS",
    "MAX_NODE_POOL_SKEW",
    "MIG_PROFILES",
    "NAMESPACE",
    "STACK_FILE_ENV",
    "ClusterAccessConfig",
    "ClusterConfig",
    "DatabricksConfig",
    "Environment",
    "GpuOperatorConfig",
    "GpuPoolConfig",
    "KaitoConfig",
    "KubernetesVersion",
    "LinuxOsSku",
    "MpsConfig",
    "PolicyLevel",
    "Problem",
    "ResourceGroupConfig",
    "SharingConfig",
    "StackConfig",
    "StackConfigError",
    "SystemPoolConfig",
    "TimeSlicingConfig",
    "WindowsOsSku",
    "azure_pool_name",
    "cluster_problems",
    "config_from_stack_yaml",
    "decode_config_value",
    "key_path",
    "parse_taint",
    "pool_problems",
    "semantic_problems",
    "stack_file_name",
    "validate_stack_config",
]
