"""Generate a "raw" Pulumi program: the same custom resources as a recorded program, with no components.

Input: the resources a program registered (``preflight.model.RecordedResource``), as recorded by the preflight's
mock runner. Output: a Pulumi Python program directory (``Pulumi.yaml`` + ``__main__.py``) that registers every
*custom* resource (and explicit provider) with the same type token, name and inputs, flat (no parents), with
literal values (no outputs chained between resources).

Each resource is registered through **the real SDK class** for its type token (e.g. ``azure-native:containerservice:
AgentPool`` -> ``pulumi_azure_native.containerservice.AgentPool``), found in the packages' own type-token registry
(the ``_utilities.register(...)`` table every Pulumi provider SDK installs for rehydrating resources). The wire
names of the top-level inputs are mapped back to the class's keyword arguments through its ``<Class>Args`` input
type; nested values are passed as the wire-shaped dicts (the SDK leaves keys it cannot translate untouched, so they
reach the engine unchanged — ``bench_overhead`` checks this by recording the raw program and comparing). Using the
SDK classes keeps the SDKs' own per-resource cost — e.g. the ~110 version aliases azure-native declares on every
``AgentPool`` — on both sides of the comparison, so the ratio measures what our components add. A type token with
no SDK class falls back to ``pulumi.CustomResource`` (reported in the generated file's header).

``mode="generic"`` registers everything through ``pulumi.CustomResource`` instead (no SDK classes, no aliases):
the difference between the two raw programs is the SDKs' own cost.
"""

from __future__ import annotations

import importlib
import keyword
import pprint
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from preflight.model import RecordedResource
from preflight.wire import SECRET_SIG, SIG_KEY

# Pulumi package name (first segment of a type token) -> Python SDK module.
SDK_MODULES: dict[str, str] = {
    "azure-native": "pulumi_azure_native",
    "kubernetes": "pulumi_kubernetes",
    "databricks": "pulumi_databricks",
    "random": "pulumi_random",
    "tls": "pulumi_tls",
    "azuread": "pulumi_azuread",
}


@dataclass(frozen=True)
class SdkClass:
    module: str
    name: str
    kwargs: dict[str, str]
    """wire name -> keyword argument of the class constructor."""


def _registry_tables() -> tuple[dict[str, Any], dict[str, Any]]:
    from pulumi.runtime import rpc

    modules: dict[str, Any] = getattr(rpc, "_RESOURCE_MODULES", {})
    packages: dict[str, Any] = getattr(rpc, "_RESOURCE_PACKAGES", {})
    return modules, packages


def _package_of(type_token: str) -> str:
    if type_token.startswith("pulumi:providers:"):
        return type_token.removeprefix("pulumi:providers:")
    return type_token.split(":", 1)[0]


def resolve_class(type_token: str) -> SdkClass | None:
    """The SDK class registered for ``type_token`` (importing its package), or ``None`` when there is none."""
    pkg = _package_of(type_token)
    sdk = SDK_MODULES.get(pkg)
    if sdk is None:
        return None
    try:
        importlib.import_module(sdk)
    except ImportError:
        return None
    modules, packages = _registry_tables()
    fqn = cls_name = None
    if type_token.startswith("pulumi:providers:"):
        for regs in packages.values():
            for reg in regs:
                info = getattr(reg, "pkg_info", None)
                if info and info.get("token") == type_token:
                    fqn, cls_name = info["fqn"], info["class"]
    else:
        for regs in modules.values():
            for reg in regs:
                info = getattr(reg, "mod_info", None)
                if info and type_token in info.get("classes", {}):
                    fqn, cls_name = info["fqn"], info["classes"][type_token]
    if fqn is None or cls_name is None:
        return None
    mod = importlib.import_module(fqn)
    cls = getattr(mod, cls_name)
    args_cls = getattr(mod, f"{cls_name}Args", None)
    return SdkClass(fqn, cls_name, _kwarg_names(cls, args_cls))


def _kwarg_names(cls: type, args_cls: type | None) -> dict[str, str]:
    import inspect

    from pulumi import _types

    params = set(inspect.signature(cls._internal_init).parameters)  # type: ignore[attr-defined]
    out: dict[str, str] = {}
    if args_cls is not None and _types.is_input_type(args_cls):
        for py_name, wire in _types.input_type_py_to_pulumi_names(args_cls).items():
            # ``resource_name`` and ``opts`` are the constructor's own parameters: the SDK suffixes clashing inputs.
            cands = (f"{py_name}_",) if py_name in ("resource_name", "opts", "__self__") else (py_name, f"{py_name}_")
            for cand in cands:
                if cand in params:
                    out[wire] = cand
                    break
    return out


def _literal(value: Any) -> str:
    """Python source for a wire value: secrets become ``pulumi.Output.secret(...)``, everything else a literal."""
    if isinstance(value, dict):
        if value.get(SIG_KEY) == SECRET_SIG:
            return f"pulumi.Output.secret({_literal(value.get('value'))})"
        items = ", ".join(f"{k!r}: {_literal(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


def _ident(name: str, used: set[str]) -> str:
    base = "".join(c if c.isalnum() else "_" for c in name).strip("_").lower() or "r"
    if base[0].isdigit() or keyword.iskeyword(base):
        base = f"r_{base}"
    ident, i = base, 2
    while ident in used:
        ident, i = f"{base}_{i}", i + 1
    used.add(ident)
    return ident


def is_default_provider(r: RecordedResource) -> bool:
    """A provider the engine registers on its own for resources without an explicit one (``default_<version>``)."""
    return r.type.startswith("pulumi:providers:") and (r.name == "default" or r.name.startswith("default_"))


def registrable(resources: Iterable[RecordedResource]) -> list[RecordedResource]:
    """What a flat program registers itself: custom resources and explicit providers (no components, no stack,
    no default providers — registering the same SDK resources brings those along)."""
    return [r for r in resources if r.custom and r.type != "pulumi:pulumi:Stack" and not is_default_provider(r)]


def generate(
    resources: Iterable[RecordedResource],
    out_dir: Path,
    *,
    mode: Literal["sdk", "generic"] = "sdk",
    project: str = "azure-gpu-platform",
) -> dict[str, Any]:
    """Write the raw program to ``out_dir``; return a summary (counts, classes used, fallbacks)."""
    recs = registrable(resources)
    out_dir.mkdir(parents=True, exist_ok=True)
    imports: dict[str, str] = {}
    lines: list[str] = []
    used: set[str] = set()
    var_of_urn: dict[str, str] = {}
    fallbacks: list[str] = []
    classes: dict[str, str] = {}
    # Providers first, so resources can reference them.
    ordered = sorted(recs, key=lambda r: 0 if r.type.startswith("pulumi:providers:") else 1)
    for rec in ordered:
        var = _ident(rec.name, used)
        var_of_urn[rec.urn] = var
        inputs = {k: v for k, v in rec.inputs.items() if not k.startswith("__")}
        opts = ""
        if rec.provider:
            prov_var = var_of_urn.get(rec.provider.rsplit("::", 1)[0])
            if prov_var:
                opts = f", opts=pulumi.ResourceOptions(provider={prov_var})"
        sdk = resolve_class(rec.type) if mode == "sdk" else None
        if sdk is not None and all(k in sdk.kwargs for k in inputs):
            alias = sdk.module.replace(".", "_")
            imports[alias] = f"import {sdk.module} as {alias}"
            classes[rec.type] = f"{sdk.module}.{sdk.name}"
            args = "".join(f", {sdk.kwargs[k]}={_literal(v)}" for k, v in inputs.items())
            lines.append(f"{var} = {alias}.{sdk.name}({rec.name!r}{args}{opts})")
        else:
            if mode == "sdk":
                fallbacks.append(rec.type)
            if rec.type.startswith("pulumi:providers:"):
                pkg = rec.type.removeprefix("pulumi:providers:")
                classes.setdefault(rec.type, "pulumi.ProviderResource")
                lines.append(f"{var} = pulumi.ProviderResource({pkg!r}, {rec.name!r}, {_literal(inputs)}{opts})")
            else:
                classes.setdefault(rec.type, "pulumi.CustomResource")
                lines.append(f"{var} = pulumi.CustomResource({rec.type!r}, {rec.name!r}, {_literal(inputs)}{opts})")
    header = [
        f'"""Generated by bench/rawgen.py (mode={mode}): {len(recs)} custom resources, no components."""',
        "# Fallbacks to pulumi.CustomResource: " + (", ".join(sorted(set(fallbacks))) or "none"),
        "# ruff: noqa",
        "import pulumi",
        *sorted(imports.values()),
        "",
    ]
    (out_dir / "__main__.py").write_text("\n".join(header + lines) + "\n")
    (out_dir / "Pulumi.yaml").write_text(f"name: {project}\nruntime: python\n")
    return {"resources": len(recs), "classes": classes, "fallbacks": sorted(set(fallbacks))}


def comparable(resources: Iterable[RecordedResource]) -> list[tuple[str, str, str]]:
    """(type, name, inputs) of the registrable resources, for checking a raw program against its source."""
    return sorted((r.type, r.name, pprint.pformat(_plain(r.inputs))) for r in registrable(resources))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if not k.startswith("__")}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    return value
