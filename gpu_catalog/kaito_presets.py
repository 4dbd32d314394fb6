"""KAITO inference presets and their GPU needs, the AKS add-on version per Kubernetes minor, and the pure checks for
a KAITO Workspace (instance type, model-access secret, add-on version).

The one copy of the preset table: the policy pack (``kaito-workspace-instance-type``,
``kaito-workspace-model-access``), the stack config and the KAITO component all use it. No Pulumi imports.

Sources (recorded with their tags in ``facts/kaito.json`` and ``facts/kaito_addon.json``):

- GPU needs: kaito-project/kaito at tag v0.6.0 (the version the AKS AI toolchain operator add-on runs),
  ``presets/workspace/models/<family>/model.go`` ``GetInferenceParameters()`` and ``examples/inference/*.yaml``,
  as summarised in the team's ``kaito_presets.md``. KAITO validates a Workspace's ``resource.instanceType`` x
  ``resource.count`` against three requirements of the preset: the number of GPUs, the GPU memory per GPU (0 = no
  per-GPU requirement, the model is split across GPUs) and the total GPU memory.
- Download at run time: kaito-project/kaito v0.6.0 ``presets/workspace/models/supported_models.yaml``
  (``downloadAtRuntime: true``). ``api/v1beta1/workspace_validation.go`` (``InferenceSpec.validateCreate``) requires
  ``inference.preset.presetOptions.modelAccessSecret`` exactly for those presets and refuses it for every other one;
  ``pkg/workspace/inference/preset_inferences.go`` (``SetModelDownloadInfo``) reads the token from the Secret's
  ``HF_TOKEN`` key.
- Add-on version: MicrosoftDocs/azure-aks-docs ``articles/aks/supported-kubernetes-versions.md`` and
  ``articles/aks/ai-toolchain-operator.md`` (``facts/kaito_addon.json``).

Later KAITO versions (v0.8.0+) changed the requirement field to the model's weight size and address presets by
Hugging Face IDs; those names are not in this table and are reported as not checkable rather than guessed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .catalog import Catalog, default_catalog
from .checks import Finding, is_gpu_size

RULE_KAITO = "kaito-workspace-instance-type"
RULE_KAITO_MODEL_ACCESS = "kaito-workspace-model-access"

KAITO_VERSION = "v0.6.0"
"""The KAITO release this preset table is taken from: the one the AKS add-on runs (``KAITO_ADDON_VERSION``)."""
KAITO_ADDON_VERSION = "0.6.0"
"""The AKS ``ai-toolchain-operator`` add-on version that runs :data:`KAITO_VERSION`."""
KAITO_PRESETS_SOURCE = (
    "kaito-project/kaito v0.6.0 presets/workspace/models/*/model.go (GetInferenceParameters) and examples/inference"
)
KAITO_DOWNLOAD_SOURCE = (
    "kaito-project/kaito v0.6.0 presets/workspace/models/supported_models.yaml (downloadAtRuntime) and "
    "api/v1beta1/workspace_validation.go (InferenceSpec.validateCreate)"
)
MODEL_ACCESS_SECRET_KEY = "HF_TOKEN"
"""The key KAITO reads from the model-access Secret (v0.6.0 ``pkg/workspace/inference/preset_inferences.go``)."""

FACTS_DIR = Path(__file__).with_name("facts")
KAITO_FACTS_PATH = FACTS_DIR / "kaito.json"
KAITO_ADDON_FACTS_PATH = FACTS_DIR / "kaito_addon.json"


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
    download_at_runtime: bool = False
    """KAITO downloads the weights from Hugging Face when the model starts (``downloadAtRuntime: true`` in
    ``supported_models.yaml``) instead of shipping them in the preset image: the Workspace must then name a
    ``modelAccessSecret`` (a Secret with an ``HF_TOKEN`` key), and for every other preset it must not."""


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
    download: bool = False,
) -> list[KaitoPreset]:
    return [KaitoPreset(n, family, gpus, total, per_gpu, disk, example, count, download) for n in names]


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
    # Meta's Llama weights are licence-gated on Hugging Face: downloaded at run time with the Workspace's token.
    *_p(
        ("llama-3.1-8b-instruct",),
        "llama3",
        gpus=1,
        total=22,
        per_gpu=0,
        disk=110,
        example="Standard_NC96ads_A100_v4",
        download=True,
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
        download=True,
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
    # "at least 8 H100"; deepseek-v3-0324 reuses the R1 metadata in v0.6.0. Too large for an image: downloaded at
    # run time (not licence-gated, but KAITO v0.6.0 still requires the token Secret for every runtime download).
    *_p(
        ("deepseek-r1-0528", "deepseek-v3-0324"),
        "deepseek",
        gpus=1,
        total=960,
        per_gpu=0,
        disk=800,
        example="Standard_NC80adis_H100_v5",
        count=6,
        download=True,
    ),
]

KAITO_PRESETS: dict[str, KaitoPreset] = {p.name: p for p in _PRESETS}


def kaito_preset(name: str) -> KaitoPreset | None:
    """The preset by its ``inference.preset.name`` (case-insensitive), or ``None`` when this table lacks it."""
    return KAITO_PRESETS.get(name.lower())


def runtime_download_presets() -> list[str]:
    """Presets whose weights KAITO downloads at run time (they need a ``modelAccessSecret``), sorted."""
    return sorted(p.name for p in _PRESETS if p.download_at_runtime)


# ---------------------------------------------------------------------------------------------- model access


def check_kaito_model_access(preset_name: str, model_access_secret: str | None) -> Finding | None:
    """KAITO v0.6.0's rule: ``modelAccessSecret`` is required for a download-at-runtime preset and refused for any
    other preset. An empty string counts as absent (KAITO compares with ``""``).

    The message is neutral about where the field is written: each caller names its own key path (the stack file's
    ``kaito.workspaces[i].modelAccessSecret``, the Workspace's ``inference.preset.presetOptions.modelAccessSecret``).
    Returns ``None`` when the preset is not in the table (the caller reports it as not checkable).
    """
    preset = kaito_preset(preset_name)
    if preset is None:
        return None
    has_secret = bool(model_access_secret)
    if preset.download_at_runtime and not has_secret:
        return Finding(
            RULE_KAITO_MODEL_ACCESS,
            preset.name,
            f"modelAccessSecret is required for KAITO preset {preset.name}: KAITO {KAITO_VERSION} downloads its "
            "weights from Hugging Face at run time (downloadAtRuntime in supported_models.yaml) and refuses the "
            'Workspace without one ("This preset requires a modelAccessSecret with HF_TOKEN key under '
            "presetOptions\"). Name a Secret in the Workspace's namespace with an "
            f"{MODEL_ACCESS_SECRET_KEY} key holding a Hugging Face token"
            + (" of an account that accepted the model's licence." if preset.family == "llama3" else "."),
        )
    if not preset.download_at_runtime and has_secret:
        return Finding(
            RULE_KAITO_MODEL_ACCESS,
            preset.name,
            f"modelAccessSecret {model_access_secret!r} is not allowed for KAITO preset {preset.name}: its weights "
            f"ship in the preset image (no download at run time), and KAITO {KAITO_VERSION} refuses the Workspace "
            '("This preset does not require a modelAccessSecret with HF_TOKEN key under presetOptions"). '
            f"Remove it. Presets that take one: {', '.join(runtime_download_presets())}.",
        )
    return None


# ------------------------------------------------------------------------------------- add-on version (AKS)

_MINOR_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)?$")


class KaitoFactsError(ValueError):
    """A KAITO facts file is malformed. The message names the file and the entry."""


@lru_cache(maxsize=1)
def _addon_table() -> dict[str, str]:
    """Kubernetes minor (``"1.34"``) → AKS ``ai-toolchain-operator`` add-on version, from ``facts/kaito_addon.json``."""
    path = KAITO_ADDON_FACTS_PATH
    try:
        doc: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise KaitoFactsError(f"{path}: cannot read: {exc}") from exc
    rows = doc.get("versions") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not rows:
        raise KaitoFactsError(f"{path}: expected a non-empty 'versions' list")
    table: dict[str, str] = {}
    for i, row in enumerate(rows):
        minor = row.get("kubernetesMinor") if isinstance(row, dict) else None
        version = row.get("addonVersion") if isinstance(row, dict) else None
        if not isinstance(minor, str) or not _MINOR_RE.match(minor) or not isinstance(version, str) or not version:
            raise KaitoFactsError(f"{path}: versions[{i}] needs 'kubernetesMinor' like '1.34' and 'addonVersion'")
        if not row.get("sources"):
            raise KaitoFactsError(f"{path}: versions[{i}] ({minor}) names no source")
        if minor in table:
            raise KaitoFactsError(f"{path}: versions[{i}]: Kubernetes {minor} appears twice")
        table[minor] = version
    return table


def kubernetes_minor(kubernetes_version: str) -> str | None:
    """``"1.36"`` for ``"1.36"``, ``"1.36.2"`` or ``"v1.36.2"``; ``None`` when it is not a Kubernetes version."""
    match = _MINOR_RE.match(kubernetes_version.strip())
    return f"{int(match.group(1))}.{int(match.group(2))}" if match else None


def kaito_addon_version(kubernetes_version: str) -> str | None:
    """The AKS AI toolchain operator (KAITO) add-on version on a cluster of this Kubernetes version, or ``None``
    when the AKS add-on table (``facts/kaito_addon.json``) records none for its minor."""
    minor = kubernetes_minor(kubernetes_version)
    return _addon_table().get(minor) if minor is not None else None


def kaito_table_minors() -> list[str]:
    """Kubernetes minors whose add-on runs the KAITO version of this preset table (:data:`KAITO_ADDON_VERSION`)."""
    rows = [m for m, v in _addon_table().items() if v == KAITO_ADDON_VERSION]
    return sorted(rows, key=lambda m: tuple(int(x) for x in m.split(".")))


def check_kaito_addon_version(kubernetes_version: str, workspaces: str = "the workspaces") -> str | None:
    """``None`` when a cluster of ``kubernetes_version`` runs the add-on version this preset table is for; otherwise
    why not. No fallback to another table: another add-on version has another preset set (0.4.5 on 1.33 serves
    Llama 2 and no Llama 3 or DeepSeek R1/V3), and a minor with no recorded version is not guessed. ``workspaces``
    is how the caller names the workspaces in the advice (e.g. ``kaito.workspaces``)."""
    version = kaito_addon_version(kubernetes_version)
    if version == KAITO_ADDON_VERSION:
        return None
    minors = kaito_table_minors()
    allowed = ", ".join(minors[:-1]) + f" or {minors[-1]}" if len(minors) > 1 else ", ".join(minors)
    if version is None:
        found = (
            f"the AKS add-on table records no AI toolchain operator (KAITO) add-on version for Kubernetes "
            f"{kubernetes_version}"
        )
    else:
        found = (
            f"on Kubernetes {kubernetes_version} AKS runs the AI toolchain operator (KAITO) add-on {version}, "
            f"not {KAITO_ADDON_VERSION}"
        )
    return (
        f"{found}: KAITO workspaces are checked against KAITO {KAITO_VERSION}'s presets, which the add-on "
        f"{KAITO_ADDON_VERSION} runs on Kubernetes {allowed} (gpu_catalog/facts/kaito_addon.json). Use Kubernetes "
        f"{allowed}, or remove {workspaces}."
    )


# ------------------------------------------------------------------------------------------ instance type


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
