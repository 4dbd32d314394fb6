"""Stack-config models for KAITO model workspaces (the ``kaito`` key of a stack file).

KAITO (the AKS AI toolchain operator add-on) serves a model from a preset: a ``kaito.sh/v1beta1`` Workspace names
the preset and the GPU instance type, and KAITO provisions ``count`` GPU nodes of that type and runs the model on
them. KAITO rejects a Workspace whose nodes cannot hold the model; these models reject it earlier, when the stack
file is loaded, with the same numbers: the preset table and the checks are the ones in
:mod:`gpu_catalog.kaito_presets` (KAITO v0.6.0, the add-on's version), the size rules those in
:mod:`gpu_catalog.checks` (the policy pack's messages).
"""

from __future__ import annotations

import re

from pydantic import Field, ValidationInfo, field_validator

from gpu_catalog import DEFAULT_FLOOR, check_aks_supported, check_gpu_size, default_catalog, is_gpu_size
from gpu_catalog.kaito_presets import (
    KAITO_PRESETS,
    KAITO_VERSION,
    check_kaito_instance_type,
    check_kaito_preset_fit,
    kaito_preset,
)

from .config_base import StrictModel

GATED_FAMILIES: frozenset[str] = frozenset({"llama3"})
"""Preset families whose weights KAITO downloads at run time from Hugging Face behind a licence gate (Meta's Llama
licence): the Workspace needs ``inference.preset.presetOptions.modelAccessSecret``, a Secret with an ``HF_TOKEN``
key whose account accepted the licence."""

SERVICE_PORT = 80
"""KAITO exposes each Workspace as a ClusterIP Service named like the Workspace, port 80 (OpenAI-compatible API
with the vLLM runtime: ``/v1/chat/completions``, ``/v1/models``)."""

_DNS_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_LABEL_KEY_RE = re.compile(r"^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_LABEL_VALUE_RE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")


def kaito_instance_types() -> list[str]:
    """Current catalog sizes KAITO can provision (NVIDIA, in KAITO's SKU table, not retired)."""
    return sorted(
        s.name
        for s in default_catalog().sizes()
        if s.kaito_supported and s.gpu_vendor == "NVIDIA" and s.aks_supported and not s.is_retired()
    )


def check_kaito_size(value: str, key: str, *, floor: str = DEFAULT_FLOOR) -> str:
    """The canonical catalog name of a KAITO instance type, or ``ValueError`` naming ``key`` and the allowed sizes.

    Order: not a GPU size → the project's size rules (NVv4, unknown, retired, below the floor; the policy pack's
    messages) → KAITO's own rule (NVIDIA only, in KAITO's SKU table) → AKS support (KAITO adds AKS node pools).
    """
    cat = default_catalog()
    allowed = ", ".join(kaito_instance_types())
    if not is_gpu_size(value, cat):
        raise ValueError(
            f"{key} {value!r} is not a GPU size: KAITO provisions GPU nodes for the model. Allowed: {allowed}"
        )
    findings = check_gpu_size(value, floor=floor, require_aks=False, catalog=cat)
    if findings:
        raise ValueError(" ".join(f.message for f in findings))
    finding = check_kaito_instance_type(value, cat) or check_aks_supported(value, cat)
    if finding is not None:
        raise ValueError(f"{finding.message} Allowed: {allowed}")
    return cat[value].name


class KaitoWorkspaceConfig(StrictModel):
    """``kaito.workspaces[i]``: one model served by KAITO. Field order matters: later validators read earlier ones."""

    name: str
    """Workspace name = the in-cluster Service name (DNS label, ≤ 63 characters)."""
    preset: str
    """KAITO preset (``inference.preset.name``), e.g. ``phi-4-mini-instruct``."""
    count: int = Field(default=1, ge=1, le=16)
    """How many nodes of ``instanceType`` KAITO provisions (the model is split across them when it needs to)."""
    instanceType: str
    labelSelector: dict[str, str] | None = None
    """Labels of the nodes KAITO provisions and selects (default ``{"apps": <name>}``)."""
    namespace: str = "default"
    modelAccessSecret: str | None = None
    """Name of a Secret (same namespace) with an ``HF_TOKEN`` key, for gated models (Llama presets)."""

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _DNS_LABEL_RE.match(v):
            raise ValueError(
                f"name {v!r} must be a DNS label (lowercase letters, digits and '-', ≤ 63 characters, starting and "
                "ending with a letter or digit): KAITO names the model's Service after the Workspace"
            )
        return v

    @field_validator("preset")
    @classmethod
    def _preset(cls, v: str) -> str:
        preset = kaito_preset(v)
        if preset is None:
            raise ValueError(
                f"preset {v!r} is not a KAITO {KAITO_VERSION} inference preset (the version the AKS add-on runs). "
                f"Allowed: {', '.join(sorted(KAITO_PRESETS))}"
            )
        return preset.name

    @field_validator("instanceType")
    @classmethod
    def _instance_type(cls, v: str, info: ValidationInfo) -> str:
        name = check_kaito_size(v, "instanceType")
        preset = info.data.get("preset")
        count = info.data.get("count")
        if preset is not None and count is not None:
            finding = check_kaito_preset_fit(name, preset, count)
            if finding is not None:
                cat = default_catalog()
                fitting = sorted(
                    (s for s in kaito_instance_types() if check_kaito_preset_fit(s, preset, count) is None),
                    key=lambda s: (cat[s].price_usd_per_hour is None, cat[s].price_usd_per_hour or 0.0, s),
                )
                raise ValueError(
                    f"{finding.message} Sizes that fit with count {count}, cheapest first (indicative prices): "
                    f"{', '.join(fitting[:5]) or 'none'}"
                )
        return name

    @field_validator("labelSelector")
    @classmethod
    def _labels(cls, v: dict[str, str] | None) -> dict[str, str] | None:
        if v is None:
            return v
        if not v:
            raise ValueError("labelSelector must have at least one label (or be left out: default apps=<name>)")
        for key, value in v.items():
            if not _LABEL_KEY_RE.match(key):
                raise ValueError(f"labelSelector key {key!r} is not a valid Kubernetes label key")
            if not _LABEL_VALUE_RE.match(value):
                raise ValueError(f"labelSelector value {value!r} (key {key!r}) is not a valid Kubernetes label value")
        return v

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, v: str) -> str:
        if not _DNS_LABEL_RE.match(v):
            raise ValueError(f"namespace {v!r} must be a DNS label (lowercase letters, digits and '-')")
        return v

    @field_validator("modelAccessSecret")
    @classmethod
    def _secret(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None and not _DNS_SUBDOMAIN_RE.match(v):
            raise ValueError(f"modelAccessSecret {v!r} must be a Kubernetes Secret name (lowercase DNS subdomain)")
        preset_name = info.data.get("preset")
        preset = kaito_preset(preset_name) if preset_name else None
        if v is None and preset is not None and preset.family in GATED_FAMILIES:
            raise ValueError(
                f"modelAccessSecret is required for preset {preset.name}: KAITO downloads its weights from Hugging "
                "Face at run time and the model is gated by its licence. Name a Secret in the Workspace's namespace "
                "with an HF_TOKEN key of an account that accepted the licence"
            )
        return v

    # -- derived values --------------------------------------------------------------------------------------

    @property
    def match_labels(self) -> dict[str, str]:
        return dict(self.labelSelector) if self.labelSelector else {"apps": self.name}

    @property
    def service_host(self) -> str:
        """The in-cluster DNS name of the Service KAITO creates for this Workspace."""
        return f"{self.name}.{self.namespace}.svc.cluster.local"

    @property
    def endpoint(self) -> str:
        """OpenAI-compatible chat endpoint inside the cluster."""
        return f"http://{self.service_host}/v1/chat/completions"


class KaitoConfig(StrictModel):
    """``kaito``: the AKS AI toolchain operator add-on and the model workspaces it serves."""

    enabled: bool | None = None
    """Turn on the KAITO add-on (``aiToolchainOperatorProfile.enabled``; it turns the OIDC issuer on). Unset: the
    cluster's own flag (``cluster.kaitoAddon``) decides; ``false`` with workspaces is refused."""
    workspaces: list[KaitoWorkspaceConfig] = Field(default_factory=list)

    @field_validator("workspaces")
    @classmethod
    def _workspaces(cls, v: list[KaitoWorkspaceConfig], info: ValidationInfo) -> list[KaitoWorkspaceConfig]:
        if v and info.data.get("enabled") is False:
            raise ValueError(
                "KAITO workspaces need the AI toolchain operator add-on on the cluster, and kaito.enabled is false: "
                "set kaito.enabled: true (or remove the workspaces)"
            )
        seen: set[str] = set()
        for ws in v:
            if ws.name in seen:
                raise ValueError(
                    f"workspace name {ws.name!r} appears twice; names must be unique in the stack (they key the "
                    "output contract and the resource names)"
                )
            seen.add(ws.name)
        return v


def kaito_addon_enabled(kaito: KaitoConfig, cluster_addon: bool) -> bool:
    """The cluster's KAITO add-on flag: ``cluster.kaitoAddon`` or ``kaito.enabled``."""
    return cluster_addon or kaito.enabled is True


def kaito_stack_problems(kaito: KaitoConfig, *, cluster_addon: bool, floor: str) -> list[tuple[str, str]]:
    """Cross-section problems of ``kaito`` as ``(key path, message)``: the add-on and a raised GPU floor."""
    problems: list[tuple[str, str]] = []
    if kaito.workspaces and not kaito_addon_enabled(kaito, cluster_addon):
        problems.append(
            (
                "kaito.enabled",
                "KAITO workspaces need the AI toolchain operator add-on on the cluster, which is off: set "
                "kaito.enabled: true (or cluster.kaitoAddon: true), or remove kaito.workspaces.",
            )
        )
    if floor != DEFAULT_FLOOR and floor in default_catalog():
        for i, ws in enumerate(kaito.workspaces):
            try:
                check_kaito_size(ws.instanceType, "instanceType", floor=floor)
            except ValueError as exc:
                problems.append((f"kaito.workspaces[{i}].instanceType", str(exc)))
    return problems
