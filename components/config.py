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

import copy
import hashlib
import json
import os
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal, Union

import pulumi
from pydantic import BaseModel, Field, ValidationError, field_validator
from pydantic_core import ErrorDetails

from gpu_catalog import (
    DEFAULT_FLOOR,
    MIG_PROFILES,
    check_amd_features,
    check_gpu_size,
    check_mig_profile,
    clock,
    default_catalog,
    is_gpu_size,
)
from gpu_catalog.access import load_access_facts
from gpu_catalog.lifecycle import (
    DEFAULT_SUPPORT_PLAN,
    LTS_SUPPORT_PLAN,
    LTS_TIER,
    check_kubernetes_version,
    check_operator_platform,
    default_gpu_operator_version,
    load_operator_facts,
    minor_of,
    minor_tuple,
)
from gpu_catalog.problems import Problem, key_path, render_problems, show
from gpu_catalog.regions import check_region
from rules import Finding
from rules import aks as rules_aks
from rules.aks import (
    DEFAULT_GPU_TAINT,
    LINUX_POOL_NAME_MAX,
    cost_analysis_tier,
    driver_install,
    kaito_requires_oidc,
    operator_autoscale_min_count,
    windows_gpu_pool,
)

from .config_base import StrictModel
from .config_keys import foreign_key_findings, referenced_keys
from .databricks_config import DatabricksConfig, databricks_stack_problems
from .kaito_config import KaitoConfig, kaito_addon_enabled, kaito_stack_problems
from .kube_names import label_value_problem, node_label_key_problem

NAMESPACE = "azure-gpu-platform"
"""The stack-config namespace (the Pulumi project name)."""

STACK_FILE_ENV = "AGP_STACK_FILE"
"""When set, error messages name this file instead of ``stacks/Pulumi.<stack>.yaml`` (the preflight sets it)."""


DEFAULT_GPU_OPERATOR_VERSION = default_gpu_operator_version()
"""Pinned NVIDIA gpu-operator chart version: the ``default`` of ``gpu_catalog/facts/gpu_operator.json`` (a release
NVIDIA validated for the Kubernetes versions below, with its sources)."""

DEFAULT_KUBERNETES_VERSION = "1.36"
"""AKS GA Jun 2026, end of life Jun 2027 (``gpu_catalog/facts/aks_kubernetes.json``); the newest minor the default
GPU operator and the KAITO add-on are validated on. A stack on it starts failing its preflight when AKS stops
creating it: the checks read the dates, not this constant."""


MPS_MAX_REPLICAS = 48
"""An MPS server serves at most 48 clients per GPU (Volta and later)."""


_K8S_VERSION_RE = r"^1\.\d{2}(\.\d{1,3})?$"
_POOL_NAME_RE = re.compile(r"^[a-z][a-z0-9]*$")
_TAINT_RE = re.compile(
    r"^(?P<key>[A-Za-z0-9]([A-Za-z0-9._/-]{0,251}[A-Za-z0-9])?)(=(?P<value>[A-Za-z0-9._-]{0,63}))?"
    r":(?P<effect>NoSchedule|PreferNoSchedule|NoExecute)$"
)

Environment = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,15}$")]
KubernetesVersion = Annotated[str, Field(pattern=_K8S_VERSION_RE)]
LinuxOsSku = Literal["Ubuntu", "Ubuntu2204", "AzureLinux", "AzureLinux3"]
WindowsOsSku = Literal["Windows2022"]
PolicyLevel = Literal["advisory", "mandatory", "remediate", "disabled"]


# --------------------------------------------------------------------------------------------------- models


class ResourceGroupConfig(StrictModel):
    """``resourceGroup``: where the cluster lives. ``existing: true`` uses a group created elsewhere."""

    name: Annotated[str, Field(min_length=1, max_length=90, pattern=r"^[-\w._()]+$")] | None = None
    """Defaults to ``rg-gpu-<environment>``."""
    existing: bool = False


class SystemPoolConfig(StrictModel):
    """``cluster.systemPool``: the inline System-mode pool (never a GPU size: GPU pools are separate AgentPools)."""

    vmSize: str = "Standard_D4ds_v5"
    count: Annotated[int, Field(ge=2, le=100)] = 2
    """At least two nodes so system add-ons survive a node upgrade or failure."""
    zones: list[Literal["1", "2", "3"]] = Field(default_factory=list)
    osSku: LinuxOsSku = "AzureLinux"
    onlyCriticalAddons: bool = False
    """Taint the system pool ``CriticalAddonsOnly=true:NoSchedule`` (then run the GPU operator's controllers on a
    user pool that tolerates it)."""


class ClusterAccessConfig(StrictModel):
    """``cluster.access``: who may call the Kubernetes API (local accounts are disabled; Azure RBAC authorizes it).

    By default the identity running ``pulumi up`` and every ``adminGroupObjectIds`` group get *Azure Kubernetes
    Service RBAC Cluster Admin* on the cluster, and every Kubernetes resource waits ``propagationWaitSeconds`` after
    the assignments (new assignments take up to five minutes to apply). Creating role assignments needs Owner or
    User Access Administrator. Organisations that grant cluster access elsewhere set ``grantDeployer: false``.
    """

    grantDeployer: bool = True
    deployerPrincipalType: Literal["User", "ServicePrincipal"] | None = None
    """Optional: tells ARM what the deploying identity is (``ServicePrincipal`` in CI avoids replication errors for
    new service principals). Unset: ARM looks it up."""
    propagationWaitSeconds: Annotated[int, Field(ge=0, le=1800)] = load_access_facts().propagation_seconds


class ClusterConfig(StrictModel):
    """``cluster``: the AKS managed cluster."""

    name: Annotated[str, Field(min_length=1, max_length=63, pattern=r"^[a-zA-Z0-9][-_a-zA-Z0-9]*$")] | None = None
    """Defaults to ``aks-gpu-<environment>``."""
    kubernetesVersion: KubernetesVersion = DEFAULT_KUBERNETES_VERSION
    """A Kubernetes minor AKS creates today (checked against the release calendar and today's date)."""
    skuTier: Literal["Free", "Standard", "Premium"] = "Standard"
    supportPlan: Literal["KubernetesOfficial", "AKSLongTermSupport"] = DEFAULT_SUPPORT_PLAN
    """``AKSLongTermSupport`` (needs ``skuTier: Premium``) keeps a minor creatable for a year after its end of life."""
    access: ClusterAccessConfig = ClusterAccessConfig()
    systemPool: SystemPoolConfig = SystemPoolConfig()
    autoUpgradeChannel: Literal["rapid", "stable", "patch", "node-image", "none"] = "stable"
    nodeOsUpgradeChannel: Literal["NodeImage", "SecurityPatch", "Unmanaged", "None"] = "NodeImage"
    oidcIssuer: bool = True
    workloadIdentity: bool = True
    adminGroupObjectIds: list[Annotated[str, Field(pattern=r"^[0-9a-fA-F-]{36}$")]] = Field(default_factory=list)
    """Entra ID groups granted cluster-admin through Azure RBAC (local accounts are always disabled)."""
    costAnalysis: bool = False
    """AKS cost analysis add-on (needs ``skuTier`` Standard or Premium)."""
    kaitoAddon: bool = False
    """KAITO (AI toolchain operator) add-on; turns the OIDC issuer on."""
    protect: bool | None = None
    """Protect the cluster (and a resource group this stack creates) from deletion and replacement.
    Defaults to true when ``environment`` is ``prod``."""
    tags: dict[str, str] = Field(default_factory=dict)


class TimeSlicingConfig(StrictModel):
    replicas: Annotated[int, Field(ge=2, le=64)]
    renameByDefault: bool = False
    """Advertise the shared GPUs as ``nvidia.com/gpu.shared`` instead of ``nvidia.com/gpu``."""


class MpsConfig(StrictModel):
    replicas: Annotated[int, Field(ge=2, le=MPS_MAX_REPLICAS)]
    renameByDefault: bool = False


class SharingConfig(StrictModel):
    """``gpuPools[i].sharing``: one of time-slicing or MPS (mutually exclusive), rendered by the GPU operator."""

    timeSlicing: TimeSlicingConfig | None = None
    mps: MpsConfig | None = None

    @property
    def mode(self) -> Literal["none", "timeSlicing", "mps"]:
        if self.mps is not None:
            return "mps"
        if self.timeSlicing is not None:
            return "timeSlicing"
        return "none"

    @property
    def replicas(self) -> int:
        chosen = self.mps or self.timeSlicing
        return chosen.replicas if chosen is not None else 1

    @property
    def rename_by_default(self) -> bool:
        chosen = self.mps or self.timeSlicing
        return chosen.renameByDefault if chosen is not None else False


class GpuPoolConfig(StrictModel):
    """``gpuPools[i]``: one AKS GPU node pool (a separate AgentPool resource)."""

    name: Annotated[str, Field(min_length=1)]
    """Logical pool name: lowercase letters and digits, starting with a letter; at most 12 characters on Linux and
    6 on Windows. The Azure pool name is derived from it (see :func:`azure_pool_name`)."""
    vmSize: str
    os: Literal["Linux", "Windows"] = "Linux"
    osSku: LinuxOsSku | WindowsOsSku | None = None
    """Defaults to Ubuntu on Linux (the GPU operator's supported OS) and Windows2022 on Windows."""
    count: Annotated[int, Field(ge=0, le=1000)] | None = None
    """Fixed node count (no autoscaling). Defaults to 1 when ``maxCount`` is not set."""
    minCount: Annotated[int, Field(ge=0, le=1000)] | None = None
    """Autoscaling lower bound (needs ``maxCount``). Defaults to 1."""
    maxCount: Annotated[int, Field(ge=1, le=1000)] | None = None
    """Setting ``maxCount`` turns the cluster autoscaler on for this pool."""
    driver: Literal["operator", "aks"] | None = None
    """Who installs the NVIDIA driver: ``operator`` (AKS skips it: ``gpuProfile.driver=None``) or ``aks``.
    Defaults to ``operator`` for Linux pools when ``gpuOperator.enabled``, otherwise ``aks``."""
    migProfile: Literal["MIG1g", "MIG2g", "MIG3g", "MIG4g", "MIG7g"] | None = None
    """AKS ``gpuInstanceProfile`` (A100, H100, H200 sizes only)."""
    sharing: SharingConfig | None = None
    taints: list[str] = Field(default_factory=lambda: [DEFAULT_GPU_TAINT])
    labels: dict[str, str] = Field(default_factory=dict)
    spot: bool = False
    zones: list[Literal["1", "2", "3"]] = Field(default_factory=list)
    maxPods: Annotated[int, Field(ge=10, le=250)] | None = None
    orchestratorVersion: KubernetesVersion | None = None
    """Defaults to ``cluster.kubernetesVersion``."""
    tags: dict[str, str] = Field(default_factory=dict)

    @property
    def autoscaling(self) -> bool:
        return self.maxCount is not None

    @property
    def effective_min_count(self) -> int | None:
        if not self.autoscaling:
            return None
        return self.minCount if self.minCount is not None else 1

    @property
    def effective_count(self) -> int:
        """Initial node count: the fixed count, or the autoscaling lower bound."""
        if self.autoscaling:
            return self.effective_min_count or 0
        return self.count if self.count is not None else 1

    @property
    def effective_os_sku(self) -> str:
        if self.osSku is not None:
            return self.osSku
        return "Windows2022" if self.os == "Windows" else "Ubuntu"

    @property
    def sharing_mode(self) -> Literal["none", "timeSlicing", "mps"]:
        return self.sharing.mode if self.sharing is not None else "none"


class GpuOperatorConfig(StrictModel):
    """``gpuOperator``: NVIDIA's GPU operator (Helm chart ``gpu-operator``) for the cluster's Linux GPU pools."""

    enabled: bool = False
    version: Annotated[str, Field(pattern=r"^v\d+\.\d+\.\d+$")] = DEFAULT_GPU_OPERATOR_VERSION
    namespace: Annotated[str, Field(pattern=r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")] = "gpu-operator"
    migStrategy: Literal["single", "mixed"] = "single"
    """``single``: MIG slices are advertised as ``nvidia.com/gpu``; ``mixed``: as ``nvidia.com/mig-<profile>``."""
    dcgmExporter: bool = True


class BudgetConfig(StrictModel):
    """``budget``: the monthly ceiling the preflight's cost estimate is checked against."""

    monthlyUsd: Annotated[float, Field(gt=0)]
    enforcementLevel: Literal["advisory", "mandatory"] = "advisory"


PolicySetting = PolicyLevel | dict[str, Any]


class StackConfig(StrictModel):
    """Everything under ``azure-gpu-platform:`` in a stack file."""

    environment: Environment
    location: str
    """An Azure region's programmatic name (``westeurope``): ``gpu_catalog/facts/azure_regions.json``."""
    resourceGroup: ResourceGroupConfig = ResourceGroupConfig()
    cluster: ClusterConfig = ClusterConfig()
    gpuPools: list[GpuPoolConfig] = Field(default_factory=list)
    gpuOperator: GpuOperatorConfig = GpuOperatorConfig()
    kaito: KaitoConfig = KaitoConfig()
    """KAITO model workspaces (``components/kaito_config.py``); ``kaito.enabled`` also turns the add-on on."""
    databricks: DatabricksConfig | None = None
    """Azure Databricks workspace and GPU clusters (``components/databricks_config.py``)."""
    budget: BudgetConfig | None = None
    policy: dict[str, PolicySetting] = Field(default_factory=dict)
    """Policy config handed to the policy pack (``{"<policy-name>": level | {"enforcementLevel": ..., ...}}``)."""

    @field_validator("location")
    @classmethod
    def _location(cls, v: str) -> str:
        problem = check_region(v)
        if problem is not None:
            raise ValueError(f"{show(v)} is {problem}")
        return v

    @property
    def resource_group_name(self) -> str:
        return self.resourceGroup.name or f"rg-gpu-{self.environment}"

    @property
    def cluster_name(self) -> str:
        return self.cluster.name or f"aks-gpu-{self.environment}"

    @property
    def kaito_addon(self) -> bool:
        """Whether the cluster runs the KAITO add-on: ``cluster.kaitoAddon`` or ``kaito.enabled``."""
        return kaito_addon_enabled(self.kaito, self.cluster.kaitoAddon)

    @property
    def protect(self) -> bool:
        """Whether stateful resources (cluster, created resource group) are protected."""
        if self.cluster.protect is not None:
            return self.cluster.protect
        return self.environment == "prod"

    @property
    def gpu_floor(self) -> str:
        """The GPU floor, taken from the policy config of ``gpu-size-minimum`` when it names one."""
        setting = self.policy.get("gpu-size-minimum")
        if isinstance(setting, dict) and isinstance(setting.get("minimumSize"), str):
            return setting["minimumSize"]
        return DEFAULT_FLOOR

    def pool_driver(self, pool: GpuPoolConfig) -> Literal["operator", "aks"]:
        """Resolved driver mode of a pool (see :attr:`GpuPoolConfig.driver`)."""
        if pool.driver is not None:
            return pool.driver
        return "operator" if (self.gpuOperator.enabled and pool.os == "Linux") else "aks"

    def pool_kubernetes_version(self, pool: GpuPoolConfig) -> str:
        return pool.orchestratorVersion or self.cluster.kubernetesVersion

    @property
    def operator_installs_driver(self) -> bool:
        """The GPU operator installs driver and toolkit when a pool it manages skips the AKS driver; otherwise it runs
        with ``driver.enabled=false`` and ``toolkit.enabled=false`` on the AKS driver."""
        return any(self.pool_driver(p) == "operator" for p in self.gpuPools if self.operator_manages(p))

    def operator_manages(self, pool: GpuPoolConfig) -> bool:
        """The GPU operator manages every Linux GPU pool of a cluster it runs on (device plugin, labels, MIG)."""
        return self.gpuOperator.enabled and pool.os == "Linux"


# --------------------------------------------------------------------------------------------------- errors


class StackConfigError(pulumi.RunError):
    """The stack configuration is invalid. The message lists every problem, one per line."""

    def __init__(self, problems: Sequence[Problem], stack_file: str) -> None:
        self.problems = list(problems)
        self.stack_file = stack_file
        super().__init__(render_problems(stack_file, self.problems, NAMESPACE))

    @property
    def paths(self) -> list[str]:
        return [p.path for p in self.problems]


def stack_file_name(stack: str | None = None) -> str:
    """The stack file named in messages: ``$AGP_STACK_FILE``, else ``stacks/Pulumi.<stack>.yaml``."""
    override = os.environ.get(STACK_FILE_ENV)
    if override:
        return override
    if stack is None:
        stack = pulumi.get_stack()
    return f"stacks/Pulumi.{stack}.yaml"


def _unwrap(annotation: Any) -> list[Any]:
    """The concrete types inside Optional/Union/Annotated/list/dict, for walking a key path through the models."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        out: list[Any] = []
        for arg in typing.get_args(annotation):
            out.extend(_unwrap(arg))
        return out
    return [annotation]


def _model_at(model: type[BaseModel], loc: Sequence[int | str]) -> type[BaseModel] | None:
    """The model class that owns the key at ``loc`` (all but the last element), or ``None``."""
    current: list[Any] = [model]
    for part in loc:
        nxt: list[Any] = []
        for typ in current:
            origin = typing.get_origin(typ)
            args = typing.get_args(typ)
            if isinstance(part, int) and origin in (list, Sequence):
                nxt.extend(_unwrap(args[0]))
            elif isinstance(part, str) and origin in (dict, Mapping) and len(args) == 2:
                nxt.extend(_unwrap(args[1]))
            elif isinstance(part, str) and isinstance(typ, type) and issubclass(typ, BaseModel):
                field = typ.model_fields.get(part)
                if field is not None:
                    nxt.extend(_unwrap(field.annotation))
        current = nxt
    for typ in current:
        if isinstance(typ, type) and issubclass(typ, BaseModel):
            return typ
    return None


def _model_names() -> set[str]:
    names: set[str] = set()
    todo: list[type] = [StrictModel]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return names


def _clean_loc(err: ErrorDetails) -> list[int | str]:
    """The error's location as keys of the stack file (pydantic adds validator and union-member names)."""
    loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith(("function-", "literal[", "dict[")))]
    # Union members add their type name to the location (e.g. 'TimeSlicingConfig'); drop those.
    model_names = _model_names()
    return [p for p in loc if not (isinstance(p, str) and p in model_names)]


def _error_to_problem(err: ErrorDetails, root: type[BaseModel]) -> Problem:
    loc = _clean_loc(err)
    path = key_path(loc)
    kind = err["type"]
    if kind == "extra_forbidden":
        owner = _model_at(root, loc[:-1])
        allowed = ", ".join(owner.model_fields) if owner is not None else "see the documentation"
        return Problem(path, f"unknown key. Allowed keys here: {allowed}.")
    if kind == "missing":
        return Problem(path, "required key is missing.")
    msg = err["msg"]
    got = err.get("input")
    if kind == "string_type" and isinstance(got, int | float) and not isinstance(got, bool):
        return Problem(path, _number_for_string(got, loc))
    if kind == "string_pattern_mismatch":
        pattern = (err.get("ctx") or {}).get("pattern", "")
        msg = f"{_describe_pattern(str(pattern))}"
    elif msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    return Problem(path, f"{msg}{_got(got, msg)}.".replace("..", "."))


def _got(value: Any, message: str) -> str:
    """`` (got <value>)`` unless the message already shows the value (or it is a whole mapping or list)."""
    if isinstance(value, dict | list) or value is None:
        return ""
    if any(text in message for text in {show(value), repr(value), str(value)} if len(text) > 1):
        return ""
    return f" (got {show(value)})"


def _number_for_string(value: float, loc: Sequence[int | str]) -> str:
    key = str(loc[-1]) if loc else ""
    if isinstance(value, float) and ("version" in key.lower()):
        return (
            f"must be a string, and YAML read {show(value)} as a number: an unquoted 1.30 is the number 1.3 (the "
            f'trailing zero is lost). Quote it: {key}: "{value:.2f}".'
        )
    return f'must be a string, and YAML read {show(value)} as a number. Quote it: {key}: "{value}".'


_PATTERN_TEXT = {
    _K8S_VERSION_RE: "must be a Kubernetes version like '1.36' or '1.36.2' (quote it: 1.30 unquoted is the number 1.3)",
    r"^[a-z][a-z0-9-]{0,15}$": "must be lowercase letters, digits and '-', starting with a letter, ≤16 characters",
    r"^v\d+\.\d+\.\d+$": "must be a chart version like 'v26.7.0'",
    r"^[0-9a-fA-F-]{36}$": "must be an Entra ID object id (a GUID)",
}


def _describe_pattern(pattern: str) -> str:
    return _PATTERN_TEXT.get(pattern, f"must match the pattern {pattern}")


# --------------------------------------------------------------------------------------------------- semantics


def parse_taint(taint: str) -> tuple[str, str | None, str] | None:
    """``key=value:Effect`` → ``(key, value, effect)``; ``None`` when malformed."""
    m = _TAINT_RE.match(taint)
    if not m:
        return None
    return m.group("key"), m.group("value"), m.group("effect")


def azure_pool_name(pool: GpuPoolConfig, driver: str) -> str:
    """The Azure agent-pool name: prefix of the logical name + a stable hash of the create-time fields."""
    immutable = {
        "name": pool.name,
        "vmSize": pool.vmSize.lower(),
        "os": pool.os,
        "migProfile": pool.migProfile,
        "driver": driver,
        "taints": sorted(pool.taints),
        "zones": sorted(pool.zones),
        "spot": pool.spot,
        "maxPods": pool.maxPods,
    }
    digest = hashlib.sha256(json.dumps(immutable, sort_keys=True).encode()).hexdigest()
    if pool.os == "Windows":
        return pool.name[:3] + digest[:3]
    return pool.name[:8] + digest[:4]


def pool_problems(cfg: StackConfig, index: int, pool: GpuPoolConfig) -> list[Problem]:
    """Every cross-field problem of one GPU pool. Also called by ``GpuNodePool`` at construction."""
    at = f"gpuPools[{index}]"
    problems: list[Problem] = []
    windows = pool.os == "Windows"
    facts = pool_facts(cfg, pool)
    operator = operator_facts(cfg)

    if not _POOL_NAME_RE.match(pool.name):
        problems.append(
            Problem(
                f"{at}.name", f"{pool.name!r}: pool names are lowercase letters and digits, starting with a letter."
            )
        )
    if not windows and len(pool.name) > LINUX_POOL_NAME_MAX:
        problems.append(
            Problem(
                f"{at}.name",
                f"{pool.name!r} has {len(pool.name)} characters: AKS limits Linux pool names to {LINUX_POOL_NAME_MAX}. "
                f"Use at most {LINUX_POOL_NAME_MAX}.",
            )
        )

    # GPU size: the same checks and messages as the policy pack.
    if not is_gpu_size(pool.vmSize):
        problems.append(
            Problem(
                f"{at}.vmSize",
                f"{pool.vmSize} is not a GPU size: GPU pools need an N-family size from the catalog, e.g. "
                "Standard_NC4as_T4_v3, Standard_NC24ads_A100_v4 or Standard_ND96isr_H100_v5.",
            )
        )
    else:
        problems.extend(
            Problem(f"{at}.vmSize", f.message) for f in check_gpu_size(pool.vmSize, floor=_usable_floor(cfg))
        )
    mig = check_mig_profile(pool.vmSize, pool.migProfile)
    if mig is not None:
        problems.append(Problem(f"{at}.migProfile", mig.message))
    elif pool.migProfile is not None and pool.os == "Linux" and not cfg.gpuOperator.enabled:
        problems.append(
            Problem(
                f"{at}.migProfile",
                "a MIG pool needs gpuOperator.enabled: true here: AKS installs no NVIDIA device plugin (only its "
                "preview managed-GPU mode does, which API 2025-09-01 lacks), so without the operator's device plugin "
                "no MIG resource is ever advertised and pods that request one stay Pending.",
            )
        )

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
        lo = pool.effective_min_count or 0
        if pool.maxCount is not None and lo > pool.maxCount:
            problems.append(Problem(f"{at}.minCount", f"minCount {lo} is greater than maxCount {pool.maxCount}."))
        problems.extend(_at(at, operator_autoscale_min_count(facts, operator)))
    elif pool.minCount is not None:
        problems.append(
            Problem(f"{at}.minCount", "minCount needs maxCount (autoscaling); for a fixed-size pool use count.")
        )

    # Kubernetes version: creatable today, and within AKS's skew window of the control plane.
    if pool.orchestratorVersion:
        problems.extend(_pool_version_problems(cfg, f"{at}.orchestratorVersion", pool.orchestratorVersion))

    # OS.
    os_sku = pool.effective_os_sku
    if windows and not os_sku.startswith("Windows"):
        problems.append(Problem(f"{at}.osSku", f"{os_sku} is a Linux OS SKU; allowed for Windows: Windows2022."))
    if not windows and os_sku.startswith("Windows"):
        problems.append(
            Problem(f"{at}.osSku", f"{os_sku} is a Windows OS SKU; allowed for Linux: {', '.join(_args(LinuxOsSku))}.")
        )

    # Windows pools; who installs the driver (AKS or the GPU operator, exactly one of them).
    version_key = "orchestratorVersion" if pool.orchestratorVersion else "cluster.kubernetesVersion"
    problems.extend(_at(at, windows_gpu_pool(facts), orchestratorVersion=version_key))
    if windows and pool.migProfile is not None:
        problems.append(Problem(f"{at}.migProfile", "MIG profiles are not supported on Windows GPU pools."))
    problems.extend(_at(at, driver_install(facts, operator)))

    # GPU sharing.
    if pool.sharing is not None:
        at_s = f"{at}.sharing"
        if pool.sharing.timeSlicing is not None and pool.sharing.mps is not None:
            problems.append(
                Problem(
                    at_s,
                    "timeSlicing and mps are mutually exclusive (the device plugin applies one sharing strategy per "
                    "node). Keep one of them.",
                )
            )
        if pool.sharing.mps is not None and cfg.gpuOperator.enabled and cfg.gpuOperator.migStrategy == "mixed":
            problems.append(
                Problem(
                    f"{at_s}.mps",
                    "MPS sharing cannot run with gpuOperator.migStrategy 'mixed': the NVIDIA device plugin refuses "
                    "that combination at start-up (k8s-device-plugin cmd/nvidia-device-plugin/main.go), so the pool "
                    "would advertise no GPUs. Allowed: migStrategy 'single' with MPS, or timeSlicing with 'mixed'.",
                )
            )
        if pool.sharing.mps is not None and pool.migProfile is not None:
            problems.append(
                Problem(
                    f"{at_s}.mps",
                    f"MPS cannot be combined with MIG (migProfile {pool.migProfile}): the NVIDIA device plugin does "
                    "not support MPS on MIG devices. Use timeSlicing, or remove migProfile.",
                )
            )
        if windows:
            problems.append(
                Problem(at_s, "GPU sharing is rendered by the NVIDIA GPU operator, which does not support Windows.")
            )
        elif not cfg.gpuOperator.enabled and pool.sharing.mode != "none":
            problems.append(
                Problem(
                    at_s,
                    "GPU sharing is configured through the NVIDIA GPU operator's device plugin: set "
                    "gpuOperator.enabled: true, or remove sharing.",
                )
            )

    # Taints and labels.
    for j, taint in enumerate(pool.taints):
        if parse_taint(taint) is None:
            problems.append(
                Problem(
                    f"{at}.taints[{j}]",
                    f"{taint!r} is not a taint: use key=value:Effect with Effect NoSchedule, PreferNoSchedule or "
                    f"NoExecute (default {DEFAULT_GPU_TAINT}).",
                )
            )
    for key, value in pool.labels.items():
        path = f"{at}.{key_path(['labels', key])}"
        for problem in (node_label_key_problem(key), label_value_problem(value)):
            if problem is not None:
                problems.append(Problem(path, problem))
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
        taints=tuple(pool.taints),
    )


def operator_facts(cfg: StackConfig) -> rules_aks.GpuOperator | None:
    """The GPU operator as the AKS rules see it: it installs the driver when a pool it manages skips AKS's."""
    if not cfg.gpuOperator.enabled:
        return None
    installs = cfg.operator_installs_driver
    return rules_aks.GpuOperator(driver_enabled=installs, toolkit_enabled=installs)


def _at(at: str, findings: Iterable[Finding], **paths: str) -> list[Problem]:
    """Findings on ``at`` (``gpuPools[1]``) as problems: ``gpuPools[1].<field>``, or ``paths[field]`` when the field
    lives elsewhere in the stack file (a pool's version defaults to ``cluster.kubernetesVersion``)."""
    out: list[Problem] = []
    for f in findings:
        key = paths.get(f.field, f.field)
        out.append(Problem(key if "." in key else f"{at}.{key}" if key else at, f.message))
    return out


MAX_NODE_POOL_SKEW = 3
"""The control plane may be up to three minors ahead of its node pools, never behind (AKS, from Kubernetes 1.28:
MicrosoftDocs/azure-aks-docs articles/aks/supported-kubernetes-versions.md, 'version skew')."""


def _pool_version_problems(cfg: StackConfig, path: str, version: str) -> list[Problem]:
    cluster = cfg.cluster
    problems: list[Problem] = []
    finding = check_kubernetes_version(
        version, today=clock.today(), tier=cluster.skuTier, support_plan=cluster.supportPlan
    )
    if finding is not None:
        problems.append(Problem(path, finding.message))
    pool_minor, cluster_minor = minor_of(version), minor_of(cluster.kubernetesVersion)
    if pool_minor is None or cluster_minor is None:
        return problems
    (pool_major, pool_rest), (cp_major, cp_rest) = minor_tuple(pool_minor), minor_tuple(cluster_minor)
    if (pool_major, pool_rest) > (cp_major, cp_rest):
        problems.append(
            Problem(
                path,
                f"{version} is newer than the control plane (cluster.kubernetesVersion {cluster.kubernetesVersion}): "
                f"AKS never runs node pools ahead of the control plane. Allowed: {cluster_minor} or up to "
                f"{MAX_NODE_POOL_SKEW} minors older.",
            )
        )
    elif pool_major == cp_major and cp_rest - pool_rest > MAX_NODE_POOL_SKEW:
        problems.append(
            Problem(
                path,
                f"{version} is {cp_rest - pool_rest} minors behind the control plane ({cluster.kubernetesVersion}): "
                f"AKS allows node pools at most {MAX_NODE_POOL_SKEW} minors behind. Allowed: "
                f"{cp_major}.{cp_rest - MAX_NODE_POOL_SKEW} to {cluster_minor}.",
            )
        )
    return problems


def _usable_floor(cfg: StackConfig) -> str:
    # An unknown floor name is reported on its own key (policy.gpu-size-minimum.minimumSize); check pools against
    # the default floor meanwhile instead of failing.
    return cfg.gpu_floor if cfg.gpu_floor in default_catalog() else DEFAULT_FLOOR


def _args(literal: Any) -> tuple[str, ...]:
    return typing.get_args(literal)


def cluster_problems(cfg: StackConfig) -> list[Problem]:
    """Cross-field problems of the cluster section. Also called by ``AksGpuCluster`` at construction."""
    problems: list[Problem] = []
    cluster = cfg.cluster

    sys_size = cluster.systemPool.vmSize
    if is_gpu_size(sys_size):
        problems.append(
            Problem(
                "cluster.systemPool.vmSize",
                f"{sys_size} is a GPU size: the system pool runs cluster add-ons only; GPU capacity goes in gpuPools. "
                "Use a general-purpose size such as Standard_D4ds_v5.",
            )
        )
    if not re.match(r"^Standard_[A-Za-z0-9_]+$", sys_size):
        problems.append(Problem("cluster.systemPool.vmSize", f"{sys_size!r} is not an Azure VM size name."))

    finding = check_kubernetes_version(
        cluster.kubernetesVersion, today=clock.today(), tier=cluster.skuTier, support_plan=cluster.supportPlan
    )
    if finding is not None:
        problems.append(Problem("cluster.kubernetesVersion", finding.message))
    if cluster.supportPlan == LTS_SUPPORT_PLAN and cluster.skuTier != LTS_TIER:
        problems.append(
            Problem(
                "cluster.supportPlan",
                f"{LTS_SUPPORT_PLAN} (long-term support) is only available on the {LTS_TIER} tier, and skuTier is "
                f"{cluster.skuTier}. Set skuTier: {LTS_TIER}, or supportPlan: {DEFAULT_SUPPORT_PLAN}.",
            )
        )
    facts = rules_aks.Cluster(
        tier=cluster.skuTier,
        cost_analysis=cluster.costAnalysis,
        kaito_addon=cfg.kaito_addon,
        oidc_issuer=cluster.oidcIssuer,
    )
    for finding in [*cost_analysis_tier(facts), *kaito_requires_oidc(facts)]:
        key = {"tier": "skuTier"}.get(finding.field, finding.field)
        problems.append(Problem(f"cluster.{key}", finding.message))
    if cluster.workloadIdentity and not (cluster.oidcIssuer or cfg.kaito_addon):
        problems.append(
            Problem("cluster.workloadIdentity", "workload identity needs the OIDC issuer: set oidcIssuer: true.")
        )
    if cfg.resourceGroup.existing and cfg.resourceGroup.name is None:
        problems.append(Problem("resourceGroup.name", "an existing resource group must be named."))
    return problems


def semantic_problems(cfg: StackConfig) -> list[Problem]:
    """Cross-field problems of a structurally valid config (catalog rules and the platform's rules)."""
    problems = cluster_problems(cfg)
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
        azure_name = azure_pool_name(pool, cfg.pool_driver(pool))
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
    for check in EXTRA_CHECKS:
        problems.extend(check(cfg))
    return problems


def _operator_platform_problems(cfg: StackConfig) -> list[Problem]:
    """The pinned GPU operator release is validated (NVIDIA's matrix) for every managed pool's Kubernetes and OS."""
    if not cfg.gpuOperator.enabled:
        return []
    facts = load_operator_facts()
    version = cfg.gpuOperator.version
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
        if all(p.message != text for p in problems):
            problems.append(Problem(key, text))
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


EXTRA_CHECKS: list[Callable[[StackConfig], list[Problem]]] = [_kaito_problems, _databricks_problems]
"""Further cross-field checks registered by other config sections (e.g. KAITO, Databricks)."""


# --------------------------------------------------------------------------------------------------- loading


def _merge_same_path(problems: list[Problem]) -> list[Problem]:
    """A union (e.g. a level or a dict) reports one error per alternative: fold them into one line per key path."""
    merged: dict[str, list[str]] = {}
    for p in problems:
        msgs = merged.setdefault(p.path, [])
        if p.message not in msgs:
            msgs.append(p.message)
    out: list[Problem] = []
    for path, msgs in merged.items():
        if len(msgs) == 1:
            out.append(Problem(path, msgs[0]))
            continue
        got = re.search(r" \(got .*\)\.$", msgs[-1])
        parts = [re.sub(r"( \(got .*\))?\.$", "", m) for m in msgs]
        out.append(Problem(path, "; or ".join(parts) + (got.group(0) if got else ".")))
    return out


def validate_stack_config(data: Mapping[str, Any], *, stack_file: str, extra: Sequence[Problem] = ()) -> StackConfig:
    """Validate a plain dict (keys without the namespace) and return the model, or raise :class:`StackConfigError`.

    Every problem of the file is reported in one run: when some keys have the wrong shape (``budget.monthlyUsd: -1``),
    the cross-field rules still run on the rest (see :func:`_checked_without`), so a budget typo does not hide a pool
    that AKS would refuse. ``extra`` are problems found elsewhere in the same file (keys outside the namespace).
    Pure: no Pulumi engine needed (the preflight and the tests call it).
    """
    try:
        cfg = StackConfig.model_validate(dict(data))
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        problems = _merge_same_path([_error_to_problem(e, StackConfig) for e in errors])
        problems += _checked_without(data, errors, {p.path for p in problems})
        raise StackConfigError([*extra, *problems], stack_file) from None
    problems = [*extra, *semantic_problems(cfg)]
    if problems:
        raise StackConfigError(problems, stack_file)
    return cfg


_PLACEHOLDERS: dict[str, Any] = {"environment": "dev", "location": "westeurope"}
"""Stand-ins for a required top-level key that is missing or malformed, only so the other rules can run."""


def _checked_without(data: Mapping[str, Any], errors: Sequence[ErrorDetails], reported: set[str]) -> list[Problem]:
    """The cross-field problems of the config with every malformed key left out (optional keys fall back to their
    defaults; a required top-level key gets a stand-in), except those on a section that already has a problem:
    rules there would judge the stand-ins. Empty when the config cannot be made structurally valid that way."""
    repaired: Any = copy.deepcopy(dict(data))
    broken: set[str] = set()
    for _ in range(4):
        for err in errors:
            loc = _clean_loc(err)
            removed = _drop(repaired, loc, missing=err["type"] == "missing")
            if removed is None:
                return []
            broken.add(removed)
            broken.add(key_path(loc[:2]) if len(loc) > 1 and isinstance(loc[1], int) else key_path(loc[:1]))
        try:
            cfg = StackConfig.model_validate(repaired)
        except ValidationError as again:
            errors = again.errors(include_url=False)
            continue
        return [
            p
            for p in semantic_problems(cfg)
            if p.path not in reported and not any(_under(p.path, section) for section in broken)
        ]
    return []


def _under(path: str, section: str) -> bool:
    return path == section or path.startswith((f"{section}.", f"{section}["))


def _drop(data: Any, loc: Sequence[int | str], *, missing: bool) -> str | None:
    """Leave out the malformed value at ``loc`` (for a missing key, the section that lacks it; for a bad list item,
    the whole list, so no index shifts), or give a required top-level key its stand-in. The path left out, or
    ``None`` when nothing can be."""
    target = list(loc[:-1] if missing else loc)
    while target and isinstance(target[-1], int):
        target.pop()
    if not target or not isinstance(data, dict):
        return None
    if len(target) == 1 and target[0] in _PLACEHOLDERS:
        data[target[0]] = _PLACEHOLDERS[str(target[0])]
        return key_path(target)
    parent = data
    for part in target[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return key_path(target)  # already left out with an enclosing value
    if isinstance(parent, dict):
        parent.pop(target[-1], None)
    return key_path(target)


def config_from_stack_yaml(config_section: Mapping[str, Any]) -> dict[str, Any]:
    """The ``config:`` section of a stack file → the dict :func:`validate_stack_config` takes.

    Keys of other namespaces (``azure-native:location``) are dropped; ``azure-gpu-platform:<key>`` keeps ``<key>``.
    """
    prefix = f"{NAMESPACE}:"
    return {k[len(prefix) :]: v for k, v in config_section.items() if k.startswith(prefix)}


def _config_keys() -> set[str]:
    """Every config key the engine (or the mocks) hand the program, of every namespace."""
    from pulumi.runtime import config as runtime_config

    return set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())


def decode_config_value(value: Any) -> Any:
    """A config value as the language host passes it (a string) → what the models validate: objects, lists and
    booleans JSON-decoded; any other string stays a string (``"1.33"`` must not become a float)."""
    if not isinstance(value, str):
        return value
    try:
        decoded = json.loads(value)
    except json.JSONDecodeError:
        return value
    return decoded if isinstance(decoded, dict | list | bool) else value


def _raw_config(keys: Iterable[str]) -> dict[str, Any]:
    """Every ``azure-gpu-platform:*`` value among ``keys``, decoded by :func:`decode_config_value`."""
    from pulumi.runtime import config as runtime_config

    prefix = f"{NAMESPACE}:"
    return {
        key[len(prefix) :]: decode_config_value(runtime_config.get_config(key))
        for key in sorted(k for k in keys if k.startswith(prefix))
    }


def load_stack_config(stack_file: str | None = None) -> StackConfig:
    """Read ``pulumi.Config("azure-gpu-platform")`` and validate it. Call before registering any resource.

    Keys under a misspelled namespace are refused with the others; keys nothing reads are warned about
    (:mod:`components.config_keys`).
    """
    pulumi.Config(NAMESPACE)  # the namespace this program reads (keeps `pulumi config` tooling consistent)
    where = stack_file or stack_file_name()
    keys = _config_keys()
    raw = _raw_config(keys)
    problems, warnings = foreign_key_findings(
        keys, project=NAMESPACE, project_keys=StackConfig.model_fields, referenced=referenced_keys(raw)
    )
    for warning in warnings:
        pulumi.log.warn(f"{where}: {warning}")
    return validate_stack_config(raw, stack_file=where, extra=problems)


__all__ = [
    "DEFAULT_GPU_OPERATOR_VERSION",
    "DEFAULT_GPU_TAINT",
    "EXTRA_CHECKS",
    "MIG_PROFILES",
    "NAMESPACE",
    "BudgetConfig",
    "ClusterConfig",
    "GpuOperatorConfig",
    "GpuPoolConfig",
    "MpsConfig",
    "Problem",
    "ResourceGroupConfig",
    "SharingConfig",
    "StackConfig",
    "StackConfigError",
    "SystemPoolConfig",
    "TimeSlicingConfig",
    "azure_pool_name",
    "cluster_problems",
    "config_from_stack_yaml",
    "decode_config_value",
    "key_path",
    "load_stack_config",
    "parse_taint",
    "pool_problems",
    "semantic_problems",
    "stack_file_name",
    "validate_stack_config",
]
