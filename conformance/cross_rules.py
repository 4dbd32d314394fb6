"""The cross-field rules the facts files declare (``rules`` in ``conformance/facts/*.json``), one function per rule
id, registered in :data:`RULES`. A rule reads the limits it checks (counts, ranges, value lists) from its declaration
in the facts, where they carry their source; the GPU and AKS guard rails themselves come from ``rules/``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from conformance.schema_walk import INFO, Context, allowed, join, show
from preflight.wire import UNKNOWN, is_unknown
from rules import aks as rules_aks
from rules import databricks as rules_databricks
from rules.hardening import network_policy
from rules.wire_pools import aks_pools


class RuleCtx:
    def __init__(self, ctx: Context, rule_id: str, inputs: Mapping[str, Any], prefix: str = "") -> None:
        self.ctx = ctx
        self.rule_id = rule_id
        self.inputs = inputs
        self.prefix = prefix

    def path(self, *parts: str | int) -> str:
        out = self.prefix
        for part in parts:
            out = f"{out}[{part}]" if isinstance(part, int) else join(out, part)
        return out

    def limit(self, key: str) -> Any:
        """The value ``key`` of this rule's ``limits`` in the facts (where it carries its source)."""
        limits = self.ctx.facts.rules[self.rule_id].limits
        if key not in limits:
            raise KeyError(
                f"rule {self.rule_id}: the facts declare no limit {key!r}; declared: {sorted(limits) or 'none'}"
            )
        return limits[key]

    def fail(self, path: str, message: str) -> None:
        rule = self.ctx.facts.rules[self.rule_id]
        self.ctx.add(path, self.rule_id, message, rule.source)


RULES: dict[str, Callable[[RuleCtx], None]] = {}


def _rule(rule_id: str) -> Callable[[Callable[[RuleCtx], None]], Callable[[RuleCtx], None]]:
    def register(fn: Callable[[RuleCtx], None]) -> Callable[[RuleCtx], None]:
        RULES[rule_id] = fn
        return fn

    return register


def run_rule(ctx: Context, rule_id: str, inputs: Mapping[str, Any], prefix: str) -> None:
    """Run the rule ``rule_id`` on ``inputs`` (a resource's, or an embedded document's at ``prefix``)."""
    RULES[rule_id](RuleCtx(ctx, rule_id, inputs, prefix))


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _known(*values: Any) -> bool:
    return not any(isinstance(v, str) and v == UNKNOWN for v in values)


def _pools(r: RuleCtx) -> Iterator[tuple[str, Mapping[str, Any], Any]]:
    """(path prefix, pool properties, pool name) of every agent pool in the resource, read by the one reader of AKS
    pools (:func:`rules.wire_pools.aks_pools`: an AgentPool itself, each entry of a ManagedCluster's
    ``agentPoolProfiles``)."""
    for pool in aks_pools(r.ctx.type, r.inputs, is_unknown=is_unknown).pools:
        yield pool.prefix, pool.data, pool.name


def _cluster_facts(r: RuleCtx) -> rules_aks.Cluster | None:
    tier = _get(r.inputs, "sku", "tier")
    if not _known(tier):
        return None
    return rules_aks.Cluster(
        tier=tier if isinstance(tier, str) else None,
        support_plan=r.inputs.get("supportPlan"),
        cost_analysis=_get(r.inputs, "metricsProfile", "costAnalysis", "enabled") is True,
    )


@_rule("aks.cost-analysis-needs-paid-tier")
def _aks_cost_analysis(r: RuleCtx) -> None:
    facts = _cluster_facts(r)
    for finding in rules_aks.cost_analysis_tier(facts) if facts is not None else []:
        r.fail("metricsProfile.costAnalysis.enabled", finding.message)


@_rule("aks.lts-needs-premium")
def _aks_lts(r: RuleCtx) -> None:
    facts = _cluster_facts(r)
    for finding in rules_aks.lts_needs_premium(facts) if facts is not None else []:
        r.fail("supportPlan", finding.message)


@_rule("aks.local-accounts-off-needs-aad")
def _aks_local_accounts(r: RuleCtx) -> None:
    managed = _get(r.inputs, "aadProfile", "managed")
    if r.inputs.get("disableLocalAccounts") is True and _known(managed) and managed is not True:
        r.fail("disableLocalAccounts", "disableLocalAccounts true needs AAD: set aadProfile.managed true")


@_rule("aks.overlay-needs-azure-cni")
def _aks_overlay(r: RuleCtx) -> None:
    mode = _get(r.inputs, "networkProfile", "networkPluginMode")
    plugin = _get(r.inputs, "networkProfile", "networkPlugin")
    if mode == "overlay" and plugin is not None and _known(plugin) and plugin != "azure":
        r.fail(
            "networkProfile.networkPlugin",
            f"networkPluginMode overlay is used with networkPlugin azure, not {show(plugin)}",
        )


@_rule("aks.network-policy-matches-dataplane")
def _aks_network_policy(r: RuleCtx) -> None:
    policy = _get(r.inputs, "networkProfile", "networkPolicy")
    dataplane = _get(r.inputs, "networkProfile", "networkDataplane")
    if policy is None or not _known(policy, dataplane):
        return
    for f in network_policy(str(dataplane or "azure"), str(policy)):
        r.fail(f"networkProfile.{'networkPolicy' if f.field == 'policy' else 'networkDataplane'}", f.message)


@_rule("aks.authorized-ranges-not-private")
def _aks_authorized_private(r: RuleCtx) -> None:
    ranges = _get(r.inputs, "apiServerAccessProfile", "authorizedIPRanges")
    private = _get(r.inputs, "apiServerAccessProfile", "enablePrivateCluster")
    if ranges and private is True:
        r.fail("apiServerAccessProfile.authorizedIPRanges", "authorized IP ranges are not allowed on a private cluster")


@_rule("aks.private-dns-zone-needs-private-cluster")
def _aks_private_dns_zone(r: RuleCtx) -> None:
    zone = _get(r.inputs, "apiServerAccessProfile", "privateDNSZone")
    private = _get(r.inputs, "apiServerAccessProfile", "enablePrivateCluster")
    if zone is not None and _known(zone, private) and private is not True:
        r.fail("apiServerAccessProfile.privateDNSZone", "privateDNSZone needs enablePrivateCluster true")


def _user_assigned(r: RuleCtx) -> bool | None:
    kind = _get(r.inputs, "identity", "type")
    return None if not _known(kind) else kind == "UserAssigned"


@_rule("aks.custom-private-dns-zone-needs-user-assigned")
def _aks_custom_zone_identity(r: RuleCtx) -> None:
    zone = _get(r.inputs, "apiServerAccessProfile", "privateDNSZone")
    custom = isinstance(zone, str) and _known(zone) and zone.lower() not in ("system", "none")
    if custom and _user_assigned(r) is False:
        r.fail("identity.type", "a custom private DNS zone needs a user-assigned control-plane identity (UserAssigned)")


@_rule("aks.kubelet-identity-needs-user-assigned")
def _aks_kubelet_identity(r: RuleCtx) -> None:
    if _get(r.inputs, "identityProfile", "kubeletidentity") is not None and _user_assigned(r) is False:
        r.fail("identity.type", "identityProfile.kubeletidentity needs a user-assigned control plane (UserAssigned)")


@_rule("aks.maintenance-one-schedule")
def _aks_maintenance_schedule(r: RuleCtx) -> None:
    schedule = _get(r.inputs, "maintenanceWindow", "schedule")
    if not isinstance(schedule, Mapping):
        return
    kinds = [k for k in ("daily", "weekly", "absoluteMonthly", "relativeMonthly") if schedule.get(k) is not None]
    if len(kinds) != 1:
        r.fail("maintenanceWindow.schedule", f"exactly one schedule type is allowed, got {len(kinds)}: {kinds}")


@_rule("aks.needs-system-pool")
def _aks_system_pool(r: RuleCtx) -> None:
    found = aks_pools(r.ctx.type, r.inputs, is_unknown=is_unknown)
    if not found.pools or found.unknown_entries or found.skipped:
        return  # no profiles, or an entry that is not a pool: its mode is not known
    modes = [pool.data.get("mode") for pool in found.pools]
    if all(m is not None and _known(m) for m in modes) and "System" not in modes:
        r.fail("agentPoolProfiles", "a cluster needs at least one agent pool with mode System")


@_rule("aks.system-pool-linux")
def _aks_system_linux(r: RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        if pool.get("mode") != "System":
            continue
        if pool.get("osType") == "Windows":
            r.fail(join(prefix, "osType"), "System agent pools must be Linux")
        if pool.get("osSKU") in r.limit("systemUnsupportedOsSkus"):
            r.fail(join(prefix, "osSKU"), f"{show(pool.get('osSKU'))} is unsupported for System agent pools")


@_rule("aks.windows-pool-name-length")
def _aks_windows_name(r: RuleCtx) -> None:
    for prefix, pool, name in _pools(r):
        if pool.get("osType") == "Windows" and isinstance(name, str) and _known(name):
            key = "agentPoolName" if not prefix else "name"
            for finding in rules_aks.windows_pool_name(name):
                r.fail(join(prefix, key), finding.message)


@_rule("aks.zones-need-vmss")
def _aks_zones(r: RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        pool_type = pool.get("type")
        if (
            pool.get("availabilityZones")
            and pool_type is not None
            and _known(pool_type)
            and pool_type != "VirtualMachineScaleSets"
        ):
            r.fail(
                join(prefix, "availabilityZones"),
                f"availabilityZones need type VirtualMachineScaleSets, not {show(pool_type)}",
            )


@_rule("aks.eviction-policy-needs-spot")
def _aks_eviction(r: RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        priority = pool.get("scaleSetPriority")
        if not _known(priority) or priority == "Spot":
            continue
        for key in ("scaleSetEvictionPolicy", "spotMaxPrice"):
            if pool.get(key) is not None:
                r.fail(join(prefix, key), f"{key} needs scaleSetPriority Spot; it is {show(priority or 'Regular')}")


@_rule("aks.spot-max-price")
def _aks_spot_price(r: RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        price = pool.get("spotMaxPrice")
        on_demand = r.limit("payUpToOnDemand")
        if isinstance(price, int | float) and not isinstance(price, bool) and not (price == on_demand or price > 0):
            r.fail(
                join(prefix, "spotMaxPrice"),
                f"spotMaxPrice is {on_demand} or a decimal greater than zero, not {show(price)}",
            )


@_rule("aks.pool-count-range")
def _aks_count(r: RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        count = pool.get("count")
        if not isinstance(count, int | float) or isinstance(count, bool):
            continue
        system = pool.get("mode") == "System"
        low, high = r.limit("systemMin" if system else "userMin"), r.limit("max")
        if not low <= count <= high:
            kind = "System" if system else "User"
            r.fail(join(prefix, "count"), f"count for a {kind} pool is {low}..{high}, not {show(count)}")


@_rule("databricks-ws.managed-rg-by-compute-mode")
def _databricks_ws_mode(r: RuleCtx) -> None:
    mode = r.inputs.get("computeMode")
    managed = r.inputs.get("managedResourceGroupId")
    if mode == "Hybrid" and managed is None:
        r.fail("managedResourceGroupId", "a Hybrid workspace needs managedResourceGroupId")
    if mode == "Serverless":
        if managed is not None:
            r.fail("managedResourceGroupId", "managedResourceGroupId is not allowed in a Serverless workspace")
        if r.inputs.get("parameters") is not None:
            r.fail("parameters", "custom parameters are not allowed in a Serverless workspace")


def chart_name(chart: Any) -> str:
    if not isinstance(chart, str):
        return ""
    return chart.rstrip("/").rsplit("/", 1)[-1].split(":", 1)[0]


@_rule("helm.chart-version-matches-facts")
def _helm_version(r: RuleCtx) -> None:
    chart = r.ctx.chart
    if chart is None:
        return
    version = r.inputs.get("version")
    if version is None:
        r.fail("version", f"chart {chart.name} is not pinned; the facts were read at {chart.version}: pin that version")
    elif _known(version) and str(version).lstrip("v") != chart.version.lstrip("v"):
        r.fail(
            "version",
            f"chart {chart.name} is pinned to {show(version)} but the facts (values.yaml and the device plugin it "
            f"ships) were read at {chart.version}: pin {chart.version} or re-read the facts at {show(version)}",
        )


@_rule("helm.chart-repository")
def _helm_repository(r: RuleCtx) -> None:
    chart = r.ctx.chart
    if chart is None or not chart.repositories:
        return
    repo = _get(r.inputs, "repositoryOpts", "repo")
    if repo is None:
        if "/" not in str(r.inputs.get("chart", "")):
            r.fail("repositoryOpts.repo", f"chart {chart.name} has no repository; use {allowed(chart.repositories)}")
    elif _known(repo) and str(repo).rstrip("/") not in chart.repositories:
        r.fail(
            "repositoryOpts.repo",
            f"{show(repo)} is not a repository of chart {chart.name}; use {allowed(chart.repositories)}",
        )


def _gpu_operator_values(r: RuleCtx) -> Mapping[str, Any] | None:
    if r.ctx.chart is None or r.ctx.chart.name != "gpu-operator":
        return None
    values = r.inputs.get("values")
    return values if isinstance(values, Mapping) else None


@_rule("gpu-operator.device-plugin-config-named")
def _dp_config_named(r: RuleCtx) -> None:
    config = _get(_gpu_operator_values(r), "devicePlugin", "config")
    if not isinstance(config, Mapping):
        return
    if (config.get("create") is True or config.get("data")) and not config.get("name"):
        r.fail("values.devicePlugin.config.name", "devicePlugin.config with create/data needs a name (the ConfigMap's)")


@_rule("gpu-operator.device-plugin-default-in-data")
def _dp_default_in_data(r: RuleCtx) -> None:
    config = _get(_gpu_operator_values(r), "devicePlugin", "config")
    if not isinstance(config, Mapping):
        return
    default, data = config.get("default"), config.get("data")
    if default and isinstance(data, Mapping) and data and _known(default) and default not in data:
        r.fail(
            "values.devicePlugin.config.default",
            f"{show(default)} is not a key of devicePlugin.config.data; keys: {allowed(sorted(data))}",
        )


@_rule("gpu-operator.mig-config-named")
def _mig_config_named(r: RuleCtx) -> None:
    config = _get(_gpu_operator_values(r), "migManager", "config")
    if not isinstance(config, Mapping) or config.get("create") is not True or not config.get("data"):
        return
    if not config.get("name"):
        r.fail("values.migManager.config.name", "migManager.config with create and data needs a name (the ConfigMap's)")
    data = config.get("data")
    if isinstance(data, Mapping) and "config.yaml" not in data:
        r.fail("values.migManager.config.data", f"needs a key config.yaml; keys: {allowed(sorted(data))}")


@_rule("device-plugin.no-mixed-mig-with-mps")
def _dp_mixed_mps(r: RuleCtx) -> None:
    if _get(r.inputs, "flags", "migStrategy") == "mixed" and _get(r.inputs, "sharing", "mps") is not None:
        r.fail(
            r.path("sharing", "mps"),
            "MPS sharing is refused with flags.migStrategy mixed (use single, or time-slicing)",
        )


@_rule("device-plugin.one-sharing-strategy")
def _dp_one_strategy(r: RuleCtx) -> None:
    sharing = r.inputs.get("sharing")
    if isinstance(sharing, Mapping) and sharing.get("timeSlicing") is not None and sharing.get("mps") is not None:
        r.fail(r.path("sharing"), "both timeSlicing and mps are set; the plugin would silently use MPS: keep one")


@_rule("kaito.inference-xor-tuning")
def _kaito_inference_xor_tuning(r: RuleCtx) -> None:
    inference, tuning = r.inputs.get("inference"), r.inputs.get("tuning")
    if inference is None and tuning is None:
        r.fail("inference", "either inference or tuning must be specified, not neither")
    elif inference is not None and tuning is not None:
        r.fail("tuning", "either inference or tuning must be specified, but not both")


@_rule("kaito.preset-xor-template")
def _kaito_preset_xor_template(r: RuleCtx) -> None:
    inference = r.inputs.get("inference")
    if not isinstance(inference, Mapping):
        return
    preset, template = inference.get("preset"), inference.get("template")
    if preset is None and template is None:
        r.fail("inference.preset", "inference needs preset or template")
    elif preset is not None and template is not None:
        r.fail("inference.template", "preset and template cannot be set at the same time")


@_rule("kaito.label-selector-as-map")
def _kaito_label_selector(r: RuleCtx) -> None:
    expressions = _get(r.inputs, "resource", "labelSelector", "matchExpressions")
    if not isinstance(expressions, list):
        return
    for i, expr in enumerate(expressions):
        if not isinstance(expr, Mapping) or not _known(expr.get("operator")):
            continue
        op, values = expr.get("operator"), expr.get("values") or []
        where = f"resource.labelSelector.matchExpressions[{i}]"
        if op == "In" and len(values) != 1:
            r.fail(
                f"{where}.values", f"operator In needs exactly one value to convert to a label map; has {len(values)}"
            )
        elif op != "In":
            r.fail(
                f"{where}.operator", f"operator {show(op)} cannot be converted to a label map: use matchLabels or In"
            )


_DEDICATED = (rules_databricks.SINGLE_USER, rules_databricks.DEDICATED)


@_rule("databricks.single-user-needs-name")
def _dbx_single_user(r: RuleCtx) -> None:
    mode = r.inputs.get("dataSecurityMode")
    if mode in _DEDICATED and not r.inputs.get("singleUserName"):
        r.fail("singleUserName", f"dataSecurityMode {mode} needs singleUserName (the user or group the cluster is for)")


@_rule("databricks.kind-only-options")
def _dbx_kind_only(r: RuleCtx) -> None:
    if r.inputs.get("kind") is not None:
        return
    for key in ("useMlRuntime", "isSingleNode"):
        if r.inputs.get(key) is not None:
            r.fail(key, f"{key} is only valid together with kind (CLASSIC_PREVIEW)")
    mode = r.inputs.get("dataSecurityMode")
    if isinstance(mode, str) and mode.startswith("DATA_SECURITY_MODE_"):
        r.fail(
            "dataSecurityMode", f"{mode} is only valid together with kind; without it use SINGLE_USER or USER_ISOLATION"
        )


@_rule("databricks.workers-or-autoscale")
def _dbx_workers(r: RuleCtx) -> None:
    if r.inputs.get("numWorkers") is not None and r.inputs.get("autoscale") is not None:
        r.fail("numWorkers", "set numWorkers (fixed size) or autoscale, not both")


@_rule("databricks.autoscale-max-above-min")
def _dbx_autoscale(r: RuleCtx) -> None:
    low, high = _get(r.inputs, "autoscale", "minWorkers"), _get(r.inputs, "autoscale", "maxWorkers")
    if isinstance(low, int | float) and isinstance(high, int | float) and not high > low:
        r.fail("autoscale.maxWorkers", f"maxWorkers ({show(high)}) must be greater than minWorkers ({show(low)})")


@_rule("databricks.autotermination-range")
def _dbx_autotermination(r: RuleCtx) -> None:
    minutes = r.inputs.get("autoterminationMinutes")
    if (
        isinstance(minutes, int | float)
        and not isinstance(minutes, bool)
        and minutes != r.limit("never")
        and not r.limit("min") <= minutes <= r.limit("max")
    ):
        r.fail(
            "autoterminationMinutes",
            f"is {r.limit('never')} (never) or {r.limit('min')}..{r.limit('max')} minutes, not {show(minutes)}",
        )


def _arm_type(namespace: str, parent: str, resource_type: str) -> str:
    """The ARM type of a generic resource: its namespace, the types in its parent path, its own type."""
    parent_types = [p for p in parent.strip("/").split("/")[::2] if p]
    return "/".join([namespace, *parent_types, resource_type])


@_rule("fleet.generic-resource")
def _fleet_generic(r: RuleCtx) -> None:
    namespace, parent = r.inputs.get("resourceProviderNamespace"), r.inputs.get("parentResourcePath") or ""
    resource_type, api, name = r.inputs.get("resourceType"), r.inputs.get("apiVersion"), r.inputs.get("resourceName")
    if not all(isinstance(v, str) for v in (namespace, parent, resource_type, api)) or not _known(parent, api):
        return
    arm_type = _arm_type(str(namespace), str(parent), str(resource_type))
    entry = r.limit("types").get(arm_type)
    source = r.ctx.facts.rules[r.rule_id].source
    if entry is None:
        r.ctx.add(
            "resourceType", "not-covered", f"no facts cover {arm_type}: its properties are not checked", source, INFO
        )
        return
    if api not in entry["apiVersions"]:
        r.fail(
            "apiVersion",
            f"{show(api)} is not a version the facts of {arm_type} were read at: {allowed(entry['apiVersions'])}",
        )
    if not re.search(entry["parent"], str(parent)):
        r.fail("parentResourcePath", f"{show(parent)} does not match {entry['parent']} for {arm_type}")
    if (
        isinstance(name, str)
        and _known(name)
        and (not re.search(entry["name"], name) or len(name) > entry["nameMaxLength"])
    ):
        r.fail(
            "resourceName",
            f"{show(name)} is not a {arm_type} name ({entry['name']}, at most {entry['nameMaxLength']})",
        )
    props = r.inputs.get("properties")
    if props is None:
        if entry.get("required"):
            r.fail("properties", f"a {arm_type} needs properties ({entry['definition']})")
        return
    r.ctx.check({"ref": entry["definition"]}, props, r.path("properties"), source)
    if isinstance(props, Mapping):
        for rule_id in entry["rules"]:
            run_rule(r.ctx, rule_id, props, r.path("properties"))


@_rule("fleet.update-strategy-groups")
def _fleet_strategy_groups(r: RuleCtx) -> None:
    stages = _get(r.inputs, "strategy", "stages")
    if not isinstance(stages, list):
        return
    seen_stages: set[Any] = set()
    seen_groups: dict[Any, Any] = {}
    for i, stage in enumerate(stages):
        if not isinstance(stage, Mapping):
            continue
        if stage.get("name") in seen_stages:
            r.fail(r.path("strategy", "stages", i, "name"), f"stage {show(stage.get('name'))} is named twice")
        seen_stages.add(stage.get("name"))
        for j, group in enumerate(stage.get("groups") or []):
            gname = group.get("name") if isinstance(group, Mapping) else None
            if gname in seen_groups:
                r.fail(
                    r.path("strategy", "stages", i, "groups", j, "name"),
                    f"group {show(gname)} is already in stage {show(seen_groups[gname])}",
                )
            seen_groups.setdefault(gname, stage.get("name"))


@_rule("fleet.auto-upgrade-target-version")
def _fleet_auto_upgrade_target(r: RuleCtx) -> None:
    channel, target = r.inputs.get("channel"), r.inputs.get("targetKubernetesVersion")
    if not _known(channel, target):
        return
    targeted = channel == "TargetKubernetesVersion"
    if targeted and not target:
        r.fail(r.path("targetKubernetesVersion"), "channel TargetKubernetesVersion needs targetKubernetesVersion")
    if not targeted and target:
        r.fail(
            r.path("targetKubernetesVersion"), f"is set only with channel TargetKubernetesVersion, not {show(channel)}"
        )
    if isinstance(target, str) and target and not re.search(r.limit("versionPattern"), target):
        r.fail(r.path("targetKubernetesVersion"), f"{show(target)} is not '{{major}}.{{minor}}'")
    if r.inputs.get("longTermSupport") is True and not targeted:
        r.fail(r.path("longTermSupport"), "is true only with channel TargetKubernetesVersion")


_CRP_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "PickAll": ("clusterNames", "numberOfClusters", "topologySpreadConstraints"),
    "PickN": ("clusterNames",),
    "PickFixed": ("numberOfClusters", "affinity", "topologySpreadConstraints", "tolerations"),
}


@_rule("fleet.crp-policy")
def _fleet_crp_policy(r: RuleCtx) -> None:
    policy = _get(r.inputs, "spec", "policy")
    if isinstance(policy, Mapping):
        kind = policy.get("placementType") or "PickAll"
        for key in _CRP_FORBIDDEN.get(str(kind), ()):
            if policy.get(key):
                r.fail(r.path("spec", "policy", key), f"is not allowed with placementType {show(kind)}")
        if kind == "PickN" and policy.get("numberOfClusters") is None:
            r.fail(r.path("spec", "policy", "numberOfClusters"), "placementType PickN needs numberOfClusters")
    for i, selector in enumerate(_get(r.inputs, "spec", "resourceSelectors") or []):
        if isinstance(selector, Mapping) and selector.get("name") and selector.get("labelSelector"):
            r.fail(r.path("spec", "resourceSelectors", i), "name and labelSelector are mutually exclusive")


@_rule("aks.system-pool-no-max-unavailable")
def _aks_system_max_unavailable(r: RuleCtx) -> None:
    """A System-mode pool with ``upgradeSettings.maxUnavailable`` (:func:`rules.network.system_pool_max_unavailable`,
    the one rule the stack config and the components call too)."""
    from rules.network import system_pool_max_unavailable

    for prefix, pool, _ in _pools(r):
        value = _get(pool, "upgradeSettings", "maxUnavailable")
        if pool.get("mode") != "System" or not isinstance(value, str) or not _known(value):
            continue
        for finding in system_pool_max_unavailable(value):
            r.fail(join(join(prefix, "upgradeSettings"), "maxUnavailable"), finding.message)
