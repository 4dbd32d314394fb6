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

import threading
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import date
from types import CodeType
from typing import Any, Final, Protocol, TypeVar

from pulumi_policy import ReportViolation
from pulumi_policy.policy import _PolicyAnalyzerServicer

from gpu_catalog import clock, is_gpu_size
from rules.monitoring import POOL_NODE_LABEL
from rules.resource_types import (
    is_agent_pool,
    is_karpenter_node_pool,
    is_managed_cluster,
)
from rules.size_fields import condition_holds, find_values, join_path, size_family, size_table
from rules.sizes import SizeFinding
from rules.wire_pools import aks_pools

from ._karpenter import nodepool_size_fields, review_nodepool_sizes
from ._values import UNKNOWN, Review, SizeField, as_bool, get, is_unknown, plain

__all__ = [
    "AGENT_POOL",
    "POOL_SIZES",
    "UNKNOWN",
    "Pool",
    "Review",
    "SizeField",
    "agent_pools",
    "as_bool",
    "derived",
    "get",
    "is_gpu_pool",
    "is_unknown",
    "iter_known",
    "join_path",
    "per_size",
    "plain",
    "pools_of",
    "props_of",
    "read_pools",
    "request_today",
    "resource_ref",
    "review_sizes",
    "shared_reading",
    "shared_view",
    "size_fields",
]

AGENT_POOL: Final = "azure-native:containerservice:AgentPool"


def _pool_size_paths() -> tuple[str, ...]:
    entry = size_table().for_type(AGENT_POOL)
    if entry is None:
        raise RuntimeError(f"the size table has no {AGENT_POOL} entry")
    return tuple(spec.path for spec in entry.sizes)


POOL_SIZES: Final = _pool_size_paths()
"""Every size field of an AKS pool, from the size table's AgentPool entry (``vmSize`` and a VirtualMachines pool's
``virtualMachinesProfile.scale.manual[].size``): what :meth:`Pool.size_values` reads."""


class _Viewed(Protocol):
    """What :func:`props_of` reads: ``ResourceValidationArgs`` (Analyze) or ``PolicyResource`` (AnalyzeStack)."""

    @property
    def props(self) -> Any: ...
    @property
    def urn(self) -> str: ...


class _Typed(_Viewed, Protocol):
    @property
    def resource_type(self) -> str: ...


class _Named(_Typed, Protocol):
    @property
    def name(self) -> str: ...


class _Views(threading.local):
    """What has been derived from the request being analysed on this thread (gRPC serves calls on a thread pool)."""

    response: Any = None
    """The response of the request seen last (kept alive until the next, so its identity is never reused)."""
    views: dict[Any, Any] | None = None
    """That request's views: a memo per resource URN, and the shared readings."""
    active: dict[Any, Any] | None = None
    """The views of the request whose policy is running now (set by :func:`shared_view`, else ``None``)."""
    day: date | None = None
    """The day of the request seen last: the clock is read once, when the request is first seen (issue 39)."""
    active_day: date | None = None
    """The day of the request whose policy is running now (``None`` outside a request)."""


_views = _Views()


def _report_code() -> tuple[CodeType, int]:
    """The code of the SDK's ``report_violation`` closure and the index of its ``response`` cell."""
    for const in _PolicyAnalyzerServicer._create_report_violation.__code__.co_consts:
        if isinstance(const, CodeType) and "response" in const.co_freevars:
            return const, const.co_freevars.index("response")
    raise RuntimeError("pulumi_policy's report_violation no longer closes over the response")


_REPORT, _RESPONSE_CELL = _report_code()


def _served_response(report: Any) -> Any:
    """The response of the request a policy is serving: the SDK's ``report_violation`` closes over it, one response
    per ``Analyze`` / ``AnalyzeStack`` call, shared by every policy of that call. ``None`` for any other callback (a
    test calling ``validate`` directly): nothing is shared."""
    if getattr(report, "__code__", None) is not _REPORT:
        return None
    return report.__closure__[_RESPONSE_CELL].cell_contents


def _request_views(args: Any, report: Any) -> tuple[dict[Any, Any] | None, date | None]:
    """The views of the request ``report`` serves (new ones when its response is not the one seen last on this
    thread) and the request's day; ``(None, None)`` outside a request; no views when an ``AnalyzeStack`` request's
    URNs repeat (its views would be ambiguous).

    pulumi_policy converts and proxies a request's properties once *per policy* and gives a policy no handle on the
    request. Its ``report_violation`` closes over the call's response, the same object for every policy of one call
    and kept alive here until the next, so a later call's response is never the same object. A stack policy's
    ``args.resources`` are the request's resources, so their URNs are checked once per request. The day is read from
    the clock here, once per request, and every policy of the request is given it (:func:`request_today`)."""
    response = _served_response(report)
    if response is None:
        return None, None
    if response is _views.response:
        return _views.views, _views.day
    _views.response = response
    _views.day = clock.today()
    stack = getattr(args, "resources", None)
    unique = stack is None or len({r.urn for r in stack}) == len(stack)
    views = _views.views = {} if unique else None
    return views, _views.day


def request_today() -> date:
    """The day of the pack request being served: read from the clock once per ``Analyze`` / ``AnalyzeStack`` request
    and passed to every policy of it (:func:`gpu_catalog.clock.today`, which honours ``AGP_TODAY``); outside a request
    (a test calling ``validate`` directly), the clock's day."""
    day = _views.active_day
    return day if day is not None else clock.today()


Validate = Callable[[Any, Any], Any]


def shared_view(
    validate: Validate,
    applies_to: Callable[[str], bool] | None = None,
    report_for: Callable[[Any, Any], Any] | None = None,
) -> Validate:
    """``validate`` run with the views of the request being served: the request is found once per policy run (not
    once per value read), and what the policy derives is shared with the other policies of that request.

    ``applies_to`` (a resource policy's types): a resource of another type is passed over before anything else runs
    (no lookup, no conversion); the answer is kept per type token. ``report_for(args, report)``: the callback the
    policy reports through instead of the SDK's (the policy's exemptions, ``policies/_exemptions.py``); the views
    are still found through the SDK's."""
    gate: dict[str, bool] = {}

    def with_views(args: Any, report: Any) -> Any:
        if applies_to is not None:
            resource_type = args.resource_type
            applies = gate.get(resource_type)
            if applies is None:
                if len(gate) >= _GATE_MAX:
                    gate.clear()
                applies = gate[resource_type] = applies_to(resource_type)
            if not applies:
                return None
        previous = _views.active, _views.active_day
        _views.active, _views.active_day = _request_views(args, report)
        try:
            return validate(args, report if report_for is None else report_for(args, report))
        finally:
            _views.active, _views.active_day = previous

    return with_views


_GATE_MAX: Final = 1024
"""Distinct type tokens a policy's gate remembers (tokens come from the program: bounded)."""


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


def derived(resource: _Viewed, key: str, compute: Callable[[Any], _T]) -> _T:
    """``compute(props)`` of the resource's :func:`props_of` view, once per request under ``key`` and shared by the
    policies (computed every time outside a request). The result is read-only by convention."""
    memo = _memo(resource)
    if memo is None:
        return compute(plain(resource.props))
    if key in memo:
        return memo[key]
    found = memo[key] = compute(_props(resource, memo))
    return found


@dataclass(frozen=True, slots=True)
class ResourceRef:
    """A resource as a shared reading keeps it: type, name, URN and its plain view. Never the SDK's resource object,
    which holds the request's protobuf containers (``opts.ignoreChanges``): kept past the request, they crash the
    interpreter when it exits."""

    resource_type: str
    name: str
    urn: str
    props: Any


def resource_ref(resource: _Named) -> ResourceRef:
    """``resource`` as a shared reading keeps it (its :func:`props_of` view, converted once per request)."""
    return ResourceRef(resource.resource_type, resource.name, resource.urn, props_of(resource))


class _Recorder(Review):
    """The review a shared reading runs with: it keeps the unknown fields (replayed on every policy's own review)
    and refuses anything else (a reading reports no violation)."""

    def __init__(self) -> None:
        super().__init__(_no_report)

    def violation(self, message: str, urn: str | None = None) -> None:
        raise AssertionError(f"a shared reading reported a violation: {message}")

    def not_checked(self, reason: str) -> None:
        raise AssertionError(f"a shared reading reported an unchecked value: {reason}")


def _no_report(message: str, urn: str | None = None) -> None:
    raise AssertionError(f"a shared reading reported {message!r}")


def shared_reading(key: str, read: Callable[[Review], _T], review: Review) -> _T:
    """``read(review)`` once per request under ``key`` and shared by the policies of that request (stack policies
    reading the same pools or versions): the first run records the unknown fields it finds, and every policy's
    ``review`` gets them, in the same order, as if it had read them itself. Outside a request, ``read(review)``.
    The result is read-only by convention and holds no SDK object (:class:`ResourceRef` instead)."""
    views = _views.active
    if views is None:
        return read(review)
    slot = (_READING, key)
    found = views.get(slot)
    if found is None:
        recorder = _Recorder()
        found = views[slot] = (read(recorder), tuple(recorder.unknown))
    value, unknown = found
    for path in unknown:
        review.unknown_field(path)
    return value


_READING: Final = "reading"
"""First item of a shared reading's key in the request's views (URN keys are strings: no clash)."""
_T = TypeVar("_T")
_PROPS: Final = "props"
_MISSING: Final = object()


@dataclass(frozen=True, slots=True)
class Pool:
    """An AKS node pool: a standalone ``AgentPool`` or one entry of ``ManagedCluster.agentPoolProfiles``."""

    prefix: str
    """Path of the pool inside the resource: ``""`` for an AgentPool, ``agentPoolProfiles[i]`` for a profile."""
    data: dict[str, Any]
    standalone: bool
    _sizes: tuple[tuple[str, Any], ...] | None = dataclass_field(default=None, init=False, compare=False, repr=False)
    _gpu: tuple[bool, tuple[str, ...]] | None = dataclass_field(default=None, init=False, compare=False, repr=False)
    _label: str | None = dataclass_field(default=None, init=False, compare=False, repr=False)
    _spec: Any = dataclass_field(default=None, init=False, compare=False, repr=False)

    @property
    def spec(self) -> Any:
        """The pool as its spec, once built (:func:`policies._specs.wire_pool` builds it; ``None`` before)."""
        return self._spec

    def path(self, *keys: str | int) -> str:
        return join_path(self.prefix, *keys)

    def get(self, *keys: str | int) -> Any:
        if len(keys) == 1 and type(keys[0]) is str:  # one field of the pool's own (plain) dict: the common read
            return self.data.get(keys[0])
        return get(self.data, *keys)

    @property
    def name_key(self) -> str:
        return "agentPoolName" if self.standalone else "name"

    @property
    def name(self) -> Any:
        return self.get(self.name_key)

    def _size_values(self) -> tuple[tuple[str, Any], ...]:
        sizes = self._sizes
        if sizes is None:  # read once per pool (the pool is shared by the policies of one request)
            out: list[tuple[str, Any]] = []
            for spec in POOL_SIZES:
                for path, value in find_values(self.data, spec, is_unknown):
                    if isinstance(value, str) or value is UNKNOWN:
                        out.append((self.path(path), value))
            sizes = tuple(out)
            object.__setattr__(self, "_sizes", sizes)
        return sizes

    def size_values(self) -> list[tuple[str, Any]]:
        """The pool's VM sizes with their paths: ``vmSize`` (VirtualMachineScaleSets pools) and each
        ``virtualMachinesProfile.scale.manual[].size`` (VirtualMachines pools); unknown ones as :data:`UNKNOWN`."""
        return list(self._size_values())

    def gpu_state(self) -> tuple[bool, tuple[str, ...]]:
        """Whether every size is known and one is a GPU size, and the paths of the unknown sizes (read once)."""
        state = self._gpu
        if state is None:
            sizes = self._size_values()
            unknown = tuple(path for path, size in sizes if size is UNKNOWN)
            gpu = not unknown and any(is_gpu_size(size) for _, size in sizes)
            state = (gpu, unknown)
            object.__setattr__(self, "_gpu", state)
        return state

    @property
    def size_label(self) -> str:
        """How messages name the pool's size(s): ``vmSize``, or the VirtualMachines pool's sizes joined."""
        label = self._label
        if label is None:
            manual = [v for path, v in self._size_values() if isinstance(v, str) and path.endswith(".size")]
            label = ", ".join(manual) if manual and self.get("vmSize") is None else str(self.get("vmSize"))
            object.__setattr__(self, "_label", label)
        return label

    def label(self, resource_name: str) -> str:
        """How messages name the pool: as the stack file wrote it (the platform's ``azure-gpu-platform/pool`` node
        label) with the Azure name in brackets (``node pool 'h100' [h1000d7b]``), else the pool name when known, else
        the resource and the path."""
        name = self.name
        labels = self.get("nodeLabels")
        written = labels.get(POOL_NODE_LABEL) if isinstance(labels, dict) else None
        if isinstance(written, str) and written and isinstance(name, str) and written != name:
            return f"node pool '{written}' [{name}]"
        if isinstance(name, str):
            return f"node pool '{name}'"
        return f"node pool {self.prefix or resource_name}"


def agent_pools(resource_type: str, props: Any) -> tuple[list[Pool], list[str]]:
    """The AKS node pools a resource defines, and the paths that are unknown (e.g. the whole profiles list): the one
    reader of pools from wire props (:func:`rules.wire_pools.aks_pools`), as the pack's :class:`Pool`."""
    found = aks_pools(resource_type, props, is_unknown=is_unknown)
    pools = [Pool(p.prefix, p.data if type(p.data) is dict else dict(p.data), p.standalone) for p in found.pools]
    return pools, list(found.unknown)


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


def is_gpu_pool(pool: Pool, review: Review) -> bool:
    """Whether the pool has a GPU size (``vmSize`` or, in a VirtualMachines pool, any manual size); an unknown size
    is recorded on ``review`` and counts as not (yet) GPU."""
    gpu, unknown = pool.gpu_state()
    for path in unknown:
        review.unknown_field(path)
    return gpu


def pools_of(resource: _Typed, review: Review) -> list[Pool]:
    """The node pools of an AgentPool / ManagedCluster (type checked before any conversion); unknown profile
    entries are recorded on ``review``."""
    pools, unknown = read_pools(resource)
    for path in unknown:
        review.unknown_field(path)
    return pools


def read_pools(resource: _Typed) -> tuple[list[Pool], list[str]]:
    """:func:`agent_pools` of a resource, read once per request (type checked before any conversion): its pools
    and the unknown paths (``agentPoolProfiles`` when the whole list is unknown, ``agentPoolProfiles[i]`` for an
    entry). Fresh lists each call; the pools are shared."""
    resource_type = resource.resource_type
    if not (is_agent_pool(resource_type) or is_managed_cluster(resource_type)):
        return [], []
    pools, unknown = derived(resource, _POOLS, lambda props: agent_pools(resource_type, props))
    return list(pools), list(unknown)


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


def per_size(check: Callable[..., SizeFinding | None], *, dated: bool) -> Callable[..., SizeFinding | None]:
    """``check(size, *params)`` (a pure catalog rule) answered once per size as written and parameters (and day, when
    ``dated``: retirements and the sizes a message suggests depend on the day, so the rule is called as
    ``check(size, *params, today=request_today())``, the request's day): the pack asks the same few sizes of thousands
    of resources."""
    answers: dict[tuple[Any, ...], SizeFinding | None] = {}

    def cached(size: str, *params: Any) -> SizeFinding | None:
        day = request_today() if dated else None
        key = (size, params, day)
        if key in answers:
            return answers[key]
        if len(answers) >= _CHECK_CACHE_MAX:
            answers.clear()
        found = answers[key] = check(size, *params, today=day) if dated else check(size, *params)
        return found

    return cached


def review_sizes(
    resource: _Typed,
    report: ReportViolation,
    check: Callable[[str], SizeFinding | None],
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
        review_nodepool_sizes(  # one violation per NodePool (policies/_karpenter.py)
            _props(resource, memo), review, check
        )
        review.finish()
        return
    found = None if memo is None else memo.get(_SIZES)
    if found is None:  # the same for every family filter that admits the resource's family (checked above)
        found = size_fields(resource_type, _props(resource, memo))
        if memo is not None:
            memo[_SIZES] = found
    fields, unknown = found
    for path in unknown:
        review.unknown_field(path)
    for field in iter_known(fields, review):
        finding = check(str(field.value))
        if finding is not None:
            review.violation(f"{field.path}: {finding.message}")
    review.finish()
