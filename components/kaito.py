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

:class:`KaitoWorkspaceArgs` is the workspace's spec (:class:`rules.specs.KaitoGpuWorkspace`) checking itself when
built, with the KAITO checklist the stack config calls (:func:`rules.checklists.kaito_workspace`, over the rules the
policy pack applies, :mod:`rules.kaito`): the cluster's add-on is on and runs the preset table's KAITO version, the
preset is known, the instance type is a GPU size KAITO provisions (the catalog's size rules and the GPU floor included)
and holds the model, a model-access secret is named exactly for the presets downloaded at run time, and its token
comes from one place (a secret config value or Key Vault). A wrong value raises
:class:`~components.validation.InvalidArgsError` before anything is registered, with the stack config's message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date
from importlib.metadata import version
from typing import Any

import pulumi

from gpu_catalog import clock
from gpu_catalog.kaito_presets import MODEL_ACCESS_SECRET_KEY
from rules import Finding
from rules.specs import KaitoGpuWorkspace

from .contract import KaitoWorkspaceContract
from .validation import refuse_findings

API_VERSION = "kaito.sh/v1beta1"
KIND = "Workspace"
WORKSPACE_TYPE = f"kubernetes:{API_VERSION}:{KIND}"
COMPONENT_TYPE = "azure-gpu-platform:components:KaitoWorkspace"
COMPONENT = "KaitoWorkspace"
WORKSPACE_LABEL = "kaito.sh/workspace"
"""Label KAITO puts on the nodes (and the AKS agent pool) it provisions for a Workspace."""

SERVICE_PORT = 80
"""KAITO exposes each Workspace as a ClusterIP Service named like the Workspace, port 80 (OpenAI-compatible API
with the vLLM runtime: ``/v1/chat/completions``, ``/v1/models``)."""


SECRET_TYPE = "kubernetes:core/v1:Secret"


class ModelAccessError(ValueError):
    """The secret config value the model-access Secret is created from is not set."""


_FIELDS = {
    "addon": "addon_enabled",
    "kubernetesVersion": "kubernetes_version",
    "instanceType": "instance_type",
    "modelAccessSecret": "model_access_secret",
    "modelAccessTokenConfig": "model_access_token_config",
    "modelAccessFromKeyVault": "model_access_from_key_vault",
}
"""A rule's field → the :class:`KaitoWorkspaceArgs` field; the others have the same name."""


@dataclass(frozen=True)
class KaitoWorkspaceArgs(KaitoGpuWorkspace):
    """One model KAITO serves, from Python: the workspace's spec (:class:`rules.specs.KaitoGpuWorkspace`: its fields
    and their defaults, resolved once), refusing its findings when built (module docstring)."""

    today: date | None = field(default=None, compare=False, repr=False)
    """The day the rules are checked on (the platform build passes the stack's); ``None``:
    :func:`gpu_catalog.clock.today`, read once when the Args are built."""

    def __post_init__(self) -> None:
        super().__post_init__()
        refuse_findings(COMPONENT, self.workspace_name, workspace_findings(self), _FIELDS)

    @classmethod
    def of(cls, spec: KaitoGpuWorkspace, *, today: date | None = None) -> KaitoWorkspaceArgs:
        """A spec built elsewhere (the stack config's), checked as the component's Args."""
        if isinstance(spec, KaitoWorkspaceArgs):
            return spec
        return cls(**{f.name: getattr(spec, f.name) for f in fields(KaitoGpuWorkspace)}, today=today)

    @property
    def service_host(self) -> str:
        """The in-cluster DNS name of the Service KAITO creates for the Workspace."""
        return f"{self.workspace_name}.{self.namespace}.svc.cluster.local"

    @property
    def endpoint(self) -> str:
        """OpenAI-compatible chat endpoint inside the cluster."""
        return f"http://{self.service_host}/v1/chat/completions"


def workspace_findings(args: KaitoWorkspaceArgs) -> list[Finding]:
    """Every guard rail the workspace breaks: its spec's checklist (:meth:`rules.specs.KaitoGpuWorkspace.findings`,
    the KAITO checklist the stack config calls), with the cluster's add-on and its version."""
    return args.findings(today=args.today or clock.today())


def workspace_manifest(args: KaitoWorkspaceArgs) -> dict[str, Any]:
    """The Workspace object as Kubernetes (and the engine) sees it: top-level ``resource`` and ``inference``."""
    preset: dict[str, Any] = {"name": args.preset}
    if args.model_access_secret is not None:
        preset["presetOptions"] = {"modelAccessSecret": args.model_access_secret}
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {
            "name": args.workspace_name,
            "namespace": args.namespace,
            "labels": {"app.kubernetes.io/managed-by": "pulumi", "azure-gpu-platform/preset": args.preset},
        },
        "resource": {
            "instanceType": args.instance_type,
            "count": args.count,
            "labelSelector": {"matchLabels": args.node_labels},
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


def model_access_secret_manifest(args: KaitoWorkspaceArgs) -> dict[str, Any] | None:
    """The Secret's metadata and type for a workspace that needs one (``stringData`` is added from the token)."""
    if args.model_access_secret is None or args.model_access_from_key_vault:
        return None
    return {
        "metadata": {
            "name": args.model_access_secret,
            "namespace": args.namespace,
            "labels": {"app.kubernetes.io/managed-by": "pulumi", "azure-gpu-platform/workspace": args.workspace_name},
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


def service_info(args: KaitoWorkspaceArgs) -> KaitoWorkspaceContract:
    """The output-contract entry for one workspace: where other teams call the model."""
    return KaitoWorkspaceContract(
        workspace=args.workspace_name,
        namespace=args.namespace,
        preset=args.preset,
        instance_type=args.instance_type,
        count=args.count,
        service=args.service_host,
        port=SERVICE_PORT,
        endpoint=args.endpoint,
    )


class KaitoWorkspace(pulumi.ComponentResource):
    """One model served by KAITO: a Workspace on a cluster whose KAITO add-on is on.

    ``provider`` is the cluster's Kubernetes provider; ``depends_on`` what the Workspace waits for (the data-plane
    role assignments' propagation). A preset downloaded at run time gets its token Secret, created first from the
    secret config value ``model_access_token_config`` names (read before anything is registered).
    """

    workspace_name: str
    namespace: str
    service_host: str
    endpoint: str
    contract: KaitoWorkspaceContract
    """The workspace's output-contract entry."""

    def __init__(
        self,
        name: str,
        args: KaitoWorkspaceArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        provider: pulumi.ProviderResource,
        depends_on: Sequence[pulumi.Resource] = (),
    ) -> None:
        key = args.model_access_token_config
        token = read_token_config(key) if args.model_access_secret is not None and key is not None else None
        super().__init__(COMPONENT_TYPE, name, None, opts)
        self.workspace_name = args.workspace_name
        self.namespace = args.namespace
        self.service_host = args.service_host
        self.endpoint = args.endpoint
        self.contract = service_info(args)
        self.model_access_secret: pulumi.CustomResource | None = None
        deps = list(depends_on)
        secret_manifest = model_access_secret_manifest(args)
        if secret_manifest is not None and token is not None:
            from pulumi_kubernetes.core.v1 import Secret  # only stacks serving a runtime-download preset need it

            self.model_access_secret = Secret(
                f"{name}-model-access",
                metadata=secret_manifest["metadata"],
                type=secret_manifest["type"],
                string_data={MODEL_ACCESS_SECRET_KEY: token},
                opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=list(depends_on)),
            )
            deps.append(self.model_access_secret)
        self.workspace = KaitoWorkspaceResource(
            name,
            workspace_manifest(args),
            pulumi.ResourceOptions(parent=self, provider=provider, depends_on=deps or None),
        )
        self.register_outputs(
            {"workspaceName": args.workspace_name, "serviceHost": self.service_host, "endpoint": self.endpoint}
        )
