"""GPU size guard rails over the catalog: NVv4, unknown, retired, below the floor, not AKS-supported, MIG on a size that
cannot be partitioned, AMD sizes with NVIDIA-only features. Each check returns a :class:`SizeFinding` (the size as
written and a message: what is wrong, why, what to use) or ``None``; the stack config, the components, the policies
(``gpu-size-*``, ``gpu-mig-profile-capable-size``) and the conformance checker call them. Dated checks take ``today``
from the caller (adapters pass :func:`gpu_catalog.clock.today`); nothing here reads the clock. No Pulumi imports.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date

from gpu_catalog import MIG_GEOMETRY
from gpu_catalog.catalog import (
    MIG_PROFILES,
    Catalog,
    GpuSize,
    canonical_mig_profile,
    default_catalog,
    is_gpu_size,
    is_nvv4,
)

DEFAULT_FLOOR = "Standard_NC6s_v3"
"""One whole V100: 16 GiB per GPU, CUDA compute capability 7.0 (the AKS docs' long-standing minimum)."""


AMD_NEEDS = (
    "AMD GPUs need the AMD GPU Operator (its driver and ROCm device plugin advertise amd.com/gpu), which this "
    "platform does not install, and AKS installs no driver for them (MicrosoftDocs/azure-aks-docs "
    "articles/aks/use-amd-gpus.md)"
)
"""What an AMD GPU pool needs instead of the NVIDIA stack; every AMD finding ends with it."""


@dataclass(frozen=True, slots=True)
class SizeFinding:
    """One problem with one size: the size as written and the message (the policy that reports it has its own name)."""

    size: str
    message: str


def _cat(catalog: Catalog | None) -> Catalog:
    return catalog if catalog is not None else default_catalog()


def check_nvv4(name: str) -> SizeFinding | None:
    """gpu-size-no-nvv4."""
    if not is_nvv4(name):
        return None
    return SizeFinding(
        name,
        f"{name} is an NVv4 size (partial AMD Radeon Instinct MI25): AKS does not support the NVv4 series and "
        "its GPU has no CUDA. Use an NVIDIA size such as Standard_NC4as_T4_v3 (inference) or "
        "Standard_NC24ads_A100_v4 (training); for graphics use Standard_NV36ads_A10_v5.",
    )


def check_known(name: str, catalog: Catalog | None = None) -> SizeFinding | None:
    """gpu-size-known.

    Fail closed: an N-family name the catalog does not know is rejected, with the closest known names."""
    cat = _cat(catalog)
    if name in cat or not is_gpu_size(name, cat) or is_nvv4(name):
        return None
    suggestions = ", ".join(cat.suggest(name))
    return SizeFinding(
        name,
        f"{name} is not a GPU size in the catalog: unknown sizes are rejected because their GPU, memory and "
        f"lifecycle cannot be checked (typo, or a size newer than the catalog). Closest known sizes: {suggestions}. "
        "If the size is real, add it to gpu_catalog/catalog.json with its sources.",
    )


def check_retired(name: str, today: date, catalog: Catalog | None = None) -> SizeFinding | None:
    """gpu-size-not-retired: retired, or past its retirement date on ``today``."""
    size = _cat(catalog).lookup(name)
    if size is None or not size.is_retired(today):
        return None
    when = size.retirement_date.isoformat() if size.retirement_date else "an earlier date"
    return SizeFinding(
        name,
        f"{size.name} ({size.gpu_model}) was retired by Microsoft on {when}: new VMs of this size cannot be "
        f"deployed and running ones are deallocated. Microsoft's migration target: {size.migration_text}.",
    )


def _floor_reasons(size: GpuSize, floor: GpuSize) -> list[str]:
    reasons: list[str] = []
    if size.is_fractional and size.gpu_count < floor.gpu_count:
        reasons.append(f"it has only {size.gpu_count} of a GPU")
    if size.gpu_memory_gib_per_gpu < floor.gpu_memory_gib_per_gpu:
        reasons.append(f"{size.gpu_memory_gib_per_gpu:g} GiB GPU memory per GPU < {floor.gpu_memory_gib_per_gpu:g} GiB")
    if (
        size.compute_capability is not None
        and floor.compute_capability is not None
        and size.compute_capability < floor.compute_capability
    ):
        reasons.append(f"CUDA compute capability {size.compute_capability_label} < {floor.compute_capability_label}")
    return reasons


def floor_size(floor: str = DEFAULT_FLOOR, catalog: Catalog | None = None) -> GpuSize:
    """Resolve the configured floor; any catalog size may be named. Raises ``ValueError`` for an unknown name."""
    cat = _cat(catalog)
    resolved = cat.lookup(floor)
    if resolved is None:
        raise ValueError(
            f"minimumSize {floor!r} is not a catalog size; closest known sizes: {', '.join(cat.suggest(floor))}"
        )
    return resolved


_AT_OR_ABOVE: dict[tuple[int, str, date], tuple[Catalog, list[str]]] = {}


def _at_or_above(cat: Catalog, ref: GpuSize, today: date) -> list[str]:
    """AKS-supported NVIDIA sizes at or above the floor ``ref`` not retired on ``today``, cheapest first (computed
    once per catalog, floor and day: the policy pack asks for every pool below the floor). The entry keeps its
    catalog, so an id that Python reuses for another catalog is never answered from the cache."""
    key = (id(cat), ref.name, today)
    cached = _AT_OR_ABOVE.get(key)
    if cached is not None and cached[0] is cat:
        return cached[1]
    better = [
        s.name
        for s in cat.sizes()
        if s.aks_supported and not s.is_retired(today) and s.gpu_vendor == "NVIDIA" and not _floor_reasons(s, ref)
    ]
    better.sort(key=lambda n: cat[n].price_order)
    _AT_OR_ABOVE[key] = (cat, better)
    return better


def check_minimum(
    name: str, floor: str = DEFAULT_FLOOR, catalog: Catalog | None = None, *, today: date
) -> SizeFinding | None:
    """gpu-size-minimum.

    Below the floor: smaller GPU memory per GPU, lower CUDA compute capability, or only a fraction of a GPU.

    Compute capability is compared only when both sizes are NVIDIA (AMD GPUs have no CUDA compute capability).
    """
    cat = _cat(catalog)
    size = cat.lookup(name)
    if size is None:
        return None
    ref = floor_size(floor, cat)
    reasons = _floor_reasons(size, ref)
    if not reasons:
        return None
    better = _at_or_above(cat, ref, today)
    return SizeFinding(
        name,
        f"{size.name} ({size.gpu_model}, {size.gpu_count} GPU) is below the GPU floor {ref.name} "
        f"({ref.gpu_model}: {ref.gpu_memory_gib_per_gpu:g} GiB, compute capability "
        f"{ref.compute_capability_label}, whole GPU): {'; '.join(reasons)}. "
        f"Use a size at or above the floor, e.g. {', '.join(better[:3]) or 'a larger catalog size'}.",
    )


def check_aks_supported(name: str, catalog: Catalog | None = None) -> SizeFinding | None:
    """gpu-size-aks-supported."""
    size = _cat(catalog).lookup(name)
    if size is None or size.aks_supported or is_nvv4(name):
        return None
    note = f" ({size.aks_note})" if size.aks_note else ""
    return SizeFinding(
        name,
        f"{size.name} ({size.gpu_model}) is not supported for AKS node pools{note}. "
        "Use an AKS-supported NVIDIA size such as Standard_NC4as_T4_v3, Standard_NV36ads_A10_v5 or "
        "Standard_NC24ads_A100_v4.",
    )


MIG_PROFILE_WIDTH: dict[str, int] = {profile: width for profile, (width, _, _) in MIG_GEOMETRY.items()}
"""Compute slices one instance of each AKS ``gpuInstanceProfile`` takes, from the catalog's MIG geometry
(Azure/AgentBaker PR #9065: AKS's node bootstrap creates ``floor(total slices / width)`` instances of the profile)."""


def check_mig_profile(
    name: str, profile: str | None, catalog: Catalog | None = None, *, today: date
) -> SizeFinding | None:
    """gpu-mig-profile-capable-size.

    A MIG ``gpuInstanceProfile`` only where AKS supports MIG (A100, H100, H200 sizes: the GPU supporting MIG is not
    enough, e.g. NCv6's RTX PRO 6000 is exposed through SR-IOV), only a known profile, compared as AKS compares it
    (case-insensitively: ``mig2g`` is ``MIG2g``), and only a profile whose slice width fits the GPU: AKS refuses a
    profile wider than the VM's GPU capacity (Azure/AKS release notes 2026-08-07)."""
    if not profile:
        return None
    cat = _cat(catalog)
    canonical = canonical_mig_profile(profile)
    if canonical is None:
        return SizeFinding(
            name,
            f"gpuInstanceProfile {profile!r} is not an AKS MIG profile; allowed: {', '.join(MIG_PROFILES)}.",
        )
    size = cat.lookup(name)
    capable = sorted(s.name for s in cat.sizes() if s.aks_mig and not s.is_retired(today) and s.variant_of is None)
    if size is not None and size.aks_mig:
        width = MIG_PROFILE_WIDTH[canonical]
        if size.mig_slices is not None and width > size.mig_slices:
            fits = [p for p, w in MIG_PROFILE_WIDTH.items() if w <= size.mig_slices]
            return SizeFinding(
                name,
                f"gpuInstanceProfile {canonical} does not fit {size.name} ({size.gpu_model}): one {canonical} "
                f"instance takes {width} compute slices and the GPU has {size.mig_slices}, and AKS refuses a MIG "
                f"profile wider than the VM's GPU capacity. Use one of: {', '.join(fits)}.",
            )
        return None
    model = f" ({size.gpu_model})" if size is not None else ""
    if size is not None and size.mig_capable:
        sriov = "; NCv6 exposes its GPUs through SR-IOV" if "RTXPRO6000" in size.name.upper() else ""
        return SizeFinding(
            name,
            f"gpuInstanceProfile {profile} needs a size AKS partitions with MIG: {size.name}{model} has a "
            f"MIG-capable GPU, but AKS supports MIG on A100, H100 and H200 sizes only{sriov}. Remove the profile or "
            f"use one of: {', '.join(capable)}.",
        )
    return SizeFinding(
        name,
        f"gpuInstanceProfile {profile} needs a MIG-capable GPU, and {name}{model} is not one: only A100, H100 "
        f"and H200 sizes can be partitioned with Multi-Instance GPU. Remove the profile or use one of: "
        f"{', '.join(capable)}.",
    )


def check_amd_features(
    name: str,
    *,
    nvidia_operator: bool,
    aks_driver: bool,
    sharing: str | None,
    catalog: Catalog | None = None,
) -> list[tuple[str, SizeFinding]]:
    """NVIDIA-only set-ups on a size with AMD GPUs, each as ``(field, finding)``; empty for any other size.

    ``field`` names what to change: ``vmSize`` (NVIDIA's GPU operator would manage the pool), ``driver`` (an AKS driver
    install: AKS installs none for AMD and refuses the pool unless the install is skipped), ``sharing`` (time-slicing
    and MPS are NVIDIA device plugin features). MIG is refused by :func:`check_mig_profile` (no AMD size is
    MIG-capable); the OS by :func:`rules.node_os.size_os_problem` (AKS's GPU registry lists AMD sizes on Ubuntu only).
    """
    size = _cat(catalog).lookup(name)
    if size is None or size.gpu_vendor != "AMD" or not size.aks_supported or is_nvv4(name):
        return []  # other AMD sizes are refused outright (check_nvv4, check_aks_supported)
    gpus = f"{size.name} has AMD GPUs ({size.gpu_model})"
    out: list[tuple[str, SizeFinding]] = []
    if nvidia_operator:
        out.append(
            (
                "vmSize",
                SizeFinding(
                    name,
                    f"{gpus}, and NVIDIA's GPU operator (gpuOperator.enabled) manages every Linux GPU pool here: it "
                    f"installs NVIDIA drivers and device plugins only, so these GPUs would stay unusable. {AMD_NEEDS}; "
                    "use an NVIDIA size in this cluster.",
                ),
            )
        )
    elif aks_driver:
        out.append(
            (
                "driver",
                SizeFinding(
                    name,
                    f"{gpus}: AKS creates an AMD GPU pool only with the driver install skipped (gpuProfile.driver "
                    f"None), and nothing here would install one. {AMD_NEEDS}.",
                ),
            )
        )
    if sharing and sharing != "none":
        out.append(
            (
                "sharing",
                SizeFinding(
                    name,
                    f"{gpus}: {sharing} is a feature of NVIDIA's device plugin and does nothing on AMD GPUs. "
                    f"{AMD_NEEDS}; remove sharing.",
                ),
            )
        )
    return out


def check_is_gpu_size(name: str, catalog: Catalog | None = None) -> SizeFinding | None:
    """A GPU node pool needs a GPU size (a catalog size or any ``Standard_N…`` name)."""
    if is_gpu_size(name, catalog):
        return None
    return SizeFinding(
        name,
        f"{name} is not a GPU size: GPU pools need an N-family size from the catalog, e.g. Standard_NC4as_T4_v3, "
        "Standard_NC24ads_A100_v4 or Standard_ND96isr_H100_v5.",
    )


SIZE_RULES = (
    "gpu-size-no-nvv4",
    "gpu-size-known",
    "gpu-size-not-retired",
    "gpu-size-minimum",
    "gpu-size-aks-supported",
)
"""The policy pack's size policies, the rules :func:`check_gpu_size` runs (``gpu-size-aks-supported`` only with
``require_aks``)."""


def check_gpu_size(
    name: str,
    *,
    floor: str = DEFAULT_FLOOR,
    today: date,
    require_aks: bool = True,
    catalog: Catalog | None = None,
    exempt: Collection[str] = (),
) -> list[SizeFinding]:
    """Every size rule at once (what a component calls before registering anything). Empty for non-GPU sizes.
    ``exempt``: size rules (:data:`SIZE_RULES` names) an active exemption waives for this resource."""
    cat = _cat(catalog)
    if not is_gpu_size(name, cat):
        return []
    findings = [
        ("gpu-size-no-nvv4", check_nvv4(name)),
        ("gpu-size-known", check_known(name, cat)),
        ("gpu-size-not-retired", check_retired(name, today, cat)),
        ("gpu-size-minimum", check_minimum(name, floor, cat, today=today)),
        ("gpu-size-aks-supported", check_aks_supported(name, cat) if require_aks else None),
    ]
    return [f for rule, f in findings if f is not None and rule not in exempt]


_ACCEPTED: dict[tuple[int, str, date, bool], tuple[Catalog, tuple[str, ...]]] = {}


def accepted_sizes(
    floor: str = DEFAULT_FLOOR, *, today: date, require_aks: bool, catalog: Catalog | None = None
) -> tuple[str, ...]:
    """Catalog sizes :func:`check_gpu_size` accepts with the floor ``floor`` on ``today``, sorted by name.

    The one answer to "which catalog sizes do the size rules accept" (the exported Azure Policy's allowed list, the
    Databricks policy's node types, NAP's deployable sizes). Computed once per catalog, floor, day and
    ``require_aks``. Raises ``ValueError`` for an unknown floor.
    """
    cat = _cat(catalog)
    key = (id(cat), floor, today, require_aks)
    cached = _ACCEPTED.get(key)
    if cached is not None and cached[0] is cat:
        return cached[1]
    floor_size(floor, cat)  # an unknown floor is refused even when no size reaches check_minimum
    accepted = tuple(
        sorted(
            s.name
            for s in cat.sizes()
            if not check_gpu_size(s.name, floor=floor, today=today, require_aks=require_aks, catalog=cat)
        )
    )
    _ACCEPTED[key] = (cat, accepted)
    return accepted
