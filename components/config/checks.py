"""Cross-field checks of a structurally valid stack config: the stack file's facts handed to the rules layer
(``rules/``), plus the checks only a stack file has (names, counts, versions against the control plane)."""

from __future__ import annotations

import hashlib
import json
import typing
from collections.abc import Callable, Iterable
from typing import Any

from gpu_catalog import clock, default_catalog
from gpu_catalog.device_plugins import load_device_plugin_facts
from gpu_catalog.lifecycle import load_operator_facts, minor_of, minor_tuple
from gpu_catalog.node_disks import node_disks
from gpu_catalog.problems import Problem, key_path, show
from rules import Finding
from rules import aks as rules_aks
from rules.access import deployer_principal_type
from rules.aks import (
    autoscale_bounds,
    cost_analysis_tier,
    driver_install,
    gpu_sharing,
    kaito_requires_oidc,
    lts_needs_premium,
    mig_pool,
    operator_autoscale_min_count,
    pool_name,
    pool_os_sku,
    pool_taints,
    pool_version_skew,
    system_pool_size,
    windows_gpu_pool,
    workload_identity_needs_oidc,
)
from rules.budget import budget_shape
from rules.hardening import ApiServer, api_server_access, network_policy, node_hardening, rotation_poll_interval
from rules.lifecycle import check_kubernetes_version, check_operator_platform
from rules.limits import ClusterScale, cluster_scale
from rules.node_os import node_os_problem
from rules.node_stack import (
    KAITO_ADDON,
    GpuNode,
    node_stack_findings,
    operator_driver_os_findings,
    platform_node_stack,
    pool_node_stack,
    taint_tolerations,
    ubuntu_release,
)
from rules.sizes import DEFAULT_FLOOR, check_amd_features, check_gpu_size, check_is_gpu_size, check_mig_profile
from rules.upgrade import upgrade_channel_range, validated_minors, version_pin_fits_channel

from ..databricks_config import cluster_policy_problems, databricks_stack_problems
from ..kaito_config import kaito_stack_problems
from ..kube_names import label_value_problem, node_label_key_problem
from ..monitoring_config import monitoring_problems
from .exemptions import exemption_problems, pool_exempt_rules
from .models import (
    GpuPoolConfig,
    PolicyLevel,
    StackConfig,
)
from .nap import nap_driver, nap_problems  # after .models: models imports nap last

# --------------------------------------------------------------------------------------------------- semantics


def azure_pool_name(pool: GpuPoolConfig, driver: str, taints: list[str], hardening: Iterable[str] = ()) -> str:
    """The Azure agent-pool name: prefix of the logical name + a stable hash of the create-time fields (``taints``:
    the pool's resolved taints, :meth:`StackConfig.pool_taints`; ``hardening``: ``encryptionAtHost`` and
    ``ephemeralOsDisk`` when on, create-time settings that leave the name of a pool without them unchanged)."""
    immutable: dict[str, Any] = {
        "name": pool.name,
        "vmSize": pool.vmSize.lower(),
        "os": pool.os,
        "migProfile": pool.migProfile,
        "driver": driver,
        "taints": sorted(taints),
        "zones": sorted(pool.zones),
        "spot": pool.spot,
        "maxPods": pool.maxPods,
    }
    if hardening:  # create-time in AKS: turning either on replaces the pool (create-before-delete under a new name)
        immutable["hardening"] = sorted(hardening)
    digest = hashlib.sha256(json.dumps(immutable, sort_keys=True).encode()).hexdigest()
    if pool.os == "Windows":
        return pool.name[:3] + digest[:3]
    return pool.name[:8] + digest[:4]


def pool_problems(cfg: StackConfig, index: int, pool: GpuPoolConfig) -> list[Problem]:
    """Every cross-field problem of one GPU pool. Also called by ``GpuNodePool`` at construction."""
    at = f"gpuPools[{index}]"
    problems: list[Problem] = []
    facts = pool_facts(cfg, pool)
    operator = operator_facts(cfg)

    problems.extend(_at(at, pool_name(pool.name, pool.os)))

    # GPU size: the same checks and messages as the policy pack.
    not_gpu = check_is_gpu_size(pool.vmSize)
    if not_gpu is not None:
        problems.append(Problem(f"{at}.vmSize", not_gpu.message))
    else:
        problems.extend(
            Problem(f"{at}.vmSize", f.message)
            for f in check_gpu_size(pool.vmSize, floor=cfg.usable_gpu_floor, exempt=pool_exempt_rules(cfg, pool.name))
        )
    mig = check_mig_profile(pool.vmSize, pool.migProfile)
    if mig is not None:
        problems.append(Problem(f"{at}.migProfile", mig.message))
    problems.extend(_at(at, mig_pool(facts, pool.migProfile)))

    # AMD GPUs: none of the NVIDIA stack applies.
    for field, finding in check_amd_features(
        pool.vmSize,
        nvidia_operator=cfg.operator_manages(pool),
        aks_driver=cfg.pool_driver(pool) == "aks",
        sharing=pool.sharing_mode,
        os_sku=pool.effective_os_sku if pool.os == "Linux" else None,
    ):
        problems.append(Problem(f"{at}.{field}", finding.message))

    # Node counts.
    if pool.autoscaling:
        if pool.count is not None:
            problems.append(
                Problem(
                    f"{at}.count",
                    "set either count (fixed size) or minCount/maxCount (autoscaling), not both.",
                )
            )
        problems.extend(_at(at, autoscale_bounds(pool.effective_min_count or 0, pool.maxCount)))
        problems.extend(_at(at, operator_autoscale_min_count(facts, operator)))
    elif pool.minCount is not None:
        problems.append(
            Problem(f"{at}.minCount", "minCount needs maxCount (autoscaling); for a fixed-size pool use count.")
        )

    # Kubernetes version: creatable today, and within AKS's skew window of the control plane.
    if pool.orchestratorVersion:
        problems.extend(_pool_version_problems(cfg, f"{at}.orchestratorVersion", pool.orchestratorVersion))
        pin = version_pin_fits_channel(pool.orchestratorVersion, cfg.cluster.autoUpgradeChannel, "orchestratorVersion")
        problems.extend(_at(at, pin))

    problems.extend(_at(at, pool_os_sku(pool.os, pool.effective_os_sku)))

    # Windows pools; who installs the driver (AKS or the GPU operator, exactly one of them).
    version_key = f"{at}.orchestratorVersion" if pool.orchestratorVersion else "cluster.kubernetesVersion"
    problems.extend(_at(at, windows_gpu_pool(facts), orchestratorVersion=version_key))
    problems.extend(_at(at, driver_install(facts, operator)))

    # GPU sharing.
    if pool.sharing is not None:
        problems.extend(
            _at(
                at,
                gpu_sharing(
                    facts,
                    time_slicing=pool.sharing.timeSlicing is not None,
                    mps=pool.sharing.mps is not None,
                    mig_profile=pool.migProfile,
                    mig_strategy=cfg.plugin_mig_strategy,
                ),
            )
        )

    # Taints and labels.
    taints = tuple(cfg.pool_taints(pool))
    taint_problems = pool_taints(taints)
    problems.extend(_at(at, taint_problems))
    for key, value in pool.labels.items():
        path = f"{at}.{key_path(['labels', key])}"
        for problem in (node_label_key_problem(key), label_value_problem(value)):
            if problem is not None:
                problems.append(Problem(path, problem))

    # Node hardening: what the size can do (encryption at host, ephemeral OS disk).
    problems.extend(
        _at(
            at,
            node_hardening(
                pool.vmSize,
                node_disks(pool.vmSize),
                encryption_at_host=pool.encryptionAtHost,
                os_disk_type=pool.osDiskType,
            ),
        )
    )

    # What runs on the nodes: exactly one device plugin, and something a pod can request.
    size = default_catalog().lookup(pool.vmSize)
    if size is not None and mig is None and not taint_problems:
        stack = pool_node_stack(
            pool.name,
            os=pool.os,
            gpus=int(size.gpu_count),
            whole_gpu_memory_gib=size.whole_gpu_memory_gib,
            taints=taints,
            spot=pool.spot,
            sharing=pool.sharing.node_sharing if pool.sharing is not None else None,
            driver_skipped=cfg.pool_driver(pool) == "operator",
            mig_profile=pool.migProfile,
            manager=cfg.pool_device_plugin(pool),
            mig_strategy=cfg.plugin_mig_strategy,
            kaito_addon=cfg.kaito_addon,
        )
        key = f"{at}.taints" if any(p.plugin == KAITO_ADDON for p in stack.plugins) else at
        problems.extend(Problem(key, f.message) for f in node_stack_findings(stack))
    return problems


def pool_facts(cfg: StackConfig, pool: GpuPoolConfig) -> rules_aks.GpuPool:
    """A stack file's pool as the AKS rules see it (defaults resolved)."""
    return rules_aks.GpuPool(
        name=pool.name,
        vm_size=pool.vmSize,
        os=pool.os,
        kubernetes_version=cfg.pool_kubernetes_version(pool),
        driver_skipped=cfg.pool_driver(pool) == "operator",
        autoscaling=pool.autoscaling,
        min_count=pool.effective_min_count,
        taints=tuple(cfg.pool_taints(pool)),
    )


def operator_facts(cfg: StackConfig) -> rules_aks.GpuOperator | None:
    """The GPU operator as the AKS rules see it (:attr:`StackConfig.gpu_operator_facts`)."""
    return cfg.gpu_operator_facts


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
    finding = check_kubernetes_version(
        version, today=clock.today(), tier=cluster.skuTier, support_plan=cluster.supportPlan
    )
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
        cluster.kubernetesVersion, today=clock.today(), tier=cluster.skuTier, support_plan=cluster.supportPlan
    )
    if finding is not None:
        problems.append(Problem("cluster.kubernetesVersion", finding.message))
    access = cluster.access
    problems += [
        Problem(f"cluster.access.{f.field}", f.message)
        for f in deployer_principal_type(access.grantDeployer, access.deployerPrincipalType)
    ]
    problems += _upgrade_channel_problems(cfg)
    facts = rules_aks.Cluster(
        tier=cluster.skuTier,
        support_plan=cluster.supportPlan,
        cost_analysis=cluster.costAnalysis,
        kaito_addon=cfg.kaito_addon,
        oidc_issuer=cluster.oidcIssuer,
        workload_identity=cluster.workloadIdentity,
    )
    cluster_rules = [lts_needs_premium, cost_analysis_tier, kaito_requires_oidc, workload_identity_needs_oidc]
    for finding in [f for rule in cluster_rules for f in rule(facts)]:
        key = {"tier": "skuTier"}.get(finding.field, finding.field)
        problems.append(Problem(f"cluster.{key}", finding.message))
    problems += _hardening_problems(cfg)
    if cfg.resourceGroup.existing and cfg.resourceGroup.name is None:
        problems.append(Problem("resourceGroup.name", "an existing resource group must be named."))
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
    validated = validated_minors(
        gpu_operator_version=cfg.gpuOperator.version if cfg.gpuOperator.enabled else None,
        kaito_addon=cfg.kaito_addon,
    )
    found = upgrade_channel_range(cluster.autoUpgradeChannel, cluster.kubernetesVersion, validated, today=clock.today())
    found += version_pin_fits_channel(cluster.kubernetesVersion, cluster.autoUpgradeChannel)
    return [Problem(f"cluster.{f.field}", f.message) for f in found]


def scale_facts(cfg: StackConfig) -> ClusterScale:
    """The cluster's node pools (the inline system pool and every GPU pool) and the most nodes each may run."""
    gpu = tuple(p.maxCount if p.maxCount is not None else p.effective_count for p in cfg.gpuPools)
    return ClusterScale(cfg.cluster.skuTier, 1, (cfg.cluster.systemPool.count, *gpu))


def scale_problems(cfg: StackConfig) -> list[Problem]:
    """AKS's scale limits (rules.limits): node pools per cluster and nodes per cluster, on the ``gpuPools`` list."""
    return [Problem("gpuPools", f.message) for f in cluster_scale(scale_facts(cfg))]


def semantic_problems(cfg: StackConfig) -> list[Problem]:
    """Cross-field problems of a structurally valid config (catalog rules and the platform's rules)."""
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
        if not cfg.operator_manages(pool):
            continue
        problem = check_operator_platform(version, cfg.pool_kubernetes_version(pool), pool.effective_os_sku, facts)
        if problem is None:
            continue
        if facts.get(version) is None:
            return [Problem("gpuOperator.version", problem)]
        key = f"gpuPools[{i}].osSku" if pool.effective_os_sku not in facts.os_images else "gpuOperator.version"
        text = problem if key.endswith("osSku") else f"gpuPools[{i}] ({pool.name}): {problem}"
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
        if nap_driver(cfg, nap) == "operator":
            pools[f"gpuNodePools[{i}] ({nap.name})"] = ubuntu_release(nap.imageFamily or "Ubuntu", k8s)
    return [Problem("gpuOperator", f.message) for f in operator_driver_os_findings(pools)]


def _node_os_problems(cfg: StackConfig) -> list[Problem]:
    """Every pool's OS version against its Kubernetes minor and today (``gpu_catalog/facts/aks_node_os.json``), on the
    key the stack file wrote (``osSku``, else ``os`` for a Windows pool's default SKU, ``imageFamily``)."""
    today = clock.today()

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
        k8s = minor(cfg.pool_kubernetes_version(pool))
        if k8s is None:
            continue
        sku = pool.effective_os_sku
        problem = node_os_problem(sku, k8s, today, os_name=ubuntu_release(sku, k8s))
        if problem is not None:
            key = "osSku" if "osSku" in pool.model_fields_set or "os" not in pool.model_fields_set else "os"
            problems.append(Problem(f"gpuPools[{i}].{key}", problem))
    for i, nap in enumerate(cfg.gpuNodePools):
        if nap.imageFamily is None or cluster_minor is None:
            continue
        problem = node_os_problem(
            nap.imageFamily, cluster_minor, today, os_name=ubuntu_release(nap.imageFamily, cluster_minor)
        )
        if problem is not None:
            problems.append(Problem(f"gpuNodePools[{i}].imageFamily", problem))
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
        problems += [Problem(f"kaito.workspaces[{i}]", f.message) for f in node_stack_findings(stack)]
    return problems


def _kaito_problems(cfg: StackConfig) -> list[Problem]:
    found = kaito_stack_problems(
        cfg.kaito,
        cluster_addon=cfg.cluster.kaitoAddon,
        floor=cfg.gpu_floor,
        kubernetes_version=cfg.cluster.kubernetesVersion,
    )
    return [Problem(path, message) for path, message in found]


def _databricks_problems(cfg: StackConfig) -> list[Problem]:
    return [Problem(path, message) for path, message in databricks_stack_problems(cfg.databricks, floor=cfg.gpu_floor)]


def _cluster_policy_problems(cfg: StackConfig) -> list[Problem]:
    inherited = {*cfg.cluster.tags, "environment", "managed-by"}  # components.wiring.platform_tags
    found = cluster_policy_problems(cfg.databricks, inherited_tags=inherited, floor=cfg.usable_gpu_floor)
    return [Problem(path, message) for path, message in found]


EXTRA_CHECKS: list[Callable[[StackConfig], list[Problem]]] = [
    _device_plugin_problems,
    _operator_os_problems,
    _node_os_problems,
    _kaito_node_problems,
    _kaito_problems,
    _databricks_problems,
    _cluster_policy_problems,
    nap_problems,
    exemption_problems,
    monitoring_problems,
]
"""Further cross-field checks registered by other config sections (e.g. KAITO, Databricks)."""
