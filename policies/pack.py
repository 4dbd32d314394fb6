"""The pack's name and its policies, in one list (``__main__.py`` serves it, ``rules_md`` documents it)."""

from __future__ import annotations

from . import (
    aks_control_plane_logs,
    aks_cost_analysis_requires_paid_tier,
    aks_image_cleaner_enabled,
    aks_kaito_addon_version,
    aks_kaito_requires_oidc,
    aks_kubernetes_version_expiring,
    aks_kubernetes_version_supported,
    aks_node_os_supported,
    aks_node_ssh_disabled,
    aks_run_command_disabled,
    databricks_gpu_dedicated_access,
    databricks_gpu_no_photon,
    databricks_gpu_node_types,
    databricks_gpu_runtime,
    databricks_gpu_task_amount,
    gpu_driver_no_legacy_skip_tag,
    gpu_driver_skipped_needs_operator,
    gpu_mig_profile_capable_size,
    gpu_node_device_plugin,
    gpu_node_device_plugin_missing,
    gpu_nodepool_constrains_gpus,
    gpu_nodepool_limits,
    gpu_operator_autoscale_min_count,
    gpu_operator_driver_mode,
    gpu_operator_platform_supported,
    gpu_pool_idle_minimum,
    gpu_pool_tainted,
    gpu_size_aks_supported,
    gpu_size_known,
    gpu_size_minimum,
    gpu_size_no_nvv4,
    gpu_size_not_retired,
    gpu_windows_pool,
    kaito_workspace_instance_type,
    kaito_workspace_model_access,
)
from ._meta import DocumentedPolicy

PACK_NAME = "azure-gpu-guardrails"

ALL_POLICIES: list[DocumentedPolicy] = [
    # GPU sizes, wherever they occur
    gpu_size_no_nvv4.POLICY,
    gpu_size_minimum.POLICY,
    gpu_size_not_retired.POLICY,
    gpu_size_known.POLICY,
    gpu_size_aks_supported.POLICY,
    # AKS node pools and clusters
    gpu_mig_profile_capable_size.POLICY,
    gpu_windows_pool.POLICY,
    gpu_driver_no_legacy_skip_tag.POLICY,
    gpu_pool_tainted.POLICY,
    # Karpenter NodePools (node auto-provisioning); an explicitly GPU NodePool's sizes are checked by the gpu-size-*
    # policies above, one that does not constrain GPUs gets one finding from gpu-nodepool-constrains-gpus
    gpu_nodepool_limits.POLICY,
    gpu_nodepool_constrains_gpus.POLICY,
    aks_kaito_requires_oidc.POLICY,
    aks_cost_analysis_requires_paid_tier.POLICY,
    aks_kubernetes_version_supported.POLICY,
    aks_kaito_addon_version.POLICY,
    aks_kubernetes_version_expiring.POLICY,
    aks_node_os_supported.POLICY,
    # Microsoft's built-in Azure Policy definitions for AKS that fit a GPU platform (advisory; docs/security-checks.md)
    aks_run_command_disabled.POLICY,
    aks_node_ssh_disabled.POLICY,
    aks_image_cleaner_enabled.POLICY,
    # Databricks GPU clusters
    databricks_gpu_node_types.POLICY,
    databricks_gpu_runtime.POLICY,
    databricks_gpu_no_photon.POLICY,
    databricks_gpu_dedicated_access.POLICY,
    databricks_gpu_task_amount.POLICY,
    # KAITO
    kaito_workspace_instance_type.POLICY,
    kaito_workspace_model_access.POLICY,
    # Stack: GPU operator and drivers
    gpu_operator_driver_mode.POLICY,
    gpu_driver_skipped_needs_operator.POLICY,
    gpu_operator_autoscale_min_count.POLICY,
    gpu_operator_platform_supported.POLICY,
    # Stack: control-plane logs (Microsoft's built-in definition for AKS resource logs)
    aks_control_plane_logs.POLICY,
    # Stack: idle cost
    gpu_pool_idle_minimum.POLICY,
    # Stack: what runs on each GPU node
    gpu_node_device_plugin.POLICY,
    gpu_node_device_plugin_missing.POLICY,
]
