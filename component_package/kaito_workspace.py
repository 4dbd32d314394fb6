"""The package's ``KaitoWorkspace`` component over :class:`components.kaito.KaitoWorkspace`.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

from typing import NotRequired, TypedDict

import pulumi

from component_package.args import ArgsRefusedError, checked, present
from component_package.kubernetes import kubernetes_provider
from component_package.package import PACKAGE_NAME
from components import kaito
from components.validation import InvalidArgsError
from rules import Finding
from rules.specs import KAITO_WORKSPACE_FIELDS


class KaitoWorkspaceArgs(TypedDict):
    """One model KAITO serves, on a cluster whose KAITO add-on is on."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig for the cluster (e.g. `AksGpuCluster.kubeconfig`)."""
    workspace_name: str
    """The Workspace's name, which KAITO gives the model's Service (a DNS label)."""
    preset: str
    """KAITO preset (`inference.preset.name`), e.g. `phi-4-mini-instruct`; checked against the add-on's preset table."""
    instance_type: str
    """GPU size of the nodes KAITO provisions: a size KAITO supports that holds the model."""
    match_labels: NotRequired[dict[str, str]]
    """Labels of the nodes KAITO provisions and selects; default `apps: <workspaceName>` (as a stack file's)."""
    kubernetes_version: str
    """The cluster's Kubernetes version: it decides the KAITO add-on version AKS runs."""
    addon_enabled: bool
    """The cluster's KAITO add-on is on (the Workspace CRD exists only with it)."""
    count: NotRequired[int]
    """How many nodes KAITO provisions; default: the Workspace CRD's."""
    namespace: NotRequired[str]
    """Default `default`."""
    model_access_secret: NotRequired[str]
    """The Secret (key `HF_TOKEN`) a preset downloaded at run time reads its Hugging Face token from."""
    model_access_token_config: NotRequired[str]
    """Full config key (`kaito:hfToken`) of the secret value the Secret is created from."""
    gpu_floor: NotRequired[str]
    """The smallest GPU size allowed; default `Standard_NC6s_v3`."""


def workspace_args(args: KaitoWorkspaceArgs) -> kaito.KaitoWorkspaceArgs:
    """The package's Args as the component's :class:`~components.kaito.KaitoWorkspaceArgs`, the workspace's spec
    (:class:`rules.specs.KaitoGpuWorkspace`): the schema's keys are its fields (``tests/components/test_three_ways.py``
    checks it); raises :class:`~components.validation.InvalidArgsError` with the KAITO checklist's messages."""
    kwargs = present(args, *(k for k in args if k in KAITO_WORKSPACE_FIELDS))
    return kaito.KaitoWorkspaceArgs(**kwargs)


def _check_token_config(args: kaito.KaitoWorkspaceArgs) -> None:
    """The secret config value the model-access Secret is made of is set (the component reads it; read it here
    first so that a missing value is refused before anything is registered)."""
    key = args.model_access_token_config
    if args.model_access_secret is None or key is None:
        return
    try:
        kaito.read_token_config(key)
    except kaito.ModelAccessError as error:
        finding = Finding("model_access_token_config", str(error))
        raise ArgsRefusedError(InvalidArgsError(kaito.COMPONENT, args.workspace_name, [finding])) from error


class KaitoWorkspace(pulumi.ComponentResource):
    """A KAITO model workspace (`kaito.sh/v1beta1` Workspace) and, for presets downloaded at run time, its model-access
    Secret. Deleting it leaves the GPU nodes KAITO provisioned behind (see the project's KAITO docs)."""

    workspace_name: pulumi.Output[str]
    """The Workspace's name."""
    namespace: pulumi.Output[str]
    """The Workspace's namespace."""
    service_host: pulumi.Output[str]
    """In-cluster DNS name of the model's Service."""
    port: pulumi.Output[int]
    """The Service's port."""
    endpoint: pulumi.Output[str]
    """OpenAI-compatible chat endpoint inside the cluster."""

    def __init__(self, name: str, args: KaitoWorkspaceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        ws_args = checked(lambda: workspace_args(args))
        _check_token_config(ws_args)
        super().__init__(f"{PACKAGE_NAME}:index:KaitoWorkspace", name, None, opts)
        provider = kubernetes_provider(name, args["kubeconfig"], self)
        ws = kaito.KaitoWorkspace(name, ws_args, opts=pulumi.ResourceOptions(parent=self), provider=provider)
        self.workspace_name = pulumi.Output.from_input(ws.contract.workspace)
        self.namespace = pulumi.Output.from_input(ws.contract.namespace)
        self.service_host = pulumi.Output.from_input(ws.contract.service)
        self.port = pulumi.Output.from_input(ws.contract.port)
        self.endpoint = pulumi.Output.from_input(ws.contract.endpoint)
        self.register_outputs({"endpoint": self.endpoint})
