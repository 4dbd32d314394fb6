"""Reading resource properties as the engine sends them, and finding every GPU size in any resource.

The engine hands a policy the resource's inputs (Analyze) or outputs (AnalyzeStack) with camelCase wire names and
numbers as floats, wrapped in pulumi_policy's unknown-checking proxy: touching a value that is unknown during a
preview raises ``UnknownValueError`` and aborts the whole policy. The policies here instead unwrap the proxy
(``plain``), check every *known* value, and collect the paths of the unknown ones; :class:`Review` then reports the
unknown paths explicitly (see its docstring). So one computed field never hides a violation in another.

Sizes are found wherever they occur (raw resources count, not only ours): every field of every resource type in
``gpu_catalog/facts/vm_size_fields.json`` (read by :mod:`rules.size_fields`): AKS pools of both types and their inline
profiles, VMs, scale sets, Azure ML compute, Batch pools, … in azure-native and the classic ``azure`` provider,
Databricks ``nodeTypeId`` / ``driverNodeTypeId``, KAITO Workspace ``resource.instanceType``, and every size a
Karpenter NodePool's requirements allow (``policies/_karpenter.py``; family ``aks``: NAP creates AKS nodes).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from types import FrameType
from typing import Any, Final, Protocol

from pulumi_policy import ReportViolation, ResourceValidationArgs, StackValidationArgs
from pulumi_policy.policy import _PolicyAnalyzerServicer
from pulumi_policy.proxy import (
    UNKNOWN_ARCHIVE_VALUE,
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_ASSET_VALUE,
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
    UnknownValueError,
    _DictProxy,
    _ListProxy,
)

from gpu_catalog import clock, is_gpu_size
from rules.resource_types import (
    is_agent_pool,
    is_karpenter_node_pool,
    is_managed_cluster,
)
from rules.size_fields import condition_holds, find_values, join_path, size_family, size_table
from rules.sizes import SizeFinding as Finding

_SENTINELS: Final = frozenset(
    {
        UNKNOWN_BOOLEAN_VALUE,
        UNKNOWN_NUMBER_VALUE,
        UNKNOWN_STRING_VALUE,
        UNKNOWN_ARRAY_VALUE,
        UNKNOWN_ASSET_VALUE,
        UNKNOWN_ARCHIVE_VALUE,
        UNKNOWN_OBJECT_VALUE,
    }
)


AGENT_POOL: Final = "azure-native:containerservice:AgentPool"


def _pool_size_paths() -> tuple[str, ...]:
    entry = size_table().for_type(AGENT_POOL)
    if entry is None:
        raise RuntimeError(f"the size table has no {AGENT_POOL} entry")
    return tuple(spec.path for spec in entry.sizes)


POOL_SIZES: Final = _pool_size_paths()
"""Every size field of an AKS pool, from the size table's AgentPool entry (``vmSize`` and a VirtualMachines pool's
``virtualMachinesProfile.scale.manual[].size``): what :meth:`Pool.size_values` reads."""


class _Unknown:
    """A value that is not known during a preview (computed from another resource's output)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN: Final = _Unknown()


def plain(value: Any) -> Any:
    """The engine's values without pulumi_policy's proxies; unknown sentinels become :data:`UNKNOWN`.

    The proxies are read through their documented ``__target`` escape hatch, so reading never raises. The common
    types are dispatched on their exact class (no ABC ``isinstance`` per node); anything else falls back to the
    ``Mapping`` / ``Sequence`` protocol. Policies read a resource through :func:`props_of`, which converts it once.
    """
    kind = type(value)
    if kind is str:
        return UNKNOWN if value in _SENTINELS else value
    if kind is _DictProxy:
        return {k: plain(v) for k, v in value["__target"].items()}
    if kind is _ListProxy:
        return [plain(v) for v in value["__target"]]
    if kind is float or kind is bool or kind is int or value is None:
        return value
    if kind is dict:
        return {k: plain(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [plain(v) for v in value]
    if isinstance(value, str):
        return UNKNOWN if value in _SENTINELS else value
    if isinstance(value, Mapping):
        target = value if isinstance(value, dict) else value["__target"]
        return {k: plain(v) for k, v in target.items()}
    if isinstance(value, Sequence):
        target = value if isinstance(value, list | tuple) else value["__target"]  # type: ignore[call-overload]
        return [plain(v) for v in target]
    return value


class _Viewed(Protocol):
    """What :func:`props_of` reads: ``ResourceValidationArgs`` (Analyze) or ``PolicyResource`` (AnalyzeStack)."""

    @property
    def props(self) -> Any: ...
    @property
    def urn(self) -> str: ...


class _Typed(_Viewed, Protocol):
    @property
    def resource_type(self) -> str: ...


_REQUEST_CODES: Final = frozenset(
    {_PolicyAnalyzerServicer.Analyze.__code__, _PolicyAnalyzerServicer.AnalyzeStack.__code__}
)


class _Views(threading.local):
    """What has been derived from the request being analysed on this thread (gRPC serves calls on a thread pool)."""

    request: Any = None
    """The request seen last (kept alive until the next, so its identity is never reused)."""
    views: dict[str, dict[Any, Any]] | None = None
    active: dict[str, dict[Any, Any]] | None = None
    """The views of the request whose policy is running now (set by :func:`shared_view`, else ``None``)."""


_views = _Views()


def _request_frame() -> FrameType | None:
    """pulumi_policy's ``Analyze`` / ``AnalyzeStack`` frame serving this thread's request, or ``None``.

    pulumi_policy converts and proxies a request's properties once *per policy* and gives a policy no handle on the
    request; its ``Analyze`` / ``AnalyzeStack`` frame (a few frames up) holds it as ``request``. That frame is the
    same for every policy of one call. Outside those calls (a test calling ``validate`` directly) there is
    none and nothing is shared.
    """
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code in _REQUEST_CODES:
            return frame
        frame = frame.f_back
    return None


def _enter(frame: FrameType | None) -> dict[str, dict[Any, Any]] | None:
    """The views of the request ``frame`` serves (new ones when it is not the request seen last on this thread);
    ``None`` when there is no request or its URNs repeat (its views would be ambiguous)."""
    request = None if frame is None else frame.f_locals.get("request")
    if request is None:
        return None
    if _views.request is not request:
        _views.request = request
        stack = getattr(request, "resources", None)
        unique = stack is None or len({r.urn for r in stack}) == len(stack)
        _views.views = {} if unique else None
    return _views.views


Validate = Callable[[Any, Any], Any]


def shared_view(validate: Validate) -> Validate:
    """``validate`` run with the views of the request being served: the request is found once per policy run (not
    once per value read), and what the policy derives is shared with the other policies of that request."""

    def with_views(args: Any, report: Any) -> Any:
        previous = _views.active
        _views.active = _enter(_request_frame())
        try:
            return validate(args, report)
        finally:
            _views.active = previous

    return with_views


def _memo(resource: _Viewed) -> dict[Any, Any] | None:
    """What has been derived from ``resource`` during the request being served: its plain view, its size fields, its
    pools — each computed once per request. ``None`` outside a request, or when the request's URNs repeat."""
    views = _views.active
    if views is None:
        return None
    urn = resource.urn
    memo = views.get(urn)
    if memo is None:
        memo = views[urn] = {}
    return memo


def props_of(resource: _Viewed) -> Any:
    """The :func:`plain` view of a resource's properties, converted once per request and shared by every policy.

    Within one ``Analyze`` call every policy sees the same request, so the first policy that reads the resource
    converts it and the others reuse that view; within one ``AnalyzeStack`` call each resource (by URN) is converted
    once, not once per stack policy. A request whose URNs repeat shares nothing (its views would be ambiguous). The
    view is read-only by convention: no policy writes into it. Outside a pack request it is converted every time.
    """
    return _props(resource, _memo(resource))


def _props(resource: _Viewed, memo: dict[Any, Any] | None) -> Any:
    if memo is None:
        return plain(resource.props)
    view = memo.get(_PROPS, _MISSING)
    if view is _MISSING:
        view = memo[_PROPS] = plain(resource.props)
    return view


_PROPS: Final = "props"
_MISSING: Final = object()


def get(obj: Any, *path: str | int) -> Any:
    """The value at ``path`` in a :func:`plain` value: ``None`` when absent, :data:`UNKNOWN` when unknown."""
    for key in path:
        if obj is UNKNOWN:
            return UNKNOWN
        if isinstance(key, int):
            if not isinstance(obj, list) or key >= len(obj):
                return None
            obj = obj[key]
        else:
            if not isinstance(obj, dict):
                return None
            obj = obj.get(key)
        if obj is None:
            return None
    return obj


def as_bool(value: Any) -> bool | None:
    """Booleans as Helm values and Spark conf carry them (``true``/``"true"``); ``None`` when not a boolean."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


@dataclass(frozen=True, slots=True)
class SizeField:
    """One place a VM size is named: the field path and its value (a string, or :data:`UNKNOWN`)."""

    path: str
    value: str | _Unknown


@dataclass(frozen=True, slots=True)
class Pool:
    """An AKS node pool: a standalone ``AgentPool`` or one entry of ``ManagedCluster.agentPoolProfiles``."""

    prefix: str
    """Path of the pool inside the resource: ``""`` for an AgentPool, ``agentPoolProfiles[i]`` for a profile."""
    data: dict[str, Any]
    standalone: bool
    _sizes: tuple[tuple[str, Any], ...] | None = dataclass_field(default=None, init=False, compare=False, repr=False)

    def path(self, *keys: str | int) -> str:
        return join_path(self.prefix, *keys)

    def get(self, *keys: str | int) -> Any:
        return get(self.data, *keys)

    @property
    def name_key(self) -> str:
        return "agentPoolName" if self.standalone else "name"

    @property
    def name(self) -> Any:
        return self.get(self.name_key)

    def size_values(self) -> list[tuple[str, Any]]:
        """The pool's VM sizes with their paths: ``vmSize`` (VirtualMachineScaleSets pools) and each
        ``virtualMachinesProfile.scale.manual[].size`` (VirtualMachines pools); unknown ones as :data:`UNKNOWN`."""
        if self._sizes is None:  # read once per pool (the pool is shared by the policies of one request)
            out: list[tuple[str, Any]] = []
            for spec in POOL_SIZES:
                for path, value in find_values(self.data, spec, is_unknown):
                    if isinstance(value, str) or value is UNKNOWN:
                        out.append((self.path(path), value))
            object.__setattr__(self, "_sizes", tuple(out))
        return list(self._sizes or ())

    @property
    def size_label(self) -> str:
        """How messages name the pool's size(s): ``vmSize``, or the VirtualMachines pool's sizes joined."""
        manual = [v for path, v in self.size_values() if isinstance(v, str) and path.endswith(".size")]
        return ", ".join(manual) if manual and self.get("vmSize") is None else str(self.get("vmSize"))

    def label(self, resource_name: str) -> str:
        """How messages name the pool: the pool name when known, else the resource and the path."""
        name = self.name
        if isinstance(name, str):
            return f"node pool '{name}'"
        return f"node pool {self.prefix or resource_name}"


def agent_pools(resource_type: str, props: Any) -> tuple[list[Pool], list[str]]:
    """The AKS node pools a resource defines, and the paths that are unknown (e.g. the whole profiles list)."""
    if is_agent_pool(resource_type):
        return [Pool("", props if isinstance(props, dict) else {}, standalone=True)], []
    if is_managed_cluster(resource_type):
        profiles = get(props, "agentPoolProfiles")
        if profiles is UNKNOWN:
            return [], ["agentPoolProfiles"]
        pools: list[Pool] = []
        unknown: list[str] = []
        for i, entry in enumerate(profiles or []):
            if entry is UNKNOWN:
                unknown.append(join_path("agentPoolProfiles", i))
            elif isinstance(entry, dict):
                pools.append(Pool(join_path("agentPoolProfiles", i), entry, standalone=False))
        return pools, unknown
    return [], []


def is_unknown(value: Any) -> bool:
    """Whether a :func:`plain` value is :data:`UNKNOWN` (for ``rules`` readers that take the test as a parameter)."""
    return value is UNKNOWN


def size_fields(
    resource_type: str, props: Any, *, families: Collection[str] | None = None
) -> tuple[list[SizeField], list[str]]:
    """Every VM size a resource names (absent fields skipped), plus the paths that are unknown above a size field.

    ``families`` limits the search to resources of those families; the type's entry in the size table says which
    fields to read and when (``rules.size_fields``).
    """
    family = size_family(resource_type)
    if family is None or (families is not None and family not in families):
        return [], []
    if is_karpenter_node_pool(resource_type):  # no size field: the sizes its requirements admit
        from ._karpenter import nodepool_size_fields

        return nodepool_size_fields(props)
    entry = size_table().for_type(resource_type)
    if entry is None:
        return [], []
    fields: list[SizeField] = []
    unknown: list[str] = []
    for spec in entry.sizes:
        applies = True
        for cond_path, allowed in spec.when:
            found = list(find_values(props, cond_path, is_unknown))
            if any(value is UNKNOWN for _, value in found):
                unknown.extend(path for path, value in found if value is UNKNOWN)
                applies = False
            elif not any(condition_holds(value, allowed) for _, value in found):
                applies = False
        if not applies:
            continue
        for path, value in find_values(props, spec.path, is_unknown):
            if value is UNKNOWN and not path.endswith(spec.path.rsplit(".", 1)[-1]):
                unknown.append(path)
            elif isinstance(value, str) or value is UNKNOWN:
                fields.append(SizeField(path, value))
    return fields, unknown


class Review:
    """One policy run over one resource (or the stack): reports violations, then states what could not be checked.

    Unknown values (previews): every known value is checked first and its violations reported. If any checked
    field was unknown, :meth:`finish` then raises pulumi_policy's ``UnknownValueError`` naming every unknown
    field, so the SDK adds its standard *advisory* diagnostic "can't run policy '<name>' ... during preview:
    <fields> ..." — visible in the preview output, never blocking it, and never a silent pass. At
    ``pulumi up`` the values are known and the policy runs at its configured level.

    Values that are simply not there to check (e.g. a KAITO preset newer than the preset table) are recorded with
    :meth:`not_checked` and reported through ``args.not_applicable(reason)`` when nothing else was reported.
    """

    def __init__(
        self, report: ReportViolation, args: ResourceValidationArgs | StackValidationArgs | None = None
    ) -> None:
        self._report = report
        self._args = args
        self.violations: list[str] = []
        self.unknown: list[str] = []
        self.unchecked: list[str] = []

    def violation(self, message: str, urn: str | None = None) -> None:
        self.violations.append(message)
        self._report(message, urn)

    def unknown_field(self, path: str) -> None:
        if path not in self.unknown:
            self.unknown.append(path)

    def not_checked(self, reason: str) -> None:
        self.unchecked.append(reason)

    def finish(self) -> None:
        if self.unknown:
            error = UnknownValueError(UNKNOWN_STRING_VALUE, [self.unknown[0]])
            error.message = (
                f"{', '.join(self.unknown)} can't be known during preview and "
                f"{'were' if len(self.unknown) > 1 else 'was'} not checked (every known value was); the check runs "
                "again when `pulumi up` knows the value"
            )
            raise error
        if self.unchecked and not self.violations and self._args is not None:
            self._args.not_applicable("; ".join(self.unchecked))


def is_gpu_pool(pool: Pool, review: Review) -> bool:
    """Whether the pool has a GPU size (``vmSize`` or, in a VirtualMachines pool, any manual size); an unknown size
    is recorded on ``review`` and counts as not (yet) GPU."""
    gpu = False
    for path, size in pool.size_values():
        if size is UNKNOWN:
            review.unknown_field(path)
        elif is_gpu_size(size):
            gpu = True
    return gpu and not any(size is UNKNOWN for _, size in pool.size_values())


def pools_of(resource: _Typed, review: Review) -> list[Pool]:
    """The node pools of an AgentPool / ManagedCluster (type checked before any conversion); unknown profile
    entries are recorded on ``review``."""
    if not (is_agent_pool(resource.resource_type) or is_managed_cluster(resource.resource_type)):
        return []
    memo = _memo(resource)
    found = None if memo is None else memo.get(_POOLS)
    if found is None:
        found = agent_pools(resource.resource_type, _props(resource, memo))
        if memo is not None:
            memo[_POOLS] = found
    pools, unknown = found
    for path in unknown:
        review.unknown_field(path)
    return list(pools)


_POOLS: Final = "pools"


def iter_known(fields: list[SizeField], review: Review) -> Iterator[SizeField]:
    """The fields whose value is known; the unknown ones are recorded on ``review``."""
    for field in fields:
        if field.value is UNKNOWN:
            review.unknown_field(field.path)
        else:
            yield field


_SIZES: Final = "sizes"

_CHECK_CACHE_MAX: Final = 4096
"""Distinct (size, parameters, day) answers a :func:`per_size` check keeps (sizes come from user input: bounded)."""


def per_size(check: Callable[..., Finding | None]) -> Callable[..., Finding | None]:
    """``check(size, *params)`` (a pure catalog rule) answered once per size as written, parameters and day: the pack
    asks the same few sizes of thousands of resources. The day (``gpu_catalog.clock.today``) is part of the key
    because retirements and the sizes a message suggests depend on it."""
    answers: dict[tuple[Any, ...], Finding | None] = {}

    def cached(size: str, *params: Any) -> Finding | None:
        key = (size, params, clock.today())
        if key in answers:
            return answers[key]
        if len(answers) >= _CHECK_CACHE_MAX:
            answers.clear()
        found = answers[key] = check(size, *params)
        return found

    return cached


def review_sizes(
    resource: _Typed,
    report: ReportViolation,
    check: Callable[[str], Finding | None],
    *,
    families: Collection[str] | None = None,
) -> None:
    """Run one pure catalog check on every size a resource names; unknown sizes are stated, not passed.

    ``families`` (:func:`policies._scope.configured_families`) limits the rule to resources of those families; a
    resource of no size family is passed over before its properties are converted. A Karpenter NodePool is checked
    only when it explicitly admits GPUs, with one violation for all the sizes it admits that the check refuses
    (:func:`policies._karpenter.review_nodepool_sizes`)."""
    resource_type = resource.resource_type
    family = size_family(resource_type)
    if family is None or (families is not None and family not in families):
        return
    review = Review(report)
    memo = _memo(resource)
    if is_karpenter_node_pool(resource_type):
        from ._karpenter import review_nodepool_sizes  # one violation per NodePool (policies/_karpenter.py)

        review_nodepool_sizes(_props(resource, memo), review, check)
        review.finish()
        return
    key = (_SIZES, families)
    found = None if memo is None else memo.get(key)
    if found is None:
        found = size_fields(resource_type, _props(resource, memo), families=families)
        if memo is not None:
            memo[key] = found
    fields, unknown = found
    for path in unknown:
        review.unknown_field(path)
    for field in iter_known(fields, review):
        finding = check(str(field.value))
        if finding is not None:
            review.violation(f"{field.path}: {finding.message}")
    review.finish()
