"""KAITO inference presets and their GPU needs, plus the pure instance-type checks for a KAITO Workspace.

The one copy of the preset table: the policy pack (``kaito-workspace-instance-type``) and the KAITO component both
use it. No Pulumi imports.

Source: kaito-project/kaito at tag v0.6.0 (the version the AKS AI toolchain operator add-on runs),
``presets/workspace/models/<family>/model.go`` ``GetInferenceParameters()`` and ``examples/inference/*.yaml``,
as summarised in the team's ``kaito_presets.md``. KAITO validates a Workspace's ``resource.instanceType`` x
``resource.count`` against three requirements of the preset: the number of GPUs, the GPU memory per GPU (0 = no
per-GPU requirement, the model is split across GPUs) and the total GPU memory. Later KAITO versions (v0.8.0+)
changed the requirement field to the model's weight size and address presets by Hugging Face IDs; those names are
not in this table and are reported as not checkable rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import Catalog, default_catalog
from .checks import Finding, is_gpu_size

RULE_KAITO = "kaito-workspace-instance-type"

KAITO_VERSION = "v0.6.0"
KAITO_PRESETS_SOURCE = (
    "kaito-project/kaito v0.6.0 presets/workspace/models/*/model.go (GetInferenceParameters) and examples/inference"
)


@dataclass(frozen=True, slots=True)
class KaitoPreset:
    """What one KAITO inference preset needs from the nodes KAITO provisions for it."""

    name: str
    family: str
    gpu_count: int
    total_gpu_memory_gib: float
    per_gpu_memory_gib: float
    """0 means "no per-GPU requirement" (native vertical model parallelism)."""
    disk_gib: float
    example_instance_type: str
    example_count: int = 1


def _p(
    names: tuple[str, ...],
    family: str,
    *,
    gpus: int,
    total: float,
    per_gpu: float,
    disk: float,
    example: str,
    count: int = 1,
) -> list[KaitoPreset]:
    return [KaitoPreset(n, family, gpus, total, per_gpu, disk, example, count) for n in names]


_A100 = "Standard_NC24ads_A100_v4"

_PRESETS: list[KaitoPreset] = [
    *_p(("falcon-7b", "falcon-7b-instruct"), "falcon", gpus=1, total=14, per_gpu=0, disk=90, example=_A100),
    *_p(
        ("falcon-40b", "falcon-40b-instruct"),
        "falcon",
        gpus=2,
        total=90,
        per_gpu=0,
        disk=280,
        example="Standard_NC96ads_A100_v4",
    ),
    *_p(
        ("llama-3.1-8b-instruct",), "llama3", gpus=1, total=22, per_gpu=0, disk=110, example="Standard_NC96ads_A100_v4"
    ),
    *_p(
        ("llama-3.3-70b-instruct",),
        "llama3",
        gpus=4,
        total=320,
        per_gpu=80,
        disk=220,
        example="Standard_NC48ads_A100_v4",
        count=2,
    ),
    *_p(("mistral-7b",), "mistral", gpus=1, total=14, per_gpu=0, disk=90, example=_A100),
    *_p(("mistral-7b-instruct",), "mistral", gpus=1, total=16, per_gpu=0, disk=90, example=_A100),
    *_p(("phi-2",), "phi2", gpus=1, total=12, per_gpu=0, disk=80, example=_A100),
    *_p(
        ("phi-3-mini-4k-instruct", "phi-3-mini-128k-instruct"),
        "phi3",
        gpus=1,
        total=9,
        per_gpu=0,
        disk=80,
        example=_A100,
    ),
    *_p(
        ("phi-3-medium-4k-instruct", "phi-3-medium-128k-instruct"),
        "phi3",
        gpus=1,
        total=28,
        per_gpu=0,
        disk=120,
        example=_A100,
    ),
    *_p(("phi-3.5-mini-instruct",), "phi3", gpus=1, total=8, per_gpu=0, disk=70, example=_A100),
    *_p(("phi-4",), "phi4", gpus=1, total=40, per_gpu=0, disk=150, example=_A100),
    *_p(("phi-4-mini-instruct",), "phi4", gpus=1, total=8, per_gpu=0, disk=70, example=_A100),
    *_p(("qwen2.5-coder-7b-instruct",), "qwen", gpus=1, total=24, per_gpu=0, disk=110, example=_A100),
    *_p(("qwen2.5-coder-32b-instruct",), "qwen", gpus=1, total=70, per_gpu=0, disk=230, example=_A100),
    *_p(("deepseek-r1-distill-llama-8b",), "deepseek", gpus=1, total=16.5, per_gpu=0, disk=90, example=_A100),
    *_p(("deepseek-r1-distill-qwen-14b",), "deepseek", gpus=1, total=25.7, per_gpu=0, disk=120, example=_A100),
    # "at least 8 H100"; deepseek-v3-0324 reuses the R1 metadata in v0.6.0.
    *_p(
        ("deepseek-r1-0528", "deepseek-v3-0324"),
        "deepseek",
        gpus=1,
        total=960,
        per_gpu=0,
        disk=800,
        example="Standard_NC80adis_H100_v5",
        count=6,
    ),
]

KAITO_PRESETS: dict[str, KaitoPreset] = {p.name: p for p in _PRESETS}


def kaito_preset(name: str) -> KaitoPreset | None:
    """The preset by its ``inference.preset.name`` (case-insensitive), or ``None`` when this table lacks it."""
    return KAITO_PRESETS.get(name.lower())


def _kaito_alternatives(cat: Catalog) -> str:
    """Current KAITO sizes, cheapest first (indicative prices), for "use instead" advice."""
    sizes = [s for s in cat.sizes() if s.kaito_supported and s.gpu_vendor == "NVIDIA" and not s.is_retired()]
    sizes.sort(key=lambda s: (s.price_usd_per_hour is None, s.price_usd_per_hour or 0.0, s.name))
    return ", ".join(s.name for s in sizes[:3])


def check_kaito_instance_type(name: str, catalog: Catalog | None = None) -> Finding | None:
    """A KAITO Workspace ``resource.instanceType`` must be a known, NVIDIA, KAITO-supported GPU size."""
    cat = catalog if catalog is not None else default_catalog()
    size = cat.lookup(name)
    if size is None:
        if is_gpu_size(name, cat):
            why = (
                f"{name} is not a GPU size in the catalog, so KAITO's GPU needs cannot be checked "
                f"(closest known sizes: {', '.join(cat.suggest(name))})"
            )
        else:
            why = f"{name} is not a GPU size: KAITO inference presets need NVIDIA GPU nodes"
        return Finding(RULE_KAITO, name, f"{why}. Use a KAITO-supported size such as {_kaito_alternatives(cat)}.")
    if size.gpu_vendor != "NVIDIA":
        return Finding(
            RULE_KAITO,
            name,
            f"{size.name} has an {size.gpu_vendor} GPU ({size.gpu_model}): KAITO runs NVIDIA GPUs only (its presets "
            f"need CUDA). Use a KAITO-supported NVIDIA size such as {_kaito_alternatives(cat)}.",
        )
    if not size.kaito_supported:
        return Finding(
            RULE_KAITO,
            name,
            f"{size.name} ({size.gpu_model}) is not in KAITO {KAITO_VERSION}'s Azure SKU table, so KAITO cannot "
            f"provision or size nodes for it. Use a KAITO-supported size such as {_kaito_alternatives(cat)}.",
        )
    return None


def check_kaito_preset_fit(
    name: str, preset_name: str, count: int = 1, catalog: Catalog | None = None
) -> Finding | None:
    """``count`` nodes of ``name`` must meet the preset's GPU count, per-GPU and total GPU memory needs.

    Returns ``None`` when the size or the preset is not known (other checks report an unknown size; an unknown
    preset is the caller's to report as not checkable).
    """
    cat = catalog if catalog is not None else default_catalog()
    size = cat.lookup(name)
    preset = kaito_preset(preset_name)
    if size is None or preset is None:
        return None
    gpus = count * size.gpu_count
    total = count * size.gpu_memory_gib_per_vm
    per_gpu = size.gpu_memory_gib_per_gpu
    problems: list[str] = []
    if gpus < preset.gpu_count:
        problems.append(f"{gpus} GPU(s) < {preset.gpu_count} required")
    if preset.per_gpu_memory_gib and per_gpu < preset.per_gpu_memory_gib:
        problems.append(f"{per_gpu:g} GiB per GPU < {preset.per_gpu_memory_gib:g} GiB required")
    if total < preset.total_gpu_memory_gib:
        problems.append(f"{total:g} GiB total GPU memory < {preset.total_gpu_memory_gib:g} GiB required")
    if not problems:
        return None
    return Finding(
        RULE_KAITO,
        name,
        f"{count} x {size.name} ({size.gpu_count} x {size.gpu_model} each) is too small for KAITO preset "
        f"{preset.name}: {'; '.join(problems)} — KAITO {KAITO_VERSION} rejects the Workspace. Use e.g. "
        f"{preset.example_count} x {preset.example_instance_type} (KAITO's example), or raise resource.count.",
    )
