"""KAITO model workspaces: a ``kaito.sh/v1beta1`` Workspace per served model, on a cluster with the KAITO add-on.

A KAITO Workspace is not shaped like most custom resources: its ``resource`` and ``inference`` fields sit at the
top level of the object, next to ``metadata``, with no ``spec``. ``pulumi_kubernetes.apiextensions.CustomResource``
only takes ``spec``, so :class:`KaitoWorkspaceResource` registers the object itself, exactly the way that class
does (type token ``kubernetes:<apiVersion>:<kind>``, properties ``apiVersion``, ``kind``, ``metadata`` + the
top-level fields, the pulumi-kubernetes plugin version), through the cluster's Kubernetes provider. Previews and the
policy pack therefore see ``resource.instanceType``, ``resource.count``, ``resource.labelSelector`` and
``inference.preset.name`` as inputs.

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

from .contract import KaitoWorkspaceContract
from .kaito_config import SERVICE_PORT, KaitoConfig, KaitoWorkspaceConfig

API_VERSION = "kaito.sh/v1beta1"
KIND = "Workspace"
WORKSPACE_TYPE = f"kubernetes:{API_VERSION}:{KIND}"
COMPONENT_TYPE = "azure-gpu-platform:components:KaitoWorkspace"
WORKSPACE_LABEL = "kaito.sh/workspace"
"""Label KAITO puts on the nodes (and the AKS agent pool) it provisions for a Workspace."""


class KaitoAddonNotEnabledError(ValueError):
    """A KAITO Workspace was requested on a cluster without the KAITO add-on."""


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


class KaitoWorkspace(pulumi.ComponentResource):
    """One model served by KAITO: a Workspace on a cluster whose KAITO add-on is on.

    ``provider`` is the cluster's Kubernetes provider; ``addon_enabled`` is the cluster's
    ``aiToolchainOperatorProfile.enabled`` (the Workspace CRD and its controller only exist with it). Everything is
    validated before anything is registered (the config model checks preset, instance type and GPU memory).
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
        depends_on: list[pulumi.Resource] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if not addon_enabled:
            raise KaitoAddonNotEnabledError(
                f"kaito.workspaces ({config.name}): the cluster's KAITO add-on (AI toolchain operator) is off, so "
                "the Workspace CRD and its controller do not exist. Set kaito.enabled: true."
            )
        super().__init__(COMPONENT_TYPE, name, None, opts)
        self.workspace_name = config.name
        self.namespace = config.namespace
        self.service_host = config.service_host
        self.endpoint = config.endpoint
        self.workspace = KaitoWorkspaceResource(
            name,
            workspace_manifest(config),
            pulumi.ResourceOptions(parent=self, provider=provider, depends_on=depends_on),
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
            depends_on=depends_on,
            opts=opts,
        )
        for ws in config.workspaces
    ]
