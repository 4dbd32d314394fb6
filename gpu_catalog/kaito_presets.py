"""KAITO facts as data: the inference presets and their GPU needs, which presets download their weights at run time,
the KAITO version they are taken from and the AKS add-on version per Kubernetes minor. No rules and no Pulumi
imports: the guard rails over these facts (instance type, preset fit, model-access secret, add-on version) are
``rules/kaito.py``, which the stack config, the KAITO component and the policy pack (``kaito-workspace-instance-type``,
``kaito-workspace-model-access``) call. This is the one copy of the preset table.

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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

KAITO_DEFAULT_COUNT = 1
"""A Workspace's ``resource.count`` when unset: KAITO provisions one node (kaito.sh/v1beta1 Workspace CRD default)."""

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
