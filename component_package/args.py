"""Mapping the schema's Args to the components' own typed Args, and the error that carries the rules' findings on
their schema property paths.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

import typing
from collections.abc import Mapping
from datetime import date
from enum import Enum
from typing import Any

from pulumi.errors import InputPropertyErrorDetails
from pulumi.provider.experimental.util import camel_case

from component_package.inputs import GpuPool, PoolGpuOperator
from components import device_plugin, gpu_node_pool
from components.validation import InvalidArgsError
from gpu_catalog import clock
from gpu_catalog.lifecycle import default_gpu_operator_version
from rules import Finding
from rules.exemptions import Exemption, check_entries, resolve_max_days
from rules.network import UpgradeSettings
from rules.sizes import SIZE_RULES
from rules.specs import AKS_GPU_POOL_FIELDS


class ArgsRefusedError(Exception):
    """A component's Args break a guard rail: the rules' message, and each finding on its schema property path."""

    def __init__(self, error: InvalidArgsError, prefix: str = "", paths: Mapping[str, str] | None = None) -> None:
        super().__init__(str(error))
        self.message = str(error)
        paths = paths or {}
        self.errors: list[InputPropertyErrorDetails] = [
            {"property_path": f"{prefix}{paths.get(f.field, camel_case(f.field))}", "reason": f.message}
            for f in error.findings
        ]


def plain(value: Any) -> Any:
    """An input as the typed Args take it: enum members as their values, and integers as ``int``. Numbers arrive as
    doubles; the SDK's input mapping (3.272) converts an ``integer`` property and then overwrites the conversion with
    the double, and every number of this schema is an integer."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def present(args: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """The keys that are set, enum members as their values: the typed Args' defaults apply to the others."""
    return {k: plain(args[k]) for k in keys if args.get(k) is not None}


def pool_plugin_kwargs(args: Mapping[str, Any]) -> dict[str, Any]:
    """``gpu_operator`` / ``device_plugin`` as the pool specs take them: the operator, the chart, or (neither given)
    the cluster's own device plugin taken on trust (docs/component-package.md)."""
    operator = args.get("gpu_operator")
    if operator is not None:
        return {"gpu_operator": pool_operator(operator)}
    chart = args.get("device_plugin")
    if chart is not None:
        plugin = present(chart, "version", "mig_strategy")
        plugin.setdefault("version", device_plugin.CHART.version)
        return {"device_plugin": gpu_node_pool.PoolDevicePlugin(**plugin)}
    return {"external_device_plugin": True}


def pool_operator(operator: PoolGpuOperator) -> gpu_node_pool.PoolGpuOperator:
    """The operator as a pool sees it; the chart version defaults to the release the project pins (as documented)."""
    kwargs = present(operator, "version", "installs_driver", "mig_strategy")
    kwargs.setdefault("version", default_gpu_operator_version())
    return gpu_node_pool.PoolGpuOperator(**kwargs)


_TRANSLATED = frozenset({"sharing", "gpu_operator", "device_plugin", "upgrade"})
"""``GpuPool`` keys that are spec fields but arrive as the schema's objects (the others are the spec field itself: a
new pool key needs no line here)."""


def pool_spec(pool: GpuPool, *, kaito_addon: bool = False, today: date | None = None) -> gpu_node_pool.GpuPoolSpec:
    """A package pool as the component's :class:`~components.gpu_node_pool.GpuPoolSpec` (raises
    :class:`InvalidArgsError` with the rules' messages): the schema's keys are the spec's fields
    (``tests/package/test_provider.py`` checks it), a key left out gets the spec's default (:mod:`rules.specs`).
    ``kaito_addon``: the pool's cluster runs the KAITO add-on (an ``AksGpuCluster``'s pools; the spec's default taint
    then keeps the add-on's device plugin off the pool). ``today`` dates the checks and the exemptions; ``None``: read
    :func:`gpu_catalog.clock.today` once."""
    day = today or clock.today()
    kwargs: dict[str, Any] = {
        key: tuple(value) if isinstance(value, list) else value
        for key, value in present(pool, *(k for k in pool if k in AKS_GPU_POOL_FIELDS and k not in _TRANSLATED)).items()
    }
    driver = pool.get("driver")
    if driver is not None:
        kwargs["driver_skipped"] = plain(driver) == "operator"  # the GPU operator installs the driver
    sharing = pool.get("sharing")
    if sharing is not None:
        kwargs["sharing"] = gpu_node_pool.GpuSharing(**present(sharing, "mode", "replicas", "rename_by_default"))
    upgrade = pool.get("upgrade")
    if upgrade is not None:
        kwargs["upgrade"] = UpgradeSettings(
            **present(upgrade, "max_surge", "max_unavailable", "drain_timeout_minutes", "node_soak_minutes")
        )
    kwargs |= pool_plugin_kwargs(pool)
    exemptions = pool_exemptions(pool, today=day)
    kwargs["exempt_rules"] = tuple(sorted({e.policy for e in exemptions if e.applies(day)}))
    try:
        return gpu_node_pool.GpuPoolSpec(**kwargs, kaito_addon=kaito_addon, today=day)
    except InvalidArgsError as error:
        raise _with_expired(error, exemptions, day) from None


def pool_exemptions(pool: GpuPool, *, today: date) -> list[Exemption]:
    """The pool's ``exemptions``: each a stack file's ``exemptions`` entry whose resource is this pool, checked by the
    same rules (:func:`rules.exemptions.check_entries`: a size rule, a reason, an owner, an expiry at most the default
    ``exemptionMaxDays`` ahead, a category); raises :class:`InvalidArgsError` naming every refused entry's key."""
    entries = pool.get("exemptions") or []
    name = str(plain(pool.get("name", "")))
    values = [{**plain(entry), "resource": name} for entry in entries]
    found, _ = check_entries(values, today=today, max_days=resolve_max_days(None), policies=SIZE_RULES)
    problems = [
        Finding(f"exemptions[{i}]" + (f".{f.field}" if f.field else ""), f.message)
        for i, (_, _, refused) in enumerate(found)
        for f in refused
    ]
    if problems:
        raise InvalidArgsError(gpu_node_pool.COMPONENT, name, problems)
    return [parsed for _, parsed, _ in found if parsed is not None]


def _with_expired(error: InvalidArgsError, exemptions: list[Exemption], today: date) -> InvalidArgsError:
    """A refusal of the pool's size, with each expired exemption of a size rule named on its ``expires`` (it no longer
    waives the pool: the reason the pool is refused now)."""
    expired = [(i, e) for i, e in enumerate(exemptions) if not e.applies(today)]
    if not expired or not any(f.field == "vm_size" for f in error.findings):
        return error
    notes = [
        Finding(
            f"exemptions[{i}].expires",
            f"the exemption of {e.policy} (owner {e.owner}) expired on {e.expires.isoformat()}, so it no longer "
            "waives the pool; allowed: fix the pool, or renew the exemption with a new reason and an expiry date in "
            "the future",
        )
        for i, e in expired
    ]
    return InvalidArgsError(error.component, error.instance, [*error.findings, *notes])


def checked(build: typing.Callable[[], Any], prefix: str = "", paths: Mapping[str, str] | None = None) -> Any:
    try:
        return build()
    except InvalidArgsError as error:
        raise ArgsRefusedError(error, prefix, paths) from error
