"""Stack-config models for KAITO model workspaces (the ``kaito`` key of a stack file).

KAITO (the AKS AI toolchain operator add-on) serves a model from a preset: a ``kaito.sh/v1beta1`` Workspace names
the preset and the GPU instance type, and KAITO provisions ``count`` GPU nodes of that type and runs the model on
them. KAITO rejects a Workspace whose nodes cannot hold the model, or whose model-access secret does not match the
preset; these models reject it earlier, when the stack file is loaded, with the same rules: the preset table and
the checks are the ones in :mod:`gpu_catalog.kaito_presets` (KAITO v0.6.0, the add-on's version on Kubernetes
1.34–1.36), the size rules those in :mod:`gpu_catalog.checks` (the policy pack's messages).

Presets whose weights KAITO downloads at run time (Llama 3.x, DeepSeek R1/V3) need a Hugging Face token. The stack
file never holds it: a workspace names the Secret (``modelAccessSecret``) and a Pulumi *secret* config key
(``modelAccessTokenConfig``, e.g. ``kaito:hfToken``); the KAITO component creates the Secret from that value.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import Field, ValidationInfo, field_validator

from gpu_catalog import DEFAULT_FLOOR, check_aks_supported, check_gpu_size, default_catalog, is_gpu_size
from gpu_catalog.kaito_presets import (
    KAITO_PRESETS,
    KAITO_VERSION,
    MODEL_ACCESS_SECRET_KEY,
    check_kaito_addon_version,
    check_kaito_instance_type,
    check_kaito_model_access,
    check_kaito_preset_fit,
    kaito_preset,
    runtime_download_presets,
)

from .config_base import StrictModel
from .config_keys import CONFIG_KEY_RE
from .kube_names import LABEL_KEY_RE, LABEL_VALUE_RE

PROJECT_NAMESPACE = "azure-gpu-platform"
"""The stack-config namespace: every key in it is part of the typed stack config (unknown keys are refused), so the
token's config key lives in another namespace."""

EXAMPLE_TOKEN_CONFIG = "kaito:hfToken"
"""The config key the docs and messages suggest for the Hugging Face token."""


SERVICE_PORT = 80
"""KAITO exposes each Workspace as a ClusterIP Service named like the Workspace, port 80 (OpenAI-compatible API
with the vLLM runtime: ``/v1/chat/completions``, ``/v1/models``)."""

_DNS_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")


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
    """Name of the Secret (same namespace, key ``HF_TOKEN``) the Workspace reads the Hugging Face token from:
    required for presets KAITO downloads at run time, refused for the others (KAITO v0.6.0's rule). The KAITO
    component creates it from ``modelAccessTokenConfig``."""
    modelAccessTokenConfig: str | None = None
    """Full Pulumi config key (``<namespace>:<key>``, not in the ``azure-gpu-platform`` namespace) of a *secret*
    config value holding the Hugging Face token, e.g. ``kaito:hfToken`` set with
    ``pulumi config set --secret kaito:hfToken <token>``. Required with ``modelAccessSecret``."""

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
            if not LABEL_KEY_RE.match(key):
                raise ValueError(f"labelSelector key {key!r} is not a valid Kubernetes label key")
            if not LABEL_VALUE_RE.match(value):
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
        preset = info.data.get("preset")
        finding = check_kaito_model_access(preset, v) if preset is not None else None
        if finding is None:
            return v
        if v is None:
            name = info.data.get("name") or "<name>"
            raise ValueError(
                f"{finding.message} The platform creates that Secret: set modelAccessSecret (e.g. {name}-hf-token) "
                f"and modelAccessTokenConfig (the secret config key holding the token, e.g. {EXAMPLE_TOKEN_CONFIG})"
            )
        raise ValueError(f"{finding.message} Remove modelAccessTokenConfig with it, if set.")

    @field_validator("modelAccessTokenConfig")
    @classmethod
    def _token_config(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None:
            if not CONFIG_KEY_RE.match(v):
                raise ValueError(
                    f"modelAccessTokenConfig {v!r} must be a full Pulumi config key '<namespace>:<key>', e.g. "
                    f"{EXAMPLE_TOKEN_CONFIG}"
                )
            if v.split(":", 1)[0] == PROJECT_NAMESPACE:
                raise ValueError(
                    f"modelAccessTokenConfig {v!r} is in the {PROJECT_NAMESPACE} namespace, where every key is part "
                    f"of the typed stack config (an extra key is refused): use another namespace, e.g. "
                    f"{EXAMPLE_TOKEN_CONFIG}"
                )
        if "modelAccessSecret" not in info.data:
            return v  # modelAccessSecret itself was refused: one message per problem
        secret = info.data["modelAccessSecret"]
        preset = kaito_preset(info.data["preset"]) if info.data.get("preset") else None
        if secret is not None and v is None:
            raise ValueError(
                f"modelAccessTokenConfig is required with modelAccessSecret {secret!r}: the platform creates that "
                f"Secret (type Opaque, key {MODEL_ACCESS_SECRET_KEY}) from a Pulumi secret config value. Name its "
                f"key, e.g. modelAccessTokenConfig: {EXAMPLE_TOKEN_CONFIG}, and set it with "
                f"`pulumi config set --secret {EXAMPLE_TOKEN_CONFIG} <Hugging Face token>`"
            )
        if secret is None and v is not None and preset is not None:
            raise ValueError(
                f"modelAccessTokenConfig is only for presets KAITO downloads at run time "
                f"({', '.join(runtime_download_presets())}); {preset.name} ships its weights in its image. "
                "Remove it."
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


def config_value_present(key: str) -> bool:
    """Whether the Pulumi config the program runs with has ``key`` (``<namespace>:<key>``), secret or not.

    A ``secure:`` value reaches the program decrypted under the engine, and as an opaque placeholder marked secret
    under the offline preflight (``preflight/mocks.py``): present either way.
    """
    from pulumi.runtime.config import get_config

    return get_config(key) is not None


def kaito_stack_problems(
    kaito: KaitoConfig,
    *,
    cluster_addon: bool,
    floor: str,
    kubernetes_version: str,
    config_present: Callable[[str], bool] = config_value_present,
) -> list[tuple[str, str]]:
    """Cross-section problems of ``kaito`` as ``(key path, message)``: the add-on, its version on the cluster's
    Kubernetes version (the preset table is the add-on 0.6.0's), a raised GPU floor and the token config values.

    ``config_present`` tells whether a config key is set in the stack (default: the Pulumi config the program runs
    with; tests pass their own).
    """
    problems: list[tuple[str, str]] = []
    if kaito.workspaces and not kaito_addon_enabled(kaito, cluster_addon):
        problems.append(
            (
                "kaito.enabled",
                "KAITO workspaces need the AI toolchain operator add-on on the cluster, which is off: set "
                "kaito.enabled: true (or cluster.kaitoAddon: true), or remove kaito.workspaces.",
            )
        )
    if kaito.workspaces:
        why = check_kaito_addon_version(kubernetes_version, "kaito.workspaces")
        if why is not None:
            problems.append(("cluster.kubernetesVersion", why))
    if floor != DEFAULT_FLOOR and floor in default_catalog():
        for i, ws in enumerate(kaito.workspaces):
            try:
                check_kaito_size(ws.instanceType, "instanceType", floor=floor)
            except ValueError as exc:
                problems.append((f"kaito.workspaces[{i}].instanceType", str(exc)))
    for i, ws in enumerate(kaito.workspaces):
        key = ws.modelAccessTokenConfig
        if key is not None and not config_present(key):
            problems.append(
                (
                    f"kaito.workspaces[{i}].modelAccessTokenConfig",
                    f"the secret config value {key} is not set in this stack: KAITO preset {ws.preset} downloads "
                    f"its weights from Hugging Face at run time and the platform creates Secret "
                    f"{ws.namespace}/{ws.modelAccessSecret} (key {MODEL_ACCESS_SECRET_KEY}) from it. Set it with "
                    f"`pulumi config set --secret {key} <Hugging Face token>` (it is stored encrypted in the stack "
                    "file).",
                )
            )
    return problems
