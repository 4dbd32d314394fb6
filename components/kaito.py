"""KAITO model workspaces: a ``kaito.sh/v1beta1`` Workspace per served model, on a cluster with the KAITO add-on.

A KAITO Workspace is not shaped like most custom resources: its ``resource`` and ``inference`` fields sit at the
top level of the object, next to ``metadata``, with no ``spec``. ``pulumi_kubernetes.apiextensions.CustomResource``
only takes ``spec``, so :class:`KaitoWorkspaceResource` registers the object itself, exactly the way that class
does (type token ``kubernetes:<apiVersion>:<kind>``, properties ``apiVersion``, ``kind``, ``metadata`` + the
top-level fields, the pulumi-kubernetes plugin version), through the cluster's Kubernetes provider. Previews and the
policy pack therefore see ``resource.instanceType``, ``resource.count``, ``resource.labelSelector``,
``inference.preset.name`` and ``inference.preset.presetOptions.modelAccessSecret`` as inputs.

Presets KAITO downloads at run time (KAITO v0.6.0: Llama 3.x, DeepSeek R1/V3) read a Hugging Face token from the
Secret named by ``modelAccessSecret`` (key ``HF_TOKEN``). The component creates that Secret (type Opaque) from the
Pulumi secret config value named by ``modelAccessTokenConfig`` (e.g. ``kaito:hfToken``), through the same provider,
as a child of the workspace component, and the Workspace depends on it: the token never appears in the stack file
or in plain text in the state. KAITO's webhook does not check that the Secret exists; without it the model's pod
would fail to start.

Deleting a Workspace does NOT delete the GPU nodes KAITO provisioned for it: on AKS, KAITO's GPU provisioner adds an
agent pool labelled ``kaito.sh/workspace=<workspace name>`` (and ``kaito.sh/workspacenamespace=<namespace>``), and
that pool keeps running, and billing, after the Workspace is gone. Find and delete it::

    kubectl get nodes -l kaito.sh/workspace=<name>
    az aks nodepool list -g <resource group> --cluster-name <cluster> \\
        --query "[?nodeLabels.\\"kaito.sh/workspace\\"=='<name>'].name" -o tsv
    az aks nodepool delete -g <resource group> --cluster-name <cluster> -n <pool name>
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import version
from typing import Any

import pulumi

from gpu_catalog.kaito_presets import MODEL_ACCESS_SECRET_KEY, check_kaito_addon_version, check_kaito_model_access

from .contract import KaitoWorkspaceContract
from .kaito_config import SERVICE_PORT, KaitoConfig, KaitoWorkspaceConfig

API_VERSION = "kaito.sh/v1beta1"
KIND = "Workspace"
WORKSPACE_TYPE = f"kubernetes:{API_VERSION}:{KIND}"
COMPONENT_TYPE = "azure-gpu-platform:components:KaitoWorkspace"
WORKSPACE_LABEL = "kaito.sh/workspace"
"""Label KAITO puts on the nodes (and the AKS agent pool) it provisions for a Workspace."""


SECRET_TYPE = "kubernetes:core/v1:Secret"


class KaitoAddonNotEnabledError(ValueError):
    """A KAITO Workspace was requested on a cluster without the KAITO add-on."""


class KaitoAddonVersionError(ValueError):
    """The cluster's Kubernetes version runs another KAITO add-on version than the preset table's (or none known)."""


class ModelAccessError(ValueError):
    """The model-access secret does not match the preset, or the token config value is missing."""


def workspace_manifest(config: KaitoWorkspaceConfig) -> dict[str, Any]:
    """The Workspace object as Kubernetes (and the engine) sees it: top-level ``resource`` and ``inference``."""
    preset: dict[str, Any] = {"name": config.preset}
    if config.modelAccessSecret is not None:
        preset["presetOptions"] = {"modelAccessSecret": config.modelAccessSecret}
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {
            "name": config.name,
            "namespace": config.namespace,
            "labels": {"app.kubernetes.io/managed-by": "pulumi", "azure-gpu-platform/preset": config.preset},
        },
        "resource": {
            "instanceType": config.instanceType,
            "count": config.count,
            "labelSelector": {"matchLabels": config.match_labels},
        },
        "inference": {"preset": preset},
    }


class KaitoWorkspaceResource(pulumi.CustomResource):
    """The raw ``kaito.sh/v1beta1`` Workspace, registered like ``pulumi_kubernetes`` registers a custom resource."""

    def __init__(self, resource_name: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions) -> None:
        if manifest.get("apiVersion") != API_VERSION or manifest.get("kind") != KIND or "spec" in manifest:
            raise ValueError(f"expected a {API_VERSION} {KIND} with top-level fields and no spec")
        # pulumi_kubernetes' CustomResource pins the plugin version of the package that registers it; do the same
        # so an explicit or default provider resolves to the installed pulumi-kubernetes plugin.
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(version=version("pulumi-kubernetes")))
        super().__init__(WORKSPACE_TYPE, resource_name, dict(manifest), opts)


def model_access_secret_manifest(config: KaitoWorkspaceConfig) -> dict[str, Any] | None:
    """The Secret's metadata and type for a workspace that needs one (``stringData`` is added from the token)."""
    if config.modelAccessSecret is None:
        return None
    return {
        "metadata": {
            "name": config.modelAccessSecret,
            "namespace": config.namespace,
            "labels": {"app.kubernetes.io/managed-by": "pulumi", "azure-gpu-platform/workspace": config.name},
        },
        "type": "Opaque",
    }


def read_token_config(key: str) -> pulumi.Output[str]:
    """The secret config value ``<namespace>:<key>`` as a secret output, or :class:`ModelAccessError` naming it."""
    namespace, _, name = key.partition(":")
    value = pulumi.Config(namespace).get_secret(name)
    if value is None:
        raise ModelAccessError(
            f"the secret config value {key} is not set: run `pulumi config set --secret {key} <Hugging Face token>`"
        )
    return value


class KaitoWorkspace(pulumi.ComponentResource):
    """One model served by KAITO: a Workspace on a cluster whose KAITO add-on is on.

    ``provider`` is the cluster's Kubernetes provider; ``addon_enabled`` is the cluster's
    ``aiToolchainOperatorProfile.enabled`` (the Workspace CRD and its controller only exist with it);
    ``kubernetes_version`` the cluster's, which decides the add-on version (the preset table is the add-on 0.6.0's).
    Everything is validated before anything is registered (the config model checks preset, instance type, GPU
    memory and the model-access secret; the same pure checks run here again for callers that build the config
    themselves). A preset downloaded at run time gets its token Secret, created first.
    """

    workspace_name: str
    namespace: str
    service_host: str
    endpoint: str

    def __init__(
        self,
        name: str,
        config: KaitoWorkspaceConfig,
        *,
        provider: pulumi.ProviderResource,
        addon_enabled: bool,
        kubernetes_version: str,
        depends_on: list[pulumi.Resource] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if not addon_enabled:
            raise KaitoAddonNotEnabledError(
                f"kaito.workspaces ({config.name}): the cluster's KAITO add-on (AI toolchain operator) is off, so "
                "the Workspace CRD and its controller do not exist. Set kaito.enabled: true."
            )
        why = check_kaito_addon_version(kubernetes_version, "kaito.workspaces")
        if why is not None:
            raise KaitoAddonVersionError(f"kaito.workspaces ({config.name}): {why}")
        access = check_kaito_model_access(config.preset, config.modelAccessSecret)
        if access is not None:
            raise ModelAccessError(f"kaito.workspaces ({config.name}): {access.message}")
        token: pulumi.Output[str] | None = None
        if config.modelAccessSecret is not None:
            if config.modelAccessTokenConfig is None:
                raise ModelAccessError(
                    f"kaito.workspaces ({config.name}): modelAccessSecret {config.modelAccessSecret!r} needs "
                    "modelAccessTokenConfig, the secret config key the platform creates the Secret from"
                )
            token = read_token_config(config.modelAccessTokenConfig)
        super().__init__(COMPONENT_TYPE, name, None, opts)
        self.workspace_name = config.name
        self.namespace = config.namespace
        self.service_host = config.service_host
        self.endpoint = config.endpoint
        self.model_access_secret: pulumi.CustomResource | None = None
        deps = list(depends_on or [])
        secret_manifest = model_access_secret_manifest(config)
        if secret_manifest is not None and token is not None:
            from pulumi_kubernetes.core.v1 import Secret  # only stacks serving a runtime-download preset need it

            self.model_access_secret = Secret(
                f"{name}-model-access",
                metadata=secret_manifest["metadata"],
                type=secret_manifest["type"],
                string_data={MODEL_ACCESS_SECRET_KEY: token},
                opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=depends_on),
            )
            deps.append(self.model_access_secret)
        self.workspace = KaitoWorkspaceResource(
            name,
            workspace_manifest(config),
            pulumi.ResourceOptions(parent=self, provider=provider, depends_on=deps or None),
        )
        self.register_outputs(
            {"workspaceName": config.name, "serviceHost": config.service_host, "endpoint": config.endpoint}
        )


def service_info(config: KaitoWorkspaceConfig) -> KaitoWorkspaceContract:
    """The output-contract entry for one workspace: where other teams call the model."""
    return KaitoWorkspaceContract(
        workspace=config.name,
        namespace=config.namespace,
        preset=config.preset,
        instance_type=config.instanceType,
        count=config.count,
        service=config.service_host,
        port=SERVICE_PORT,
        endpoint=config.endpoint,
    )


def build_kaito_workspaces(
    config: KaitoConfig,
    *,
    provider: pulumi.ProviderResource,
    addon_enabled: bool,
    kubernetes_version: str,
    depends_on: list[pulumi.Resource] | None = None,
    opts: pulumi.ResourceOptions | None = None,
) -> list[KaitoWorkspace]:
    """One :class:`KaitoWorkspace` per configured workspace (named ``kaito-<name>``)."""
    return [
        KaitoWorkspace(
            f"kaito-{ws.name}",
            ws,
            provider=provider,
            addon_enabled=addon_enabled,
            kubernetes_version=kubernetes_version,
            depends_on=depends_on,
            opts=opts,
        )
        for ws in config.workspaces
    ]
