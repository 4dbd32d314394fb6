"""The Azure GPU VM catalog: one data file (``catalog.json``), one loader, validated at load.

No Pulumi imports here: the policy pack, the components, the preflight's cost estimate and the docs all read
this module, and the pack must be able to run in a virtualenv that only has ``pulumi-policy``.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, Literal

CATALOG_PATH = Path(__file__).with_name("catalog.json")

Lifecycle = Literal["current", "preview", "retiring", "retired"]
DatabricksOffer = Literal["offered", "not-offered", "unconfirmed"]
"""Whether Azure Databricks offers a size as a GPU node type: ``offered`` and ``not-offered`` each need a source;
``unconfirmed`` (no source either way) is never a reason to refuse."""
_DATABRICKS_OFFERS: tuple[str, ...] = ("offered", "not-offered", "unconfirmed")
_VARIANT_FORBIDDEN: tuple[str, ...] = ("gpu",)
_MERGED: tuple[str, ...] = ("lifecycle", "support", "price")
_LIFECYCLES: tuple[str, ...] = ("current", "preview", "retiring", "retired")
_VENDORS: tuple[str, ...] = ("NVIDIA", "AMD")
_ARCHES: tuple[str, ...] = ("x64", "arm64")
_NAME_RE = re.compile(r"^Standard_N[A-Za-z0-9_]+$")
_CC_RE = re.compile(r"^(\d+)\.(\d+)$")


class CatalogError(ValueError):
    """The catalog file is malformed. The message names the row and the field."""


@dataclass(frozen=True, slots=True)
class GpuSize:
    """One Azure GPU VM size, as the rules, the components and the cost estimate need it."""

    name: str
    series: str
    vcpus: int
    memory_gib: float | None
    """VM memory; ``None`` where no Microsoft table was read for the size."""
    cpu_arch: str
    gpu_vendor: str
    gpu_model: str
    gpu_architecture: str
    gpu_count: Fraction
    """GPUs per VM; a fraction (e.g. 1/6) for partial-GPU sizes."""
    gpu_memory_gib_per_vm: float
    whole_gpu_memory_gib: float
    compute_capability: tuple[int, int] | None
    """CUDA compute capability (NVIDIA only; ``None`` for AMD, which has no CUDA)."""
    mig_capable: bool
    """The GPU hardware supports Multi-Instance GPU (whether AKS partitions it is :attr:`aks_mig`)."""
    mig_slices: int | None
    """The GPU's total MIG compute slices (7 on A100/H100/H200); ``None`` when it has no MIG."""
    status: Lifecycle
    retirement_date: date | None
    migrate_to: tuple[str, ...]
    migration_advice: str | None
    aks_supported: bool
    aks_note: str | None
    aks_mig: bool
    """AKS accepts a MIG ``gpuInstanceProfile`` on this size (AKS documents A100, H100 and H200 sizes)."""
    aks_registry_os: tuple[str, ...] | None
    """The node OSes AKS's GPU registry (karpenter-provider-azure ``supported-gpus.yaml``) lists; ``None`` when the
    registry does not list the size."""
    kaito_supported: bool
    databricks: DatabricksOffer
    price_usd_per_hour: float | None
    """Indicative third-party figure, never a quote; ``None`` where no figure was found."""
    price_note: str
    sources: tuple[str, ...]
    variant_of: str | None = None
    """The documented sibling whose GPU facts this size inherits (``variantOf`` in the catalog)."""
    quota_family: str | None = None
    """The Azure quota family its vCPUs count against (the Resource SKUs API's ``family``, e.g.
    ``StandardNCASv3_T4Family``), compared case-insensitively; ``None`` when no source names it (reported as
    unknown)."""
    quota_family_source: str | None = None
    """Where :attr:`quota_family` was read (repository, path, commit)."""

    @property
    def databricks_supported(self) -> bool:
        """A source lists the size as an Azure Databricks GPU node type."""
        return self.databricks == "offered"

    @property
    def databricks_refused(self) -> bool:
        """A source says Azure Databricks does not offer the size (``unconfirmed`` is not refused)."""
        return self.databricks == "not-offered"

    @property
    def is_fractional(self) -> bool:
        return self.gpu_count < 1

    @property
    def gpu_memory_gib_per_gpu(self) -> float:
        """GPU memory one workload sees on one GPU of this VM (the slice, for partial-GPU sizes)."""
        if self.is_fractional:
            return self.gpu_memory_gib_per_vm
        return self.gpu_memory_gib_per_vm / float(self.gpu_count)

    @property
    def gpu_count_label(self) -> str:
        return str(self.gpu_count)

    @property
    def compute_capability_label(self) -> str:
        if self.compute_capability is None:
            return "n/a (no CUDA)"
        return f"{self.compute_capability[0]}.{self.compute_capability[1]}"

    @property
    def price_order(self) -> tuple[bool, float, str]:
        """Sort key for "cheapest first": priced sizes by indicative price, unpriced ones last, then by name."""
        return (self.price_usd_per_hour is None, self.price_usd_per_hour or 0.0, self.name)

    def is_retired(self, today: date) -> bool:
        """Retired, or past its announced retirement date on ``today`` (the caller's day: adapters pass
        :func:`gpu_catalog.clock.today`)."""
        if self.status == "retired":
            return True
        if self.status == "retiring" and self.retirement_date is not None:
            return self.retirement_date <= today
        return False

    @property
    def migration_text(self) -> str:
        if self.migrate_to:
            return " or ".join(self.migrate_to)
        return self.migration_advice or "a current size from the catalog"


class Catalog(Mapping[str, GpuSize]):
    """Case-insensitive, read-only mapping of size name to :class:`GpuSize`."""

    def __init__(self, sizes: list[GpuSize], as_of: date) -> None:
        self._by_key: dict[str, GpuSize] = {}
        for size in sizes:
            key = size.name.lower()
            if key in self._by_key:
                raise CatalogError(f"catalog: size {size.name!r} appears twice")
            self._by_key[key] = size
        self.as_of = as_of

    def __getitem__(self, name: str) -> GpuSize:
        return self._by_key[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return (s.name for s in self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._by_key

    def lookup(self, name: str) -> GpuSize | None:
        return self._by_key.get(name.lower())

    def sizes(self) -> list[GpuSize]:
        return list(self._by_key.values())

    def suggest(self, name: str, n: int = 3) -> list[str]:
        """The closest known size names (at least one), for messages about unknown sizes."""
        keys = list(self._by_key)
        close = difflib.get_close_matches(name.lower(), keys, n=n, cutoff=0.6)
        if not close:
            close = sorted(keys, key=lambda k: difflib.SequenceMatcher(None, name.lower(), k).ratio(), reverse=True)
            close = close[:1]
        return [self._by_key[k].name for k in close]


def _req(row: Mapping[str, Any], key: str, typ: type | tuple[type, ...], where: str) -> Any:
    if key not in row:
        raise CatalogError(f"{where}: missing field {key!r}")
    value = row[key]
    if isinstance(value, bool) and typ is not bool and bool not in (typ if isinstance(typ, tuple) else (typ,)):
        raise CatalogError(f"{where}: field {key!r} must be {typ}, got a boolean")
    if not isinstance(value, typ):
        raise CatalogError(f"{where}: field {key!r} must be {typ}, got {value!r}")
    return value


def _opt(row: Mapping[str, Any], key: str, typ: type | tuple[type, ...], where: str) -> Any:
    if row.get(key) is None:
        return None
    return _req(row, key, typ, where)


def _parse_gpu(
    gpu: dict[str, Any], where: str
) -> tuple[str, Fraction, tuple[int, int] | None, float, bool, int | None]:
    """A row's ``gpu``: vendor, count, compute capability, GPU memory per VM, MIG capability and slices."""
    vendor = _req(gpu, "vendor", str, where + " gpu")
    if vendor not in _VENDORS:
        raise CatalogError(f"{where}: gpu.vendor must be one of {_VENDORS}, got {vendor!r}")
    try:
        count = Fraction(_req(gpu, "count", str, where + " gpu"))
    except (ValueError, ZeroDivisionError) as exc:
        raise CatalogError(f"{where}: gpu.count must be a whole number or a fraction like '1/6'") from exc
    if count <= 0 or (count > 1 and count.denominator != 1):
        raise CatalogError(f"{where}: gpu.count must be positive, whole above 1, got {count}")
    cc_raw = _opt(gpu, "computeCapability", str, where + " gpu")
    cc: tuple[int, int] | None = None
    if cc_raw is not None:
        m = _CC_RE.match(cc_raw)
        if not m:
            raise CatalogError(f"{where}: gpu.computeCapability must look like '8.0', got {cc_raw!r}")
        cc = (int(m.group(1)), int(m.group(2)))
    if vendor == "NVIDIA" and cc is None:
        raise CatalogError(f"{where}: NVIDIA sizes need gpu.computeCapability")
    mem_vm = float(_req(gpu, "memoryGibPerVm", (int, float), where + " gpu"))
    if mem_vm <= 0:
        raise CatalogError(f"{where}: gpu.memoryGibPerVm must be positive")
    mig = _req(gpu, "migCapable", bool, where + " gpu")
    slices = _opt(gpu, "migSlices", int, where + " gpu")
    if mig and (slices is None or slices < 1):
        raise CatalogError(f"{where}: a MIG-capable GPU needs gpu.migSlices (its total MIG compute slices)")
    if not mig and slices is not None:
        raise CatalogError(f"{where}: gpu.migSlices is only for MIG-capable GPUs")
    return vendor, count, cc, mem_vm, mig, slices


def _parse_lifecycle(life: dict[str, Any], where: str) -> tuple[str, date | None, tuple[str, ...]]:
    """A row's ``lifecycle``: status, retirement date (needed when retired or retiring) and migration targets."""
    status = _req(life, "status", str, where + " lifecycle")
    if status not in _LIFECYCLES:
        raise CatalogError(f"{where}: lifecycle.status must be one of {_LIFECYCLES}, got {status!r}")
    date_raw = _opt(life, "retirementDate", str, where + " lifecycle")
    try:
        retirement = date.fromisoformat(date_raw) if date_raw else None
    except ValueError as exc:
        raise CatalogError(f"{where}: lifecycle.retirementDate must be YYYY-MM-DD, got {date_raw!r}") from exc
    if status in ("retired", "retiring") and retirement is None:
        raise CatalogError(f"{where}: a {status} size needs lifecycle.retirementDate")
    migrate_to = tuple(_opt(life, "migrateTo", list, where + " lifecycle") or ())
    if not all(isinstance(t, str) for t in migrate_to):
        raise CatalogError(f"{where}: lifecycle.migrateTo must list size names")
    return status, retirement, migrate_to


def _parse_support(support: dict[str, Any], mig: bool, where: str) -> tuple[bool, str, tuple[str, ...] | None]:
    """A row's ``support``: AKS MIG (needs a MIG-capable GPU), the Databricks offer, the AKS GPU registry's OSes."""
    aks_mig = bool(support.get("aksMig", False))
    if aks_mig and not mig:
        raise CatalogError(f"{where}: support.aksMig needs a MIG-capable GPU (gpu.migCapable)")
    databricks = _req(support, "databricks", str, where + " support")
    if databricks not in _DATABRICKS_OFFERS:
        raise CatalogError(f"{where}: support.databricks must be one of {_DATABRICKS_OFFERS}, got {databricks!r}")
    registry = _opt(support, "aksGpuRegistry", dict, where + " support")
    registry_os = tuple(str(o) for o in registry.get("os") or ()) if registry is not None else None
    return aks_mig, databricks, registry_os


def _parse_quota(row: dict[str, Any], where: str) -> tuple[str | None, str | None]:
    """A row's ``quotaFamily``: the Azure quota family and its source (a family needs one)."""
    quota = _opt(row, "quotaFamily", dict, where) or {}
    quota_family = _opt(quota, "name", str, where + " quotaFamily")
    quota_source = _opt(quota, "source", str, where + " quotaFamily")
    if quota_family is not None and not quota_source:
        raise CatalogError(f"{where}: quotaFamily.name {quota_family!r} needs quotaFamily.source")
    return quota_family, quota_source


def _parse_row(row: Any, index: int) -> GpuSize:
    if not isinstance(row, dict):
        raise CatalogError(f"catalog row {index}: expected an object")
    name = _req(row, "name", str, f"catalog row {index}")
    where = f"catalog row {index} ({name})"
    if not _NAME_RE.match(name):
        raise CatalogError(f"{where}: name must look like 'Standard_N...'")
    gpu = _req(row, "gpu", dict, where)
    life = _req(row, "lifecycle", dict, where)
    support = _req(row, "support", dict, where)
    price = _req(row, "price", dict, where)

    vendor, count, cc, mem_vm, mig, slices = _parse_gpu(gpu, where)
    arch = _req(row, "cpuArch", str, where)
    if arch not in _ARCHES:
        raise CatalogError(f"{where}: cpuArch must be one of {_ARCHES}, got {arch!r}")
    status, retirement, migrate_to = _parse_lifecycle(life, where)
    price_value = _opt(price, "usdPerHour", (int, float), where + " price")
    if _req(price, "indicative", bool, where + " price") is not True:
        raise CatalogError(f"{where}: prices are third-party figures and must be marked indicative")
    aks_mig, databricks, registry_os = _parse_support(support, mig, where)
    quota_family, quota_source = _parse_quota(row, where)
    vcpus = _req(row, "vcpus", int, where)
    if vcpus <= 0:
        raise CatalogError(f"{where}: vcpus must be positive")
    return GpuSize(
        name=name,
        series=_req(row, "series", str, where),
        vcpus=vcpus,
        memory_gib=float(memory) if (memory := _opt(row, "memoryGib", (int, float), where)) is not None else None,
        cpu_arch=arch,
        gpu_vendor=vendor,
        gpu_model=_req(gpu, "model", str, where + " gpu"),
        gpu_architecture=_req(gpu, "architecture", str, where + " gpu"),
        gpu_count=count,
        gpu_memory_gib_per_vm=mem_vm,
        whole_gpu_memory_gib=float(_req(gpu, "wholeGpuMemoryGib", (int, float), where + " gpu")),
        compute_capability=cc,
        mig_capable=mig,
        mig_slices=slices,
        status=status,  # type: ignore[arg-type]  # checked against _LIFECYCLES above
        retirement_date=retirement,
        migrate_to=migrate_to,
        migration_advice=_opt(life, "migrationAdvice", str, where + " lifecycle"),
        aks_supported=_req(support, "aks", bool, where + " support"),
        aks_note=_opt(support, "aksNote", str, where + " support"),
        aks_mig=aks_mig,
        aks_registry_os=registry_os,
        kaito_supported=_req(support, "kaito", bool, where + " support"),
        databricks=databricks,  # type: ignore[arg-type]  # checked against _DATABRICKS_OFFERS above
        price_usd_per_hour=float(price_value) if price_value is not None else None,
        price_note=_req(price, "note", str, where + " price"),
        sources=tuple(_req(row, "sources", list, where)),
        variant_of=row.get("variantOf"),
        quota_family=quota_family,
        quota_family_source=quota_source,
    )


def resolve_variants(rows: list[Any], source: object = "catalog") -> list[Any]:
    """Rows with ``variantOf`` completed from their documented sibling: every field the variant does not set is the
    sibling's (``lifecycle``, ``support`` and ``price`` key by key); the GPU is always the sibling's, never restated."""
    named = {r.get("name", "").lower(): r for r in rows if isinstance(r, dict)}
    out: list[Any] = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "variantOf" not in row:
            out.append(row)
            continue
        where = f"{source}: catalog row {i} ({row.get('name')})"
        sibling = named.get(str(row["variantOf"]).lower())
        if sibling is None:
            raise CatalogError(f"{where}: variantOf {row['variantOf']!r} is not a catalog size")
        if "variantOf" in sibling:
            raise CatalogError(f"{where}: variantOf {row['variantOf']!r} is itself a variant; name the documented size")
        restated = [k for k in _VARIANT_FORBIDDEN if k in row]
        if restated:
            raise CatalogError(f"{where}: a variant inherits its sibling's {', '.join(restated)}; do not restate it")
        merged = {k: v for k, v in sibling.items() if k not in ("name", "sources")}
        for key, value in row.items():
            if key in _MERGED and isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
        merged["sources"] = [*(row.get("sources") or []), f"GPU facts of {sibling['name']}"]
        out.append(merged)
    return out


def load_catalog(path: Path | str | None = None) -> Catalog:
    """Load and validate a catalog file; raise :class:`CatalogError` naming the first malformed row."""
    source = Path(path) if path is not None else CATALOG_PATH
    try:
        doc = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CatalogError(f"{source}: not valid JSON: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("schemaVersion") != 1 or not isinstance(doc.get("sizes"), list):
        raise CatalogError(f"{source}: expected an object with schemaVersion 1 and a 'sizes' list")
    sizes = [_parse_row(row, i) for i, row in enumerate(resolve_variants(doc["sizes"], source))]
    if not sizes:
        raise CatalogError(f"{source}: the catalog has no sizes")
    catalog = Catalog(sizes, as_of=date.fromisoformat(str(doc.get("asOf", "1970-01-01"))))
    for size in sizes:
        for target in size.migrate_to:
            if target not in catalog:
                raise CatalogError(f"{source}: {size.name}: migration target {target!r} is not in the catalog")
    return catalog


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    """The project's catalog, loaded once per process."""
    return load_catalog()


# ------------------------------------------------------------------------------------------ classifying names

MIG_GEOMETRY: dict[str, tuple[int, int, int]] = {
    "MIG1g": (1, 7, 1),
    "MIG2g": (2, 3, 2),
    "MIG3g": (3, 2, 4),
    "MIG4g": (4, 1, 4),
    "MIG7g": (7, 1, 8),
}
"""AKS ``gpuInstanceProfile`` → (compute slices, instances per GPU, memory eighths): NVIDIA's A100/H100/H200 MIG
geometry (NVIDIA MIG user guide, supported profiles). A profile fits a size whose ``gpu.migSlices`` holds its
compute slices (:func:`rules.sizes.check_mig_profile`)."""

MIG_PROFILES: tuple[str, ...] = tuple(MIG_GEOMETRY)
"""AKS ``gpuInstanceProfile`` values (API 2025-09-01): the profiles of :data:`MIG_GEOMETRY`."""


def canonical_mig_profile(profile: str) -> str | None:
    """A ``gpuInstanceProfile`` as the API spells it (``mig2g`` → ``MIG2g``); ``None`` when it is none of them.

    AKS compares enum strings case-insensitively (an AKS maintainer in Azure/azure-rest-api-specs#20955: "aks-rp does
    a case-insensitive compare for the enum string"; the REST spec declares the enum ``modelAsString``), so every
    rule reads a profile this way."""
    return next((p for p in MIG_PROFILES if p.lower() == profile.lower()), None)


_NVV4_RE = re.compile(r"^standard_nv\d+a(?:h)?s_v4$", re.IGNORECASE)


N_FAMILY_PREFIX: Final = "Standard_N"
"""What every N-family (GPU) size name starts with, compared case-insensitively."""
_N_FAMILY_RE = re.compile(f"^{re.escape(N_FAMILY_PREFIX)}", re.IGNORECASE)


def is_gpu_size(name: str, catalog: Catalog | None = None) -> bool:
    """A GPU size is a catalog size or any Azure N-family name (``Standard_N...``), case-insensitive."""
    return name in (catalog if catalog is not None else default_catalog()) or bool(_N_FAMILY_RE.match(name))


def is_nvv4(name: str) -> bool:
    """AMD MI25 NVv4 sizes: ``Standard_NV<n>as_v4`` and ``Standard_NV<n>ahs_v4``."""
    return bool(_NVV4_RE.match(name))
