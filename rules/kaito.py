"""KAITO model workspaces: every guard rail once, as a pure function over :class:`KaitoWorkspace` (and
:class:`KaitoCluster`) facts.

Callers: the stack config (``stack_config/kaito.py`` builds facts from a ``kaito.workspaces[i]`` entry and
refuses at ``kaito.workspaces[i].<field>``, the cluster rules at ``cluster.kubernetesVersion`` / ``kaito.enabled``)
and the policy pack (``policies/kaito_workspace_*.py`` judge the facts of the workspace spec ``policies/_specs.py``
builds from the engine properties of a ``kubernetes:kaito.sh/…:Workspace``, and report ``<property path>:
<message>``, the path from
:data:`WORKSPACE_PROPERTIES`). A finding's field is the stack file's key (``instanceType``, ``count``, ``preset``,
``modelAccessSecret``); a reason for "not applicable" names what is missing in the same words.

The facts the rules read are data in :mod:`gpu_catalog`: the GPU sizes (``catalog.json``: vendor, GPUs, GPU memory,
``support.kaito``, price) and KAITO's presets with their GPU needs and whether their weights are downloaded at run
time, the KAITO version they are taken from and the AKS add-on version per Kubernetes minor
(:mod:`gpu_catalog.kaito_presets`, sources in ``gpu_catalog/facts/kaito.json`` and ``kaito_addon.json``). What KAITO
v0.6.0 does with them is here:

- KAITO provisions nodes only for the Azure SKUs in its own table, and only NVIDIA ones (its presets need CUDA); it
  adds them as AKS node pools, so the size must be one AKS supports.
- ``resource.count`` nodes of ``resource.instanceType`` must cover the preset's GPU count, GPU memory per GPU (when
  the preset has such a need) and total GPU memory; KAITO rejects the Workspace otherwise.
- ``inference.preset.presetOptions.modelAccessSecret`` is required exactly for the presets whose weights are
  downloaded at run time and refused for every other one (``api/v1beta1/workspace_validation.go``); an empty string
  counts as absent.
- The preset table is the one of the add-on version AKS runs on Kubernetes 1.34–1.36; workspaces on a cluster whose
  add-on is another version (or unknown) are not checked against a guessed table but refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Final

from gpu_catalog import Catalog, GpuSize, default_catalog, is_gpu_size
from gpu_catalog.kaito_presets import (
    KAITO_ADDON_VERSION,
    KAITO_DEFAULT_COUNT,
    KAITO_PRESETS,
    KAITO_VERSION,
    MODEL_ACCESS_SECRET_KEY,
    KaitoPreset,
    kaito_addon_version,
    kaito_preset,
    kaito_table_minors,
    runtime_download_presets,
)
from rules.sizes import DEFAULT_FLOOR, check_aks_supported, check_gpu_size

from . import Finding, NotApplicable, findings

KAITO_GPU_VENDOR: Final = "NVIDIA"
"""The only GPU vendor KAITO runs (its presets need CUDA)."""
FITTING_SIZES_SHOWN: Final = 5
"""How many fitting sizes a "too small" finding names, cheapest first."""

WORKSPACE_PROPERTIES: Final[dict[str, tuple[str, ...]]] = {
    "instanceType": ("resource", "instanceType"),
    "count": ("resource", "count"),
    "preset": ("inference", "preset", "name"),
    "modelAccessSecret": ("inference", "preset", "presetOptions", "modelAccessSecret"),
}
"""A workspace fact's field → the Workspace property it comes from (KAITO's fields sit at the object's top level)."""


def property_path(field: str) -> str:
    """Where a finding's field is on a Workspace resource: ``instanceType`` → ``resource.instanceType``."""
    return ".".join(WORKSPACE_PROPERTIES[field])


@dataclass(frozen=True, slots=True)
class KaitoWorkspace:
    """One KAITO Workspace as the rules see it. Values that are not set are ``None``."""

    instance_type: str | None = None
    """``resource.instanceType``; ``None``: not set (KAITO then uses existing nodes matched by its label selector)."""
    count: int = KAITO_DEFAULT_COUNT
    """``resource.count``: how many nodes of the instance type KAITO provisions (KAITO's default, 1)."""
    preset: str | None = None
    """``inference.preset.name``; ``None``: no preset (a template workspace)."""
    model_access_secret: str | None = None
    """``inference.preset.presetOptions.modelAccessSecret``; ``""`` counts as not set, as KAITO compares with it."""
    name: str | None = None
    """The Workspace's name (the stack file's ``name``): advice names the Secret after it."""
    model_access_token_config: str | None = None
    """Stack files and the component only: the Pulumi secret config key (``kaito:hfToken``) the platform creates the
    model-access Secret from (``modelAccessTokenConfig``); a resource does not say."""
    model_access_from_key_vault: bool = False
    """Stack files and the component only: the Secret is mirrored from Key Vault (``modelAccessFromKeyVault``), so
    the platform creates none."""


@dataclass(frozen=True, slots=True)
class KaitoCluster:
    """The cluster KAITO workspaces run on."""

    addon_enabled: bool
    """The AKS AI toolchain operator (KAITO) add-on is on."""
    workspaces: int
    """How many KAITO workspaces the cluster serves."""
    kubernetes_version: str | None = None
    """The control plane's Kubernetes version; ``None`` when not known."""


# ------------------------------------------------------------------------------------------------ instance type


def kaito_sizes(catalog: Catalog | None = None, *, today: date) -> list[GpuSize]:
    """The sizes KAITO can provision on ``today``: NVIDIA, in KAITO's SKU table, AKS-supported, not retired; cheapest
    first (indicative prices)."""
    cat = catalog if catalog is not None else default_catalog()
    sizes = [
        s
        for s in cat.sizes()
        if s.kaito_supported and s.gpu_vendor == KAITO_GPU_VENDOR and s.aks_supported and not s.is_retired(today)
    ]
    return sorted(sizes, key=lambda s: s.price_order)


def kaito_instance_types(catalog: Catalog | None = None, *, today: date) -> list[str]:
    """The names of :func:`kaito_sizes` on ``today``, sorted by name."""
    return sorted(s.name for s in kaito_sizes(catalog, today=today))


def _allowed(cat: Catalog, today: date) -> str:
    return f"Allowed, cheapest first (indicative prices): {', '.join(s.name for s in kaito_sizes(cat, today=today))}."


def _instance_type_problem(name: str, cat: Catalog, *, size_rules: bool, floor: str, today: date) -> str | None:
    if not is_gpu_size(name, cat):
        return (
            f"{name} is not a GPU size: KAITO provisions {KAITO_GPU_VENDOR} GPU nodes for the model (its inference "
            f"presets need CUDA). {_allowed(cat, today)}"
        )
    if size_rules:
        findings = check_gpu_size(name, floor=floor, today=today, require_aks=False, catalog=cat)
        if findings:
            return " ".join(f.message for f in findings)
    size = cat.lookup(name)
    if size is None:
        return (
            f"{name} is not a GPU size in the catalog, so KAITO's GPU needs cannot be checked (closest known sizes: "
            f"{', '.join(cat.suggest(name))}). {_allowed(cat, today)}"
        )
    if size.gpu_vendor != KAITO_GPU_VENDOR:
        return (
            f"{size.name} has an {size.gpu_vendor} GPU ({size.gpu_model}): KAITO runs {KAITO_GPU_VENDOR} GPUs only "
            f"(its presets need CUDA). {_allowed(cat, today)}"
        )
    if not size.kaito_supported:
        return (
            f"{size.name} ({size.gpu_model}) is not in KAITO {KAITO_VERSION}'s Azure SKU table, so KAITO cannot "
            f"provision or size nodes for it. {_allowed(cat, today)}"
        )
    if size_rules:
        aks = check_aks_supported(name, cat)
        if aks is not None:
            return f"{aks.message} KAITO adds its nodes as an AKS node pool. {_allowed(cat, today)}"
    return None


def instance_type(
    ws: KaitoWorkspace, *, size_rules: bool = False, floor: str = DEFAULT_FLOOR, today: date
) -> list[Finding] | NotApplicable:
    """kaito-workspace-instance-type (size): the instance type is a known NVIDIA GPU size in KAITO's SKU table.

    ``size_rules`` also applies the catalog's size rules (NVv4, known, retired, not below ``floor``) and AKS support
    before and after KAITO's own, as the stack config does; the policy pack has a policy per size rule. At most one
    finding.
    """
    if not ws.instance_type:
        return NotApplicable(
            "instanceType is not set (KAITO then uses existing nodes matched by its labelSelector or "
            "preferredNodes), so there is no instance type to check"
        )
    problem = _instance_type_problem(
        ws.instance_type, default_catalog(), size_rules=size_rules, floor=floor, today=today
    )
    return [Finding("instanceType", problem)] if problem is not None else []


# ------------------------------------------------------------------------------------------------------ presets


def known_preset(ws: KaitoWorkspace) -> list[Finding] | NotApplicable:
    """The preset is one of the preset table's (the stack config's rule; the policies report a preset newer than the
    table as not checkable instead, through :func:`preset_fit` and :func:`model_access_secret`)."""
    if not ws.preset:
        return NotApplicable("no KAITO preset is set (e.g. a template workspace)")
    if kaito_preset(ws.preset) is not None:
        return []
    return [
        Finding(
            "preset",
            f"{ws.preset!r} is not a KAITO {KAITO_VERSION} inference preset (the version the AKS add-on runs). "
            f"Allowed: {', '.join(sorted(KAITO_PRESETS))}",
        )
    ]


def _table_preset(ws: KaitoWorkspace, unchecked: str) -> KaitoPreset | NotApplicable:
    if not ws.preset:
        return NotApplicable(f"no KAITO preset is set (e.g. a template workspace), so {unchecked}")
    preset = kaito_preset(ws.preset)
    if preset is None:
        return NotApplicable(
            f"KAITO preset {ws.preset!r} is not in the KAITO {KAITO_VERSION} preset table "
            f"(gpu_catalog/kaito_presets.py), so {unchecked}"
        )
    return preset


def _shortfalls(size: GpuSize, preset: KaitoPreset, count: int) -> list[str]:
    """What ``count`` nodes of ``size`` lack for ``preset``: GPUs, GPU memory per GPU, total GPU memory."""
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
    return problems


def preset_fit(ws: KaitoWorkspace, *, today: date) -> list[Finding] | NotApplicable:
    """kaito-workspace-instance-type (fit): ``count`` nodes of the instance type have the GPUs, the GPU memory per GPU
    and the total GPU memory the preset needs.

    Not applicable without an instance type, without a preset or with a preset the table lacks; an instance type the
    catalog lacks is :func:`instance_type`'s finding, not this rule's.
    """
    unchecked = "its GPU memory needs were not checked"
    preset = _table_preset(ws, unchecked)
    if isinstance(preset, NotApplicable):
        return preset
    cat = default_catalog()
    size = cat.lookup(ws.instance_type) if ws.instance_type else None
    if size is None:
        return NotApplicable(f"instanceType is not set or not a catalog size, so {unchecked}")
    problems = _shortfalls(size, preset, ws.count)
    if not problems:
        return []
    fitting = [s.name for s in kaito_sizes(cat, today=today) if not _shortfalls(s, preset, ws.count)][
        :FITTING_SIZES_SHOWN
    ]
    return [
        Finding(
            "instanceType",
            f"{ws.count} x {size.name} ({size.gpu_count} x {size.gpu_model} each) is too small for KAITO preset "
            f"{preset.name}: {'; '.join(problems)} — KAITO {KAITO_VERSION} rejects the Workspace. Sizes that fit with "
            f"count {ws.count}, cheapest first (indicative prices): {', '.join(fitting) or 'none'}; or raise count "
            f"(KAITO's example: {preset.example_count} x {preset.example_instance_type}).",
        )
    ]


# ------------------------------------------------------------------------------------------------- model access


def model_access_secret(ws: KaitoWorkspace) -> list[Finding] | NotApplicable:
    """kaito-workspace-model-access: a model-access secret exactly for the presets whose weights KAITO downloads at
    run time (KAITO v0.6.0 refuses the Workspace both ways)."""
    if not ws.preset:
        return NotApplicable("no KAITO preset is set (e.g. a template workspace): nothing to download, so no rule")
    preset = _table_preset(ws, "whether it needs a model-access secret was not checked")
    if isinstance(preset, NotApplicable):
        return preset
    secret = ws.model_access_secret
    if preset.download_at_runtime and not secret:
        licence = " of an account that accepted the model's licence" if preset.family == "llama3" else ""
        return [
            Finding(
                "modelAccessSecret",
                f"modelAccessSecret is required for KAITO preset {preset.name}: KAITO {KAITO_VERSION} downloads its "
                "weights from Hugging Face at run time (downloadAtRuntime in supported_models.yaml) and refuses the "
                'Workspace without one ("This preset requires a modelAccessSecret with HF_TOKEN key under '
                "presetOptions\"). Name a Secret in the Workspace's namespace with an "
                f"{MODEL_ACCESS_SECRET_KEY} key holding a Hugging Face token{licence}.",
            )
        ]
    if not preset.download_at_runtime and secret:
        return [
            Finding(
                "modelAccessSecret",
                f"modelAccessSecret {secret!r} is not allowed for KAITO preset {preset.name}: its weights ship in "
                f"the preset image (no download at run time), and KAITO {KAITO_VERSION} refuses the Workspace "
                '("This preset does not require a modelAccessSecret with HF_TOKEN key under presetOptions"). '
                f"Remove it. Presets that take one: {', '.join(runtime_download_presets())}.",
            )
        ]
    return []


EXAMPLE_TOKEN_CONFIG: Final = "kaito:hfToken"
"""The config key the docs and messages suggest for the Hugging Face token."""


def model_access(ws: KaitoWorkspace) -> list[Finding]:
    """Stack files and the component only: the model-access Secret matches the preset (:func:`model_access_secret`,
    with what the platform needs to create it) and its token comes from exactly one place: a Pulumi secret config
    value (``modelAccessTokenConfig``) or Key Vault (``modelAccessFromKeyVault``, which needs the Secret it mirrors
    into); a token config only for a preset KAITO downloads at run time. At most one finding.

    The policy pack has :func:`model_access_secret` alone: a Workspace resource does not say where its token comes
    from.
    """
    secret = ws.model_access_secret or None
    token_config = ws.model_access_token_config
    wrong = " ".join(f.message for f in findings(model_access_secret(ws)))
    if wrong and secret is None:
        name = ws.name or "<workspace>"
        return [
            Finding(
                "modelAccessSecret",
                f"{wrong} The platform creates that Secret: set modelAccessSecret (e.g. {name}-hf-token) "
                f"and modelAccessTokenConfig (the secret config key holding the token, e.g. {EXAMPLE_TOKEN_CONFIG})",
            )
        ]
    if wrong:
        return [Finding("modelAccessSecret", f"{wrong} Remove modelAccessTokenConfig with it, if set.")]
    if ws.model_access_from_key_vault and secret is None:
        return [
            Finding(
                "modelAccessFromKeyVault", "modelAccessFromKeyVault needs modelAccessSecret: the Secret it mirrors into"
            )
        ]
    if ws.model_access_from_key_vault and token_config is not None:
        return [
            Finding(
                "modelAccessTokenConfig",
                "the token comes either from Key Vault (modelAccessFromKeyVault: true) or from "
                "modelAccessTokenConfig, not both",
            )
        ]
    if secret is not None and token_config is None and not ws.model_access_from_key_vault:
        return [
            Finding(
                "modelAccessTokenConfig",
                f"modelAccessTokenConfig is required with modelAccessSecret {secret!r}: the platform creates that "
                f"Secret (type Opaque, key {MODEL_ACCESS_SECRET_KEY}) from a Pulumi secret config value. Name its "
                f"key, e.g. modelAccessTokenConfig: {EXAMPLE_TOKEN_CONFIG}, and set it with "
                f"`pulumi config set --secret {EXAMPLE_TOKEN_CONFIG} <Hugging Face token>`",
            )
        ]
    preset = kaito_preset(ws.preset) if ws.preset else None
    if secret is None and token_config is not None and preset is not None:
        return [
            Finding(
                "modelAccessTokenConfig",
                f"modelAccessTokenConfig is only for presets KAITO downloads at run time "
                f"({', '.join(runtime_download_presets())}); {preset.name} ships its weights in its image. "
                "Remove it.",
            )
        ]
    return []


# ------------------------------------------------------------------------------------------------------ cluster


def addon_enabled(cluster: KaitoCluster) -> list[Finding] | NotApplicable:
    """KAITO workspaces need the AKS AI toolchain operator add-on on their cluster."""
    if not cluster.workspaces:
        return NotApplicable("no KAITO workspaces")
    if cluster.addon_enabled:
        return []
    return [
        Finding(
            "addon",
            "KAITO workspaces need the AI toolchain operator add-on on the cluster, which is off: without it the "
            "cluster has no Workspace CRD and no controller to serve the models.",
        )
    ]


def addon_version(cluster: KaitoCluster, *, workspaces: str = "the KAITO workspaces") -> list[Finding] | NotApplicable:
    """Workspaces run on a cluster whose Kubernetes version runs the add-on version of the preset table.

    No fallback to another table: another add-on version has another preset set (0.4.5 on 1.33 serves Llama 2 and no
    Llama 3 or DeepSeek R1/V3), and a minor with no recorded version is not guessed. ``workspaces`` is how the caller
    names the workspaces in the advice (``kaito.workspaces`` in a stack file).
    """
    if not cluster.workspaces:
        return NotApplicable("no KAITO workspaces: the add-on alone serves no preset")
    kubernetes_version = cluster.kubernetes_version
    if kubernetes_version is None:
        return NotApplicable("the cluster's Kubernetes version is not known")
    version = kaito_addon_version(kubernetes_version)
    if version == KAITO_ADDON_VERSION:
        return []
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
    return [
        Finding(
            "kubernetesVersion",
            f"{found}: KAITO workspaces are checked against KAITO {KAITO_VERSION}'s presets, which the add-on "
            f"{KAITO_ADDON_VERSION} runs on Kubernetes {allowed} (gpu_catalog/facts/kaito_addon.json). Use Kubernetes "
            f"{allowed}, or remove {workspaces}.",
        )
    ]


__all__ = [
    "EXAMPLE_TOKEN_CONFIG",
    "FITTING_SIZES_SHOWN",
    "KAITO_GPU_VENDOR",
    "WORKSPACE_PROPERTIES",
    "KaitoCluster",
    "KaitoWorkspace",
    "addon_enabled",
    "addon_version",
    "instance_type",
    "kaito_instance_types",
    "kaito_sizes",
    "known_preset",
    "model_access",
    "model_access_secret",
    "preset_fit",
    "property_path",
]
