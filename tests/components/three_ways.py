"""What the three-ways tests share (``tests/components/test_three_ways*.py``, ``test_landing_zone_three_ways.py``):
a stack file's GPU pool as each door takes it (:class:`ShippedPool`), a stack's AKS cluster as the Python API's Args
(:func:`python_cluster`) and as the component package's inputs (:func:`package_cluster`), and the wire inputs to
compare (:func:`wire`).

Only the keys the stack file writes are translated; every default comes from the spec (:mod:`rules.specs`). What the
cluster gives its pools (the GPU operator or device plugin it runs, the KAITO add-on, its Kubernetes version, tags, the
Azure name) is passed the way each door takes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from component_package.args import pool_spec
from components.gpu_node_pool import GpuPoolSpec
from components.pool_scheduling import GpuSharing
from composition.wiring import platform_tags
from rules.network import UpgradeSettings
from rules.specs.keys import snake
from stack_config import GpuPoolConfig, StackConfig, validate_stack_config
from stack_config.landing_zone import PoolUpgradeConfig
from stack_config.specs import gpu_pool, pool_device_plugin, pool_gpu_operator
from tests.components.harness import NAMESPACE

WIRED_BY_THE_CLUSTER = ("resourceGroupName", "resourceName")
"""Inputs the cluster's outputs fill in (the same names are passed; under mocks the stack's are outputs)."""

TRANSLATED_BY_EACH_DOOR = ("sharing", "driver", "tags", "upgrade")
"""Pool keys of a stack file each door takes in a shape of its own (the tags come with the cluster's)."""


def wire(record_inputs: Mapping[str, Any]) -> dict[str, Any]:
    """An AgentPool's inputs without those the cluster's outputs fill in."""
    return {k: v for k, v in record_inputs.items() if k not in WIRED_BY_THE_CLUSTER}


def stack_cfg(config: Mapping[str, Any], stack_file: str) -> StackConfig:
    """A stack file's ``config:`` section (keys with the project's namespace) as the program validates it."""
    own = {k.removeprefix(f"{NAMESPACE}:"): v for k, v in config.items() if k.startswith(f"{NAMESPACE}:")}
    return validate_stack_config(own, stack_file=stack_file)


def _upgrade_kwargs(upgrade: PoolUpgradeConfig) -> dict[str, Any]:
    """A written ``upgrade`` section as the spec's (and the package's) field names, the keys it sets only."""
    names = {
        "maxSurge": "max_surge",
        "maxUnavailable": "max_unavailable",
        "drainTimeoutInMinutes": "drain_timeout_minutes",
        "nodeSoakDurationInMinutes": "node_soak_minutes",
    }
    return {field: getattr(upgrade, key) for key, field in names.items() if key in upgrade.model_fields_set}


@dataclass(frozen=True)
class ShippedPool:
    """One ``gpuPools`` entry of a stack file (``stack``: a label for ids and names) and its stack's config."""

    stack: str
    cfg: StackConfig
    pool: GpuPoolConfig

    @property
    def id(self) -> str:
        return f"{self.stack}-{self.pool.name}"

    def written(self) -> dict[str, Any]:
        """The keys the stack file writes, as the spec's field names (``vmSize`` → ``vm_size``); the
        :data:`TRANSLATED_BY_EACH_DOOR` keys are translated by each door."""
        return {snake(k): getattr(self.pool, k) for k in self.pool.model_fields_set if k not in TRANSLATED_BY_EACH_DOOR}

    def cluster_given(self) -> dict[str, Any]:
        """What the cluster gives the pool, from the stack: the same for every door."""
        spec = gpu_pool(self.cfg, self.pool)
        return {
            "azure_name": spec.azure_name,
            "orchestrator_version": spec.orchestrator_version,
            "tags": dict(spec.tags),
            "ssh_access": spec.ssh_access,  # the stack's cluster.sshAccess, for every pool
        }

    def python(self, **extra: Any) -> GpuPoolSpec:
        """The pool as a Python caller writes it (``extra``: spec fields the stack derives from other sections)."""
        kwargs = self.written() | self.cluster_given()
        sharing = self.pool.sharing
        if sharing is not None and sharing.mode != "none":
            kwargs["sharing"] = GpuSharing(sharing.mode, sharing.replicas, sharing.rename_by_default)
        if self.pool.driver is not None:
            kwargs["driver_skipped"] = self.pool.driver == "operator"
        if self.pool.upgrade is not None:
            kwargs["upgrade"] = UpgradeSettings(**_upgrade_kwargs(self.pool.upgrade))
        for key in ("zones", "taints"):
            if key in kwargs:
                kwargs[key] = tuple(kwargs[key])
        return GpuPoolSpec(
            **kwargs,
            **extra,
            gpu_operator=pool_gpu_operator(self.cfg),
            device_plugin=pool_device_plugin(self.cfg),
            kaito_addon=self.cfg.kaito_addon,
            gpu_floor=self.cfg.gpu_floor,
        )

    def package(self, **extra: Any) -> GpuPoolSpec:
        """The component's spec the package builds from :meth:`package_inputs` (``extra``: more inputs)."""
        return pool_spec(self.package_inputs() | extra, kaito_addon=self.cfg.kaito_addon)  # type: ignore[arg-type]

    def package_inputs(self) -> dict[str, Any]:
        """The schema's ``GpuPool`` object for the pool."""
        pool: dict[str, Any] = self.written() | self.cluster_given()
        sharing = self.pool.sharing
        if sharing is not None and sharing.mode != "none":
            pool["sharing"] = {"mode": sharing.mode, "replicas": sharing.replicas}
        if self.pool.driver is not None:
            pool["driver"] = self.pool.driver
        if self.pool.upgrade is not None:
            pool["upgrade"] = _upgrade_kwargs(self.pool.upgrade)
        operator = pool_gpu_operator(self.cfg)
        if operator is not None:
            pool["gpu_operator"] = {
                "installs_driver": operator.installs_driver,
                "version": operator.version,
                "mig_strategy": operator.mig_strategy,
            }
        chart = pool_device_plugin(self.cfg)
        if chart is not None:
            pool["device_plugin"] = {"version": chart.version, "mig_strategy": chart.mig_strategy}
        pool["gpu_floor"] = self.cfg.gpu_floor
        return pool


# ------------------------------------------------------------------------------------------- AKS clusters


def cluster_written(cfg: StackConfig) -> dict[str, Any]:
    """The stack's ``cluster`` keys as the Args' fields, and what the stack as a whole decides for the cluster (names,
    region, tags, protection, add-ons the other sections turn on)."""
    c = cfg.cluster
    written = c.model_fields_set
    direct = {
        "kubernetesVersion": "kubernetes_version",
        "skuTier": "sku_tier",
        "supportPlan": "support_plan",
        "autoUpgradeChannel": "auto_upgrade_channel",
        "nodeOsUpgradeChannel": "node_os_upgrade_channel",
        "oidcIssuer": "oidc_issuer",
        "workloadIdentity": "workload_identity",
        "costAnalysis": "cost_analysis",
    }
    out: dict[str, Any] = {field: getattr(c, key) for key, field in direct.items() if key in written}
    return out | {
        "cluster_name": cfg.cluster_name,
        "resource_group_name": cfg.resource_group_name,
        "location": cfg.location,
        "create_resource_group": not cfg.resourceGroup.existing,
        "kubernetes_version": c.kubernetesVersion,
        "tags": platform_tags(cfg),
        "protect": cfg.protect,
        "kaito_addon": cfg.kaito_addon,
        "secrets_store": cfg.secrets_store,
        "node_auto_provisioning": cfg.node_auto_provisioning,
    }


def section(model: Any, *, leave_out: Sequence[str] = ()) -> dict[str, Any]:
    """A written section's keys in snake case (lists as given), but ``leave_out``."""
    return {snake(k): getattr(model, k) for k in model.model_fields_set if k not in leave_out}


LANDING_ZONE_NETWORK_KEYS = ("mode", "podCidr", "serviceCidr", "dnsServiceIP", "outboundType", "subnets")
"""``cluster.network`` keys that are landing-zone settings (the package's ``network`` object; the Python API's
``landing_zone``), not ``network_*`` fields."""


def _network(cfg: StackConfig) -> dict[str, Any]:
    return {f"network_{k}": v for k, v in section(cfg.cluster.network, leave_out=LANDING_ZONE_NETWORK_KEYS).items()}


def _builtin_hardening(cfg: StackConfig) -> dict[str, Any]:
    """Microsoft's built-in AKS definitions the stack file satisfies (Run Command, Image Cleaner, control-plane logs),
    as the Args' fields (both doors name them alike)."""
    c = cfg.cluster
    out: dict[str, Any] = {}
    if "disableRunCommand" in c.apiServer.model_fields_set:
        out["disable_run_command"] = c.apiServer.disableRunCommand
    if "enabled" in c.imageCleaner.model_fields_set:
        out["image_cleaner"] = c.imageCleaner.enabled
    if "intervalHours" in c.imageCleaner.model_fields_set:
        out["image_cleaner_interval_hours"] = c.imageCleaner.intervalHours
    if "controlPlaneLogs" in c.monitoring.model_fields_set:
        out["control_plane_logs"] = c.monitoring.controlPlaneLogs
    if "containerInsights" in c.monitoring.model_fields_set:
        out["container_insights"] = c.monitoring.containerInsights
    if c.monitoring.logAnalyticsWorkspaceId is not None:
        out["log_analytics_workspace_id"] = c.monitoring.logAnalyticsWorkspaceId
    return out


def python_cluster(cfg: StackConfig, pools: Sequence[GpuPoolSpec], **extra: Any) -> Any:
    """The stack's cluster as :class:`components.aks_cluster.AksGpuClusterArgs` a Python caller writes, with these
    pools (``extra``: more fields, e.g. ``landing_zone``)."""
    from components.aks_cluster import AksGpuClusterArgs, ClusterAccess, SystemPoolSpec
    from components.pool_scheduling import POOL_LABEL
    from rules.hardening import ApiServer

    kwargs = cluster_written(cfg)
    c = cfg.cluster
    system = section(c.systemPool, leave_out=("upgrade",))
    if "zones" in system:
        system["zones"] = tuple(system["zones"])
    if c.systemPool.upgrade is not None:
        system["upgrade"] = UpgradeSettings(**_upgrade_kwargs(c.systemPool.upgrade))
    if c.sshAccess is not None:
        system["ssh_access"] = c.sshAccess
    kwargs["system_pool"] = SystemPoolSpec(**system)
    kwargs["access"] = ClusterAccess(**section(c.access))
    kwargs["api_server"] = ApiServer(tuple(c.apiServer.authorizedIpRanges), c.apiServer.privateCluster)
    kwargs |= _builtin_hardening(cfg) | _network(cfg)
    kwargs["prometheus_node_labels"] = (POOL_LABEL,) if cfg.monitoring.enabled else None
    kwargs["gpu_pools"] = tuple(pools)
    return AksGpuClusterArgs(**kwargs, **extra)


def package_cluster(cfg: StackConfig, pools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The stack's cluster as the package's ``AksGpuCluster`` inputs, with these ``GpuPool`` objects (the landing-zone
    sections are the caller's to add)."""
    args = cluster_written(cfg)
    del args["secrets_store"]  # the package's cluster does not derive it from the workspaces: written below
    c = cfg.cluster
    args["system_pool"] = section(c.systemPool, leave_out=("upgrade",))
    if c.systemPool.upgrade is not None:
        args["system_pool"]["upgrade"] = _upgrade_kwargs(c.systemPool.upgrade)
    args["access"] = section(c.access)
    args["api_server"] = section(c.apiServer)
    args |= _builtin_hardening(cfg) | _network(cfg)
    args.pop("disable_run_command", None)  # the package takes it in apiServer (above)
    if c.sshAccess is not None:
        args["ssh_access"] = c.sshAccess
    if cfg.secrets_store:
        args["secrets_store"] = True
    if cfg.monitoring.enabled:
        args["prometheus_node_labels"] = ["azure-gpu-platform/pool"]
    args["gpu_pools"] = list(pools)
    return args
