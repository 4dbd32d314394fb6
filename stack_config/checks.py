"""Cross-field checks of a structurally valid stack config: the stack file's facts handed to the rules layer
(``rules/``), plus the checks only a stack file has (names, counts, versions against the control plane)."""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable
from typing import Any

from gpu_catalog import default_catalog
from gpu_catalog.device_plugins import load_device_plugin_facts
from gpu_catalog.lifecycle import load_operator_facts, minor_of, minor_tuple
from gpu_catalog.node_disks import node_disks
from gpu_catalog.problems import Problem, key_path, show
from rules import Finding
from rules.access import deployer_principal_type
from rules.aks import (
    pool_version_skew,
    system_pool_size,
)
from rules.budget import budget_shape
from rules.checklists import aks_cluster as aks_cluster_checklist
from rules.hardening import ApiServer, api_server_access, network_policy, node_hardening, rotation_poll_interval
from rules.karpenter import AgentPoolFacts, nap_agent_pools
from rules.kube_names import chart_namespace_problem
from rules.lifecycle import check_kubernetes_version, check_operator_platform
from rules.limits import ClusterScale, cluster_scale
from rules.monitoring import (
    POOL_NODE_LABEL,
    action_group_id,
    email_address,
    percent,
    workspace_id,
)
from rules.node_os import node_os_problem
from rules.node_stack import (
    GPU_OPERATOR,
    OPERATOR_DEFAULT_TOLERATION,
    SPOT_TAINT,
    GpuNode,
    NodeStack,
    Toleration,
    metrics_exporter_findings,
    metrics_exporters,
    node_stack_findings,
    operator_driver_os_findings,
    platform_node_stack,
    refused,
    taint_tolerations,
    ubuntu_release,
)
from rules.sizes import DEFAULT_FLOOR
from rules.upgrade import upgrade_channel_range, version_pin_fits_channel

from .channel_moves import pinned_validated_minors
from .databricks import cluster_policy_problems, databricks_stack_problems
from .exemptions import exemption_problems
from .kaito import kaito_stack_problems
from .landing_zone import landing_zone_problems
from .models import (
    GpuPoolConfig,
    PolicyLevel,
    StackConfig,
)
from .monitoring import GpuMonitoringConfig
from .nap import GpuNodePoolConfig
from .specs import aks_cluster, azure_pool_name, gpu_pool, nap_pool
from .working_hours import START_STOP_SOURCE

# --------------------------------------------------------------------------------------------------- semantics


def pool_problems(cfg: StackConfig, index: int, pool: GpuPoolConfig) -> list[Problem]:
    """Every problem of one GPU pool: what only a stack file can get wrong (the pool's version against the control
    plane and the upgrade channel; which count keys are written) and its checklist
    (:func:`rules.checklists.aks_gpu_pool`, the one the component Args run too) on the pool's key paths."""
    at = f"gpuPools[{index}]"
    version_key = f"{at}.orchestratorVersion" if pool.orchestratorVersion else "cluster.kubernetesVersion"
    problems: list[Problem] = []
    if pool.orchestratorVersion:
        problems.extend(_pool_version_problems(cfg, f"{at}.orchestratorVersion", pool.orchestratorVersion))
        pin = version_pin_fits_channel(pool.orchestratorVersion, cfg.cluster.autoUpgradeChannel, "orchestratorVersion")
        problems.extend(_at(at, pin))
    # A stack file's Linux pools always get the platform's device plugin (Windows ones AKS's), so no node-stack
    # advisory arises here; GpuNodePool, built from the same spec, warns about any that would.
    found = refused(gpu_pool(cfg, pool).checklist_findings(today=cfg.today))
    if "driver" not in pool.model_fields_set:  # a driver finding is the default's collision with the size
        default = f"driver is not set, and the default driver here is {cfg.pool_driver(pool)}: "
        found = [Finding("vmSize", default + f.message) if f.field == "driver" else f for f in found]
    problems += _at(at, found, orchestratorVersion=version_key)
    if pool.autoscaling and pool.count is not None:
        problems.append(
            Problem(f"{at}.count", "set either count (fixed size) or minCount/maxCount (autoscaling), not both.")
        )
    elif not pool.autoscaling and pool.minCount is not None:
        problems.append(
            Problem(f"{at}.minCount", "minCount needs maxCount (autoscaling); for a fixed-size pool use count.")
        )
    return problems


def _at(at: str, findings: Iterable[Finding], **paths: str) -> list[Problem]:
    """Findings on ``at`` (``gpuPools[1]``) as problems: ``gpuPools[1].<field>``, or ``paths[field]`` when the field
    lives elsewhere in the stack file (a pool's version defaults to ``cluster.kubernetesVersion``)."""
    out: list[Problem] = []
    for f in findings:
        where = paths.get(f.field)
        out.append(Problem(where if where is not None else f"{at}.{f.field}" if f.field else at, f.message))
    return out


def _pool_version_problems(cfg: StackConfig, path: str, version: str) -> list[Problem]:
    cluster = cfg.cluster
    problems: list[Problem] = []
    finding = check_kubernetes_version(version, today=cfg.today, tier=cluster.skuTier, support_plan=cluster.supportPlan)
    if finding is not None:
        problems.append(Problem(path, finding.message))
    problems += [Problem(path, f.message) for f in pool_version_skew(version, cluster.kubernetesVersion)]
    return problems


def _args(literal: Any) -> tuple[str, ...]:
    return typing.get_args(literal)


def cluster_problems(cfg: StackConfig) -> list[Problem]:
    """Cross-field problems of the cluster section. Also called by ``AksGpuCluster`` at construction."""
    problems: list[Problem] = []
    cluster = cfg.cluster

    problems += [Problem("cluster.systemPool.vmSize", f.message) for f in system_pool_size(cluster.systemPool.vmSize)]

    finding = check_kubernetes_version(
        cluster.kubernetesVersion, today=cfg.today, tier=cluster.skuTier, support_plan=cluster.supportPlan
    )
    if finding is not None:
        problems.append(Problem("cluster.kubernetesVersion", finding.message))
    access = cluster.access
    problems += [
        Problem(f"cluster.access.{f.field}", f.message)
        for f in deployer_principal_type(access.grantDeployer, access.deployerPrincipalType)
    ]
    problems += _upgrade_channel_problems(cfg)
    for finding in aks_cluster_checklist(aks_cluster(cfg).facts, today=cfg.today):  # the cluster spec's facts
        key = {"tier": "skuTier"}.get(finding.field, finding.field)
        problems.append(Problem(f"cluster.{key}", finding.message))
    problems += _hardening_problems(cfg)
    if cfg.resourceGroup.existing and cfg.resourceGroup.name is None:
        problems.append(
            Problem("resourceGroup.name", "required with existing: true (an existing resource group must be named).")
        )
    return problems


def _hardening_problems(cfg: StackConfig) -> list[Problem]:
    """``cluster.apiServer``, ``cluster.network``, ``cluster.secretsStore`` and the system pool's node hardening."""
    cluster = cfg.cluster
    api = ApiServer(tuple(cluster.apiServer.authorizedIpRanges), cluster.apiServer.privateCluster)
    problems = _at("cluster.apiServer", api_server_access(api))
    windows = [p.name for p in cfg.gpuPools if p.os == "Windows"]
    net = network_policy(
        cluster.network.dataplane,
        cluster.network.policy,
        windows_pools=windows,
        node_auto_provisioning=cfg.node_auto_provisioning,
    )
    written = cluster.network.model_fields_set  # a default's collision is named on the key the user wrote
    if "dataplane" in written and "policy" not in written:
        net = [Finding("dataplane", f"the default {f.message}") if f.field == "policy" else f for f in net]
    problems += _at("cluster.network", net)
    problems += _at("cluster.secretsStore", rotation_poll_interval(cluster.secretsStore.rotationPollInterval))
    for i, ws in enumerate(cfg.kaito.workspaces):
        if ws.modelAccessFromKeyVault and not cfg.secrets_store:
            problems.append(
                Problem(
                    f"kaito.workspaces[{i}].modelAccessFromKeyVault",
                    "needs the Key Vault Secrets Store CSI add-on: remove cluster.secretsStore.enabled: false",
                )
            )
    sp = cluster.systemPool
    problems += _at(
        "cluster.systemPool",
        node_hardening(
            sp.vmSize, node_disks(sp.vmSize), encryption_at_host=sp.encryptionAtHost, os_disk_type=sp.osDiskType
        ),
    )
    return problems


def _upgrade_channel_problems(cfg: StackConfig) -> list[Problem]:
    """The auto-upgrade channel against the pins: the GPU software's validated range, and patch pins."""
    cluster = cfg.cluster
    validated = pinned_validated_minors(cfg)
    found = upgrade_channel_range(cluster.autoUpgradeChannel, cluster.kubernetesVersion, validated, today=cfg.today)
    found += version_pin_fits_channel(cluster.kubernetesVersion, cluster.autoUpgradeChannel)
    return [Problem(f"cluster.{f.field}", f.message) for f in found]


def scale_facts(cfg: StackConfig) -> ClusterScale:
    """The cluster's node pools (the inline system pool and every GPU pool) and the most nodes each may run."""
    gpu = tuple(p.maxCount if p.maxCount is not None else p.effective_count for p in cfg.gpuPools)
    return ClusterScale(cfg.cluster.skuTier, 1, (cfg.cluster.systemPool.count, *gpu))


def scale_problems(cfg: StackConfig) -> list[Problem]:
    """AKS's scale limits (rules.limits): node pools per cluster and nodes per cluster, on the ``gpuPools`` list."""
    return [Problem("gpuPools", f.message) for f in cluster_scale(scale_facts(cfg))]


def semantic_problems(cfg: StackConfig, *, config_present: Callable[[str], bool]) -> list[Problem]:
    """Cross-field problems of a structurally valid config (catalog rules and the platform's rules).

    ``config_present`` tells whether a Pulumi config key (``<namespace>:<key>``, e.g. a KAITO workspace's
    ``modelAccessTokenConfig``) is set in the stack: the only fact here that is not in the stack file's own section.
    """
    problems = cluster_problems(cfg)
    problems += scale_problems(cfg)
    seen: dict[str, int] = {}
    for i, pool in enumerate(cfg.gpuPools):
        if pool.name in seen:
            problems.append(
                Problem(f"gpuPools[{i}].name", f"{pool.name!r} is already used by gpuPools[{seen[pool.name]}].")
            )
        seen.setdefault(pool.name, i)
        problems.extend(pool_problems(cfg, i, pool))

    owners: dict[str, int] = {}
    for i, pool in enumerate(cfg.gpuPools):
        azure_name = azure_pool_name(pool, cfg.pool_driver(pool), cfg.pool_taints(pool), cfg.pool_hardening(pool))
        if azure_name in owners and cfg.gpuPools[owners[azure_name]].name != pool.name:
            problems.append(
                Problem(
                    f"gpuPools[{i}].name",
                    f"the derived Azure pool name {azure_name!r} collides with gpuPools[{owners[azure_name]}] "
                    "(same name prefix and hash suffix); use a name that differs in its first characters.",
                )
            )
        owners.setdefault(azure_name, i)

    problems.extend(_operator_platform_problems(cfg))

    for name, setting in cfg.policy.items():
        if isinstance(setting, dict):
            level = setting.get("enforcementLevel")
            if level is not None and level not in _args(PolicyLevel):
                problems.append(
                    Problem(
                        f"policy.{name}.enforcementLevel",
                        f"{show(level)} is not an enforcement level. Allowed: {', '.join(_args(PolicyLevel))}.",
                    )
                )
    if cfg.gpu_floor != DEFAULT_FLOOR and cfg.gpu_floor not in default_catalog():
        problems.append(
            Problem(
                "policy.gpu-size-minimum.minimumSize",
                f"{cfg.gpu_floor!r} is not a catalog size; closest: "
                f"{', '.join(default_catalog().suggest(cfg.gpu_floor))}.",
            )
        )
    problems.extend(
        Problem(key_path(["budget", f.field]) if f.field else "budget", f.message) for f in budget_shape(cfg.budget)
    )
    for check in EXTRA_CHECKS:
        problems.extend(check(cfg))
    problems.extend(_kaito_problems(cfg, config_present))
    return problems


def _operator_platform_problems(cfg: StackConfig) -> list[Problem]:
    """The pinned GPU operator release is validated (NVIDIA's matrix) for every managed pool's Kubernetes and OS; a
    pinned release the facts do not know is refused even when no pool uses it yet (or the operator is off)."""
    facts = load_operator_facts()
    version = cfg.gpuOperator.version
    if facts.get(version) is None and (cfg.gpuOperator.enabled or "version" in cfg.gpuOperator.model_fields_set):
        problem = check_operator_platform(version, cfg.cluster.kubernetesVersion, "Ubuntu", facts)
        return [Problem("gpuOperator.version", problem)] if problem else []
    if not cfg.gpuOperator.enabled:
        return []
    problems: list[Problem] = []
    for i, pool in enumerate(cfg.gpuPools):
        for finding in gpu_pool(cfg, pool).operator_platform_findings():
            key = f"gpuPools[{i}].osSku" if finding.field == "osSku" else "gpuOperator.version"
            text = finding.message if finding.field == "osSku" else f"gpuPools[{i}] ({pool.name}): {finding.message}"
            if key == "gpuOperator.version" and "version" not in cfg.gpuOperator.model_fields_set:
                # The user did not write the version: name the key they wrote and the default it collided with.
                key = f"gpuPools[{i}].orchestratorVersion" if pool.orchestratorVersion else "cluster.kubernetesVersion"
                text = (
                    f"{show(cfg.pool_kubernetes_version(pool))} collides with the default gpuOperator.version "
                    f"{version} (not written in the stack file): {text}"
                )
            if all(p.message != text for p in problems):
                problems.append(Problem(key, text))
    return problems


def _device_plugin_problems(cfg: StackConfig) -> list[Problem]:
    """``devicePlugin`` applies only without the GPU operator, at the chart version the facts were read at."""
    problems: list[Problem] = []
    chart = load_device_plugin_facts().chart
    if "devicePlugin" in cfg.model_fields_set and cfg.gpuOperator.enabled:
        problems.append(
            Problem(
                "devicePlugin",
                "set, but gpuOperator.enabled is true: the GPU operator brings its own device plugin, and the "
                "nvidia-device-plugin chart is deployed only when the operator is off (two plugins on one node "
                "otherwise). Remove devicePlugin, or set gpuOperator.enabled: false.",
            )
        )
    for key, chart_name, namespace in (
        ("devicePlugin.namespace", chart.name, cfg.devicePlugin.namespace),
        ("gpuOperator.namespace", GPU_OPERATOR, cfg.gpuOperator.namespace),
    ):
        refused = chart_namespace_problem(chart_name, namespace)
        if refused is not None:
            problems.append(Problem(key, refused))
    if cfg.devicePlugin.version != chart.version:
        problems.append(
            Problem(
                "devicePlugin.version",
                f"{show(cfg.devicePlugin.version)} is not a chart version the facts were read at "
                f"(gpu_catalog/facts/device_plugins.json). Allowed: {chart.version}.",
            )
        )
    return problems


def _operator_os_problems(cfg: StackConfig) -> list[Problem]:
    """One OS version on the GPU nodes whose driver the GPU operator installs (:func:`operator_driver_os_findings`)."""
    if not cfg.gpuOperator.enabled:
        return []
    minor = minor_of(cfg.cluster.kubernetesVersion)
    k8s = minor_tuple(minor) if minor is not None else (0, 0)
    pools: dict[str, str] = {}
    for i, pool in enumerate(cfg.gpuPools):
        if cfg.operator_manages(pool) and cfg.pool_driver(pool) == "operator":
            pools[f"gpuPools[{i}] ({pool.name})"] = ubuntu_release(pool.effective_os_sku, k8s)
    for i, nap in enumerate(cfg.gpuNodePools):
        if cfg.nap_driver(nap) == "operator":
            pools[f"gpuNodePools[{i}] ({nap.name})"] = ubuntu_release(nap.imageFamily or "Ubuntu", k8s)
    return [Problem("gpuOperator", f.message) for f in operator_driver_os_findings(pools)]


def _node_os_problems(cfg: StackConfig) -> list[Problem]:
    """Every pool's OS version against its Kubernetes minor and today (``gpu_catalog/facts/aks_node_os.json``), on the
    key the stack file wrote (``osSku``, else ``os`` for a Windows pool's default SKU). A ``gpuNodePools`` entry's
    ``imageFamily`` is its checklist's (:func:`rules.checklists.nap_gpu_pool`, shared with ``NapGpuPoolArgs``), at
    ``gpuNodePools[i].imageFamily``. The GPU pools' conditions are their spec's
    (:meth:`rules.specs.AksGpuPool.node_os_findings`)."""
    today = cfg.today

    def minor(version: str) -> tuple[int, int] | None:
        m = minor_of(version)
        return minor_tuple(m) if m is not None else None

    problems: list[Problem] = []
    cluster_minor = minor(cfg.cluster.kubernetesVersion)
    if cluster_minor is not None:
        sku = cfg.cluster.systemPool.osSku
        problem = node_os_problem(sku, cluster_minor, today, os_name=ubuntu_release(sku, cluster_minor))
        if problem is not None:
            problems.append(Problem("cluster.systemPool.osSku", problem))
    for i, pool in enumerate(cfg.gpuPools):
        for finding in gpu_pool(cfg, pool).node_os_findings(today=today):
            key = "osSku" if "osSku" in pool.model_fields_set or "os" not in pool.model_fields_set else "os"
            problems.append(Problem(f"gpuPools[{i}].{key}", finding.message))
    return problems


def _kaito_node_problems(cfg: StackConfig) -> list[Problem]:
    """A KAITO workspace's nodes get the add-on's device plugin; the GPU operator must stay off them (it lands where
    it tolerates the taints, and it tolerates every managed pool's)."""
    if not cfg.kaito_addon or not cfg.kaito.workspaces:
        return []
    facts = load_device_plugin_facts()
    operator = (
        tuple(t for p in cfg.gpuPools if cfg.operator_manages(p) for t in taint_tolerations(cfg.pool_taints(p)))
        + tuple(t for p in cfg.gpuNodePools for t in taint_tolerations(cfg.pool_taints(p)))
        if cfg.gpuOperator.enabled
        else ()
    )
    problems: list[Problem] = []
    for i, ws in enumerate(cfg.kaito.workspaces):
        size = default_catalog().lookup(ws.instanceType)
        if size is None:
            continue
        node = GpuNode(
            f"kaito.workspaces[{i}] ({ws.name})", "Linux", max(int(size.gpu_count), 1), facts.kaito_node_taints
        )
        stack = platform_node_stack(node, manager=None, kaito_addon=True, operator_tolerations=operator)
        # the workspace's nodes always get the add-on's plugin (it tolerates their taints): only refusals matter
        problems += [Problem(f"kaito.workspaces[{i}]", f.message) for f in refused(node_stack_findings(stack))]
    return problems


def _kaito_problems(cfg: StackConfig, config_present: Callable[[str], bool]) -> list[Problem]:
    found = kaito_stack_problems(
        cfg.kaito,
        cluster_addon=cfg.cluster.kaitoAddon,
        floor=cfg.gpu_floor,
        kubernetes_version=cfg.cluster.kubernetesVersion,
        config_present=config_present,
        today=cfg.today,
    )
    return [Problem(path, message) for path, message in found]


def _databricks_problems(cfg: StackConfig) -> list[Problem]:
    return [
        Problem(path, message)
        for path, message in databricks_stack_problems(cfg.databricks, floor=cfg.gpu_floor, today=cfg.today)
    ]


def _cluster_policy_problems(cfg: StackConfig) -> list[Problem]:
    inherited = {*cfg.cluster.tags, "environment", "managed-by"}  # composition.wiring.platform_tags
    found = cluster_policy_problems(
        cfg.databricks, inherited_tags=inherited, floor=cfg.usable_gpu_floor, today=cfg.today
    )
    return [Problem(path, message) for path, message in found]


# --------------------------------------------------------------------------------------------------- gpuNodePools


def nap_pool_problems(cfg: StackConfig, index: int, pool: GpuNodePoolConfig) -> list[Problem]:
    """Every problem of one ``gpuNodePools`` entry: its spec's checklist (:meth:`rules.specs.NapGpuNodePool.findings`,
    the one ``NapGpuPoolArgs`` runs too) and what only a stack file can get wrong (``limits.nodes``, half a budget)."""
    at = f"gpuNodePools[{index}]"
    problems = _at(at, refused(nap_pool(cfg, pool).findings(today=cfg.today)))
    if pool.limits.nodes is not None:
        problems.append(
            Problem(
                f"{at}.limits.nodes",
                "AKS documents limits.nodes for static NodePools (replicas) only "
                "(articles/aks/node-auto-provisioning-node-pools.md); bound this pool with limits.gpus.",
            )
        )
    for j, budget in enumerate(pool.disruption.budgets):
        if (budget.schedule is None) != (budget.duration is None):
            problems.append(
                Problem(f"{at}.disruption.budgets[{j}]", "schedule and duration are set together or not at all.")
            )
    return problems


def nap_problems(cfg: StackConfig) -> list[Problem]:
    """Every problem of ``gpuNodePools`` and of what node auto-provisioning refuses elsewhere in the stack."""
    if not cfg.gpuNodePools:
        return []
    problems: list[Problem] = []
    owners = {p.name: f"gpuPools[{i}]" for i, p in enumerate(cfg.gpuPools)}
    for i, pool in enumerate(cfg.gpuNodePools):
        if pool.name in owners:
            problems.append(
                Problem(
                    f"gpuNodePools[{i}].name",
                    f"{pool.name!r} is already used by {owners[pool.name]}: pool names label the nodes workloads "
                    "select, so they are unique across gpuPools and gpuNodePools.",
                )
            )
        owners.setdefault(pool.name, f"gpuNodePools[{i}]")
        problems += nap_pool_problems(cfg, i, pool)
    agent_pools = [AgentPoolFacts(p.name, p.autoscaling, p.os) for p in cfg.gpuPools]
    for f in nap_agent_pools(agent_pools):
        index, _, field = f.field.partition(".")
        problems.append(Problem(f"gpuPools[{index}].{field}", f.message))
    return problems


# --------------------------------------------------------------------------------------------------- monitoring


def exporter_stacks(cfg: StackConfig) -> list[NodeStack]:
    """The DCGM exporters on each Linux GPU pool and NodePool of the stack, as the platform deploys them: the GPU
    operator's exporter when the operator runs with ``dcgmExporter``, else the dcgm-exporter chart for every pool."""
    pools = [(f"gpuPools[{i}] ({p.name})", p.name, p, p.spot) for i, p in enumerate(cfg.gpuPools) if p.os == "Linux"]
    pools += [(f"gpuNodePools[{i}] ({p.name})", p.name, p, False) for i, p in enumerate(cfg.gpuNodePools)]
    all_taints = [t for _, _, p, spot in pools for t in (*cfg.pool_taints(p), *((SPOT_TAINT,) if spot else ()))]
    operator: list[Toleration] | None = None
    chart: tuple[list[Toleration], dict[str, tuple[str, ...]]] | None = None
    if cfg.gpuOperator.enabled and cfg.gpuOperator.dcgmExporter:
        operator = [OPERATOR_DEFAULT_TOLERATION, *taint_tolerations(all_taints)]
    elif pools:
        chart = (list(taint_tolerations(all_taints)), {POOL_NODE_LABEL: tuple(name for _, name, _, _ in pools)})
    out: list[NodeStack] = []
    for where, name, pool, spot in pools:
        node = GpuNode(
            where=where,
            os="Linux",
            gpus=1,
            taints=(*cfg.pool_taints(pool), *((SPOT_TAINT,) if spot else ())),
            labels={POOL_NODE_LABEL: name},
        )
        out.append(metrics_exporters(node, operator=operator, chart=chart))
    return out


def monitoring_problems(cfg: StackConfig) -> list[Problem]:
    """Every problem of ``monitoring`` at once (nothing when it is off)."""
    m: GpuMonitoringConfig = cfg.monitoring
    if not m.enabled:
        return []
    found: list[Problem] = []
    found += _at("monitoring.alerts.idleUtilisationPercent", percent("", m.alerts.idleUtilisationPercent))
    found += _at("monitoring.alerts.memoryPercent", percent("", m.alerts.memoryPercent))
    group = m.actionGroup
    if (group.email is None) == (group.existingId is None):
        both = group.email is not None
        found.append(
            Problem(
                "monitoring.actionGroup" if both or "actionGroup" in m.model_fields_set else "monitoring",
                (
                    "GPU alerts need exactly one receiver, not both"
                    if both
                    else "actionGroup is required with enabled: true: GPU alerts need exactly one receiver"
                )
                + ". Allowed: email (the platform creates the action group) or existingId (an action group's "
                "resource id).",
            )
        )
    if group.email is not None:
        found += _at("monitoring.actionGroup.email", email_address("", group.email))
    if group.existingId is not None:
        found += _at("monitoring.actionGroup.existingId", action_group_id("", group.existingId))
    if m.workspaceId is not None:
        found += _at("monitoring.workspaceId", workspace_id("", m.workspaceId))
        if m.workspaceLocation is not None:
            found.append(
                Problem(
                    "monitoring.workspaceLocation",
                    "set together with workspaceId: the location applies only to a workspace the platform creates. "
                    "Remove one of them.",
                )
            )
    for stack in exporter_stacks(cfg):
        found += _at("monitoring", metrics_exporter_findings(stack))
    return found


# --------------------------------------------------------------------------------------------------- workingHours


def working_hours_problems(cfg: StackConfig) -> list[Problem]:
    """Who may declare working hours (module docstring), as problems on ``cluster.workingHours``."""
    hours = cfg.cluster.workingHours
    if hours is None:
        return []
    path = "cluster.workingHours"
    found: list[Problem] = []
    if cfg.protect:
        found.append(
            Problem(
                path,
                f"a protected stack (environment {cfg.environment}, cluster.protect true) is not stopped outside "
                "working hours: AKS does not recommend stopping mission-critical workloads, a stopped cluster may "
                f"fail to start where capacity is short ({START_STOP_SOURCE}). Allowed on dev/test stacks "
                "(cluster.protect false); remove the key here.",
            )
        )
    if cfg.node_auto_provisioning:
        found.append(
            Problem(
                path,
                "AKS cannot stop a cluster with node auto-provisioning (gpuNodePools), so there is nothing to stop "
                f"outside working hours ({START_STOP_SOURCE}). Allowed: gpuNodePools empty, or remove the key.",
            )
        )
    return found


EXTRA_CHECKS: list[Callable[[StackConfig], list[Problem]]] = [
    _device_plugin_problems,
    _operator_os_problems,
    _node_os_problems,
    _kaito_node_problems,
    _databricks_problems,
    _cluster_policy_problems,
    nap_problems,
    exemption_problems,
    working_hours_problems,
    monitoring_problems,
    landing_zone_problems,
]
"""Further cross-field checks registered by other config sections (e.g. KAITO, Databricks); the KAITO workspaces'
rules run after them (:func:`_kaito_problems`: they also need the stack's Pulumi config)."""
