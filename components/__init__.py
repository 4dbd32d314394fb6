"""Pulumi components of the platform and their Args (the stack file's models are in ``stack_config/``).

One component a module: the AKS GPU cluster (``aks_cluster.py``, its Args in ``aks_cluster_args.py``) with its
landing-zone side, identities, role assignments and maintenance windows (``landing_zone.py``), its control-plane logs
(``control_plane_logs.py``) and Container Insights (``container_insights.py``); its GPU node pools
(``gpu_node_pool.py``) and NAP GPU NodePools (``nap_pool.py``), with what the two pool kinds share
(``pool_scheduling.py``); the NVIDIA GPU operator (``gpu_operator.py``) and device plugin (``device_plugin.py``) over
one Helm helper (``helm.py``); KAITO workspaces (``kaito.py``); Databricks GPU clusters and their cluster policy
(``databricks.py``); the Azure Policy of GPU sizes (``azure_policy.py``); GPU monitoring (``monitoring.py``); an Azure
Kubernetes Fleet Manager fleet over several clusters (``fleet.py``); the output contract (``contract.py``) and the
refusal every Args raises (``validation.py``).
"""
