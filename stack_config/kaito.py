"""Stack-config models for KAITO model workspaces (the ``kaito`` key of a stack file).

KAITO (the AKS AI toolchain operator add-on) serves a model from a preset: a ``kaito.sh/v1beta1`` Workspace names the
preset and the GPU instance type, and KAITO provisions ``count`` GPU nodes of that type and runs the model on them.
KAITO rejects a Workspace whose nodes cannot hold the model, or whose model-access secret does not match the preset;
these models reject it earlier, when the stack file is loaded, with the same rules the policy pack applies: validators
check one key on their own; the rules relating keys (a preset and the nodes that must hold it, the model-access secret
and its token key, workspaces with the add-on off) are the KAITO checklist's (:func:`rules.checklists.kaito_workspace`,
the one ``KaitoWorkspaceArgs`` calls, through the workspace's spec :meth:`KaitoWorkspaceConfig.spec`) and run on the
whole validated config in :func:`workspace_problems` and :func:`kaito_stack_problems`, so no validator depends on field
order; what stays here alone: names written twice, the add-on turned off with workspaces, a token config value missing
from the stack. The preset table is data in
:mod:`gpu_catalog.kaito_presets` (KAITO v0.6.0, the add-on's version on Kubernetes 1.34–1.36). What is left here is
the stack file's own shape (names, labels) and the token config key the platform creates the model-access Secret from.

Presets whose weights KAITO downloads at run time (Llama 3.x, DeepSeek R1/V3) need a Hugging Face token. The stack
file never holds it: a workspace names the Secret (``modelAccessSecret``) and a Pulumi *secret* config key
(``modelAccessTokenConfig``, e.g. ``kaito:hfToken``); the KAITO component creates the Secret from that value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from pydantic import Field, ValidationInfo, field_validator

from gpu_catalog import clock, default_catalog
from gpu_catalog.kaito_presets import KAITO_DEFAULT_COUNT, MODEL_ACCESS_SECRET_KEY, kaito_preset
from rules import Finding, NotApplicable, findings
from rules.checklists import kaito_cluster
from rules.kaito import EXAMPLE_TOKEN_CONFIG, KaitoCluster, KaitoWorkspace, addon_enabled, instance_type, known_preset
from rules.kube_names import LABEL_KEY_RE, LABEL_VALUE_RE
from rules.sizes import DEFAULT_FLOOR
from rules.specs import KaitoGpuWorkspace

from .base import StrictModel, context_today
from .keys import CONFIG_KEY_RE

PROJECT_NAMESPACE = "azure-gpu-platform"
"""The stack-config namespace: every key in it is part of the typed stack config (unknown keys are refused), so the
token's config key lives in another namespace."""

_DNS_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")


def _messages(result: list[Finding] | NotApplicable) -> str | None:
    """The findings of one rule as one refusal message, ``None`` when there are none or the rule does not apply."""
    messages = [f.message for f in findings(result)]
    return " ".join(messages) if messages else None


def _refuse(result: list[Finding] | NotApplicable) -> None:
    message = _messages(result)
    if message is not None:
        raise ValueError(message)


class KaitoWorkspaceConfig(StrictModel):
    """``kaito.workspaces[i]``: one model served by KAITO. Field order matters: later validators read earlier ones."""

    name: str
    """Workspace name = the in-cluster Service name (DNS label, ≤ 63 characters)."""
    preset: str
    """KAITO preset (``inference.preset.name``), e.g. ``phi-4-mini-instruct``."""
    count: int = Field(default=KAITO_DEFAULT_COUNT, ge=1, le=16)
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
    ``pulumi config set --secret kaito:hfToken <token>``. Required with ``modelAccessSecret`` unless
    ``modelAccessFromKeyVault``."""
    modelAccessFromKeyVault: bool = False
    """The ``modelAccessSecret`` Secret is mirrored from Key Vault by the Secrets Store CSI add-on
    (``cluster.secretsStore``; a ``SecretProviderClass`` with ``secretObjects`` and a pod that mounts it, which you
    deploy: docs/kaito.md): the platform creates no Secret and needs no ``modelAccessTokenConfig``."""

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
        _refuse(known_preset(KaitoWorkspace(preset=v)))
        preset = kaito_preset(v)
        return preset.name if preset is not None else v

    @field_validator("instanceType")
    @classmethod
    def _instance_type(cls, v: str, info: ValidationInfo) -> str:
        _refuse(instance_type(KaitoWorkspace(instance_type=v), size_rules=True, today=context_today(info)))
        return default_catalog()[v].name

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
    def _secret(cls, v: str | None) -> str | None:
        if v is not None and not _DNS_SUBDOMAIN_RE.match(v):
            raise ValueError(f"modelAccessSecret {v!r} must be a Kubernetes Secret name (lowercase DNS subdomain)")
        return v

    @field_validator("modelAccessTokenConfig")
    @classmethod
    def _token_config(cls, v: str | None) -> str | None:
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
        return v

    # -- derived values --------------------------------------------------------------------------------------

    @property
    def match_labels(self) -> dict[str, str]:
        return self.spec(kubernetes_version="", addon_enabled=True).node_labels

    def spec(
        self, *, kubernetes_version: str, addon_enabled: bool, gpu_floor: str = DEFAULT_FLOOR
    ) -> KaitoGpuWorkspace:
        """The workspace as its spec (:class:`rules.specs.KaitoGpuWorkspace`): the keys as written, camelCase to the
        spec's fields (the spec resolves the node labels it leaves out), with what the stack gives it (its cluster's
        Kubernetes version and add-on, the GPU floor)."""
        return KaitoGpuWorkspace(
            workspace_name=self.name,
            preset=self.preset,
            instance_type=self.instanceType,
            kubernetes_version=kubernetes_version,
            addon_enabled=addon_enabled,
            match_labels=dict(self.labelSelector) if self.labelSelector else None,
            count=self.count,
            namespace=self.namespace,
            model_access_secret=self.modelAccessSecret,
            model_access_token_config=self.modelAccessTokenConfig,
            model_access_from_key_vault=self.modelAccessFromKeyVault,
            gpu_floor=gpu_floor if gpu_floor in default_catalog() else DEFAULT_FLOOR,
        )


class KaitoConfig(StrictModel):
    """``kaito``: the AKS AI toolchain operator add-on and the model workspaces it serves."""

    enabled: bool | None = None
    """Turn on the KAITO add-on (``aiToolchainOperatorProfile.enabled``; it turns the OIDC issuer on). Unset: the
    cluster's own flag (``cluster.kaitoAddon``) decides; ``false`` with workspaces is refused."""
    workspaces: list[KaitoWorkspaceConfig] = Field(default_factory=list)

    @field_validator("workspaces")
    @classmethod
    def _workspaces(cls, v: list[KaitoWorkspaceConfig]) -> list[KaitoWorkspaceConfig]:
        seen: set[str] = set()
        for ws in v:
            if ws.name in seen:
                raise ValueError(
                    f"workspace name {ws.name!r} appears twice; names must be unique in the stack (they key the "
                    "output contract and the resource names)"
                )
            seen.add(ws.name)
        return v


def workspace_problems(
    ws: KaitoWorkspaceConfig,
    *,
    floor: str = DEFAULT_FLOOR,
    today: date | None = None,
    kubernetes_version: str = "",
    addon_enabled: bool = True,
) -> list[tuple[str, str]]:
    """The workspace's own checklist (:meth:`rules.specs.KaitoGpuWorkspace.workspace_findings`; the cluster is
    checked once for the stack, in :func:`kaito_stack_problems`) as ``(key, message)``: the nodes hold the preset and
    are not below ``floor``; the model-access Secret matches the preset, and its token comes from one place. The keys'
    own shapes were checked by the validators. ``today``: the stack's day (default :func:`gpu_catalog.clock.today`)."""
    spec = ws.spec(kubernetes_version=kubernetes_version, addon_enabled=addon_enabled, gpu_floor=floor)
    return [(f.field, f.message) for f in spec.workspace_findings(today=today or clock.today())]


def kaito_addon_enabled(kaito: KaitoConfig, cluster_addon: bool) -> bool:
    """The cluster's KAITO add-on flag: ``cluster.kaitoAddon`` or ``kaito.enabled``."""
    return cluster_addon or kaito.enabled is True


def kaito_stack_problems(
    kaito: KaitoConfig,
    *,
    cluster_addon: bool,
    floor: str,
    kubernetes_version: str,
    config_present: Callable[[str], bool],
    today: date | None = None,
) -> list[tuple[str, str]]:
    """Problems of ``kaito`` as ``(key path, message)``: each workspace's checklist (:func:`workspace_problems`, with
    the GPU floor), the add-on and its version on the cluster's Kubernetes version (the preset table is the add-on
    0.6.0's), and the token config values.

    ``config_present`` tells whether a config key (``<namespace>:<key>``) is set in the stack: the Pulumi program
    passes the engine's config (``composition/stack_file.py``); a caller without one (the tests, a tool reading a
    stack file) passes its own.
    """
    problems: list[tuple[str, str]] = []
    off = (
        _messages(addon_enabled(KaitoCluster(addon_enabled=False, workspaces=len(kaito.workspaces))))
        if kaito.enabled is False
        else None
    )
    workspace_floor = floor if off is None else DEFAULT_FLOOR  # the add-on is off: nothing more is checked
    for i, ws in enumerate(kaito.workspaces):
        problems += [
            (f"kaito.workspaces[{i}].{key}", message)
            for key, message in workspace_problems(
                ws,
                floor=workspace_floor,
                today=today,
                kubernetes_version=kubernetes_version,
                addon_enabled=kaito_addon_enabled(kaito, cluster_addon),
            )
        ]
    if off is not None:
        problems.append(
            ("kaito.workspaces", f"{off} kaito.enabled is false: set kaito.enabled: true, or remove the workspaces.")
        )
        return problems
    cluster = KaitoCluster(
        addon_enabled=kaito_addon_enabled(kaito, cluster_addon),
        workspaces=len(kaito.workspaces),
        kubernetes_version=kubernetes_version,
    )
    for finding in kaito_cluster(cluster, workspaces="kaito.workspaces"):
        if finding.field == "addon":
            problems.append(
                (
                    "kaito.workspaces",  # the key written: kaito.enabled is unset here (set to false is handled above)
                    f"{finding.message} Set kaito.enabled: true (or cluster.kaitoAddon: true), or remove "
                    "kaito.workspaces.",
                )
            )
        else:
            problems.append(("cluster.kubernetesVersion", finding.message))
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
