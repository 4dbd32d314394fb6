"""The mocks' answers: plausible outputs for the resources a program registers and results for its invokes.

A resource's outputs are its inputs plus what the cloud would assign (IDs, names, URLs, identities); an invoke gets
the result our components (and common programs) expect. :class:`MockValues` holds the values the answers are made
of: the preflight answers with :data:`PREFLIGHT`, the component tests (``tests/components/harness.py``) with their
own fixed IDs, kubeconfig and stack-reference outputs.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
import yaml

MOCK_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000"
MOCK_TENANT_ID = "11111111-1111-1111-1111-111111111111"
MOCK_CLIENT_ID = "22222222-2222-2222-2222-222222222222"
MOCK_OBJECT_ID = "33333333-3333-3333-3333-333333333333"


@dataclass(frozen=True)
class MockValues:
    """The values the answers are made of."""

    subscription_id: str = MOCK_SUBSCRIPTION_ID
    tenant_id: str = MOCK_TENANT_ID
    client_id: str = MOCK_CLIENT_ID
    """The client ID of the deployer (``getClientConfig``) and of the identities the mocks create."""
    object_id: str = MOCK_OBJECT_ID
    """The object ID of the deployer (``getClientConfig``) and of the identities the mocks create."""
    resource_id: str | None = None
    """The ID of every resource but a resource group (whose ID stays its ARM ID) and a stack reference, as a pattern
    of ``{type}`` and ``{name}`` (``/mock/{type}/{name}``); ``None``: plausible IDs per provider (ARM IDs for Azure,
    ``namespace/name`` for Kubernetes)."""
    kubeconfig: str | None = None
    """The kubeconfig every cluster-credentials invoke returns; ``None``: one naming the cluster."""
    issuer_url: str | None = None
    """The OIDC issuer URL of every AKS cluster; ``None``: one naming the location."""
    stack_outputs: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """The outputs every stack reference reads."""
    secret_stack_outputs: tuple[str, ...] = ()
    """Which of them are secret."""


PREFLIGHT = MockValues()
"""The preflight's answers."""


_MOCK_CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nmock\n-----END CERTIFICATE-----\n").decode()


def _kubeconfig(cluster: str) -> str:
    return (
        "apiVersion: v1\n"
        "kind: Config\n"
        "clusters:\n"
        f"- name: {cluster}\n"
        "  cluster:\n"
        f"    server: https://{cluster}-dns-00000000.hcp.westeurope.azmk8s.io:443\n"
        f"    certificate-authority-data: {_MOCK_CA}\n"
        "contexts:\n"
        f"- name: {cluster}\n"
        "  context:\n"
        f"    cluster: {cluster}\n"
        f"    user: clusterUser_{cluster}\n"
        f"current-context: {cluster}\n"
        "users:\n"
        f"- name: clusterUser_{cluster}\n"
        "  user:\n"
        "    exec:\n"
        "      apiVersion: client.authentication.k8s.io/v1beta1\n"
        "      command: kubelogin\n"
        "      args: [get-token, --login, azurecli, --server-id, 6dae42f8-4368-4678-94ff-3960e28e3630]\n"
    )


_AZURE_NAME_KEYS: dict[str, str] = {
    "azure-native:resources:ResourceGroup": "resourceGroupName",
    "azure-native:containerservice:ManagedCluster": "resourceName",
    "azure-native:containerservice:AgentPool": "agentPoolName",
    "azure-native:databricks:Workspace": "workspaceName",
    "azure-native:managedidentity:UserAssignedIdentity": "resourceName",
    "azure-native:network:VirtualNetwork": "virtualNetworkName",
    "azure-native:network:Subnet": "subnetName",
    "azure-native:authorization:PolicyDefinition": "policyDefinitionName",
    "azure-native:authorization:PolicyAssignment": "policyAssignmentName",
    "azure-native:resources:Resource": "resourceName",
}


GENERIC_RESOURCE = "azure-native:resources:Resource"
"""The generic ARM resource (any type at an explicit ``apiVersion``): the fleet's resources are sent with it."""


def _generic_resource_id(sub: str, rg: str, inputs: Mapping[str, Any], name: str) -> tuple[str, str]:
    """The ARM id and type of a generic resource: ``<namespace>/<parent path>/<type>/<name>`` in its group."""
    namespace = str(inputs.get("resourceProviderNamespace") or "Microsoft.Resources")
    parent = str(inputs.get("parentResourcePath") or "").strip("/")
    kind = str(inputs.get("resourceType") or "resources")
    path = f"{parent}/{kind}" if parent else kind
    parent_types = "/".join(parent.split("/")[::2]) if parent else ""
    full_type = f"{namespace}/{parent_types}/{kind}" if parent_types else f"{namespace}/{kind}"
    return f"{sub}/resourceGroups/{rg}/providers/{namespace}/{path}/{name}", full_type


def azure_outputs(
    typ: str, name: str, inputs: dict[str, Any], values: MockValues = PREFLIGHT
) -> tuple[str, dict[str, Any]]:
    """ID and outputs of an ``azure-native`` resource: its inputs plus the values Azure assigns."""
    outputs = dict(inputs)
    _, module, kind = [*typ.split(":"), "", ""][:3]
    key = _AZURE_NAME_KEYS.get(typ)
    az_name = inputs.get(key) if key else None
    if not isinstance(az_name, str):
        az_name = inputs.get("name") if isinstance(inputs.get("name"), str) else name
    rg = inputs.get("resourceGroupName") if isinstance(inputs.get("resourceGroupName"), str) else "mock-rg"
    sub = f"/subscriptions/{values.subscription_id}"
    if typ == "azure-native:resources:ResourceGroup":
        rid = f"{sub}/resourceGroups/{az_name}"
    elif values.resource_id is not None:
        rid = values.resource_id.format(type=typ, name=name)
    elif typ == "azure-native:authorization:PolicyDefinition":  # a subscription-level resource
        rid = f"{sub}/providers/Microsoft.Authorization/policyDefinitions/{az_name}"
    elif typ == "azure-native:authorization:PolicyAssignment" and isinstance(inputs.get("scope"), str):
        rid = f"{inputs['scope']}/providers/Microsoft.Authorization/policyAssignments/{az_name}"
    elif typ == GENERIC_RESOURCE:
        rid, outputs["type"] = _generic_resource_id(sub, str(rg), inputs, str(az_name))
    else:
        collection = f"{kind[:1].lower()}{kind[1:]}s"
        rid = f"{sub}/resourceGroups/{rg}/providers/Microsoft.{module.capitalize()}/{collection}/{az_name}"
    outputs.setdefault("name", az_name)
    outputs["id"] = rid
    outputs.setdefault("type", f"Microsoft.{module.capitalize()}/{kind}")
    if typ == "azure-native:containerservice:ManagedCluster":
        location = inputs.get("location", "westeurope")
        outputs.setdefault("fqdn", f"{az_name}-dns-00000000.hcp.{location}.azmk8s.io")
        outputs.setdefault("nodeResourceGroup", f"MC_{rg}_{az_name}_{location}")
        outputs.setdefault("provisioningState", "Succeeded")
        oidc = dict(outputs.get("oidcIssuerProfile") or {})
        issuer = (
            values.issuer_url or f"https://{location}.oic.prod-aks.azure.com/{values.tenant_id}/{values.object_id}/"
        )
        oidc.setdefault("issuerURL", issuer)
        outputs["oidcIssuerProfile"] = oidc
        outputs.setdefault(
            "identityProfile",
            {
                "kubeletidentity": {
                    "clientId": values.client_id,
                    "objectId": values.object_id,
                    "resourceId": f"{sub}/resourceGroups/MC_{rg}/providers/Microsoft.ManagedIdentity/"
                    f"userAssignedIdentities/{az_name}-agentpool",
                }
            },
        )
        identity: dict[str, Any] = dict(outputs.get("identity") or {"type": "SystemAssigned"})
        assigned = identity.get("userAssignedIdentities")
        if isinstance(assigned, list):  # sent as a list of ids; ARM answers with a map id -> {clientId, principalId}
            identity["userAssignedIdentities"] = {
                str(i): {"clientId": values.client_id, "principalId": values.object_id} for i in assigned
            }
        identity.setdefault("principalId", values.object_id)
        identity.setdefault("tenantId", values.tenant_id)
        outputs["identity"] = identity
    elif typ == "azure-native:databricks:Workspace":
        outputs.setdefault("workspaceId", "1234567890123456")
        outputs.setdefault("workspaceUrl", "adb-1234567890123456.7.azuredatabricks.net")
    elif typ == "azure-native:managedidentity:UserAssignedIdentity":
        outputs.setdefault("clientId", values.client_id)
        outputs.setdefault("principalId", values.object_id)
        outputs.setdefault("tenantId", values.tenant_id)
    return rid, outputs


def call_answer(token: str, args: dict[str, Any], values: MockValues = PREFLIGHT) -> dict[str, Any] | None:
    """Plausible results for the invokes our components (and common programs) make; ``None`` when unknown."""
    if token in (
        "azure-native:containerservice:listManagedClusterUserCredentials",
        "azure-native:containerservice:listManagedClusterAdminCredentials",
        "azure-native:containerservice:listManagedClusterMonitoringUserCredentials",
    ):
        cluster = str(args.get("resourceName") or "aks")
        text = values.kubeconfig if values.kubeconfig is not None else _kubeconfig(cluster)
        value = base64.b64encode(text.encode()).decode()
        kind = "clusterAdmin" if "Admin" in token else "clusterUser"
        return {"kubeconfigs": [{"name": kind, "value": value}]}
    if token == "azure-native:containerservice:listFleetCredentials":
        hub = f"{args.get('fleetName') or 'fleet'}-hub"
        text = values.kubeconfig if values.kubeconfig is not None else _kubeconfig(hub)
        return {"kubeconfigs": [{"name": "hub", "value": base64.b64encode(text.encode()).decode()}]}
    if token in ("azure-native:authorization:getClientConfig", "azure-native:authorization:getClientConfigOutput"):
        return {
            "clientId": values.client_id,
            "objectId": values.object_id,
            "subscriptionId": values.subscription_id,
            "tenantId": values.tenant_id,
        }
    if token == "azure-native:resources:getResourceGroup":
        name = str(args.get("resourceGroupName") or "mock-rg")
        return {
            "id": f"/subscriptions/{values.subscription_id}/resourceGroups/{name}",
            "name": name,
            "location": "westeurope",
            "type": "Microsoft.Resources/resourceGroups",
            "properties": {"provisioningState": "Succeeded"},
        }
    if token == "azure-native:managedidentity:getUserAssignedIdentity":
        name = str(args.get("resourceName") or "identity")
        rg = str(args.get("resourceGroupName") or "mock-rg")
        return {
            "id": f"/subscriptions/{values.subscription_id}/resourceGroups/{rg}/providers/"
            f"Microsoft.ManagedIdentity/userAssignedIdentities/{name}",
            "name": name,
            "location": "westeurope",
            "clientId": values.client_id,
            "principalId": values.object_id,
            "tenantId": values.tenant_id,
        }
    if token == "azure-native:containerservice:getManagedCluster":
        name = str(args.get("resourceName") or "aks")
        return {"name": name, "kubernetesVersion": "1.36", "fqdn": f"{name}-dns-00000000.hcp.westeurope.azmk8s.io"}
    if token == "databricks:index/getSparkVersion:getSparkVersion":
        gpu, ml = bool(args.get("gpu")), bool(args.get("ml"))
        suffix = "-gpu-ml" if gpu else ("-ml" if ml else "")
        return {**args, "id": f"15.4.x{suffix}-scala2.12"}
    if token == "databricks:index/getNodeType:getNodeType":
        return {**args, "id": "Standard_NC4as_T4_v3" if args.get("minGpus") else "Standard_D4ds_v5"}
    if token == "databricks:index/getCurrentUser:getCurrentUser":
        return {"id": "1000", "userName": "preflight@example.com", "home": "/Users/preflight@example.com"}
    if token == "kubernetes:yaml:decode":
        docs = [d for d in yaml.safe_load_all(str(args.get("text", ""))) if d]
        return {"result": docs}
    if token == "pulumi:pulumi:getStackOutputs":  # pragma: no cover - served by ReadResource in the SDK
        return {}
    return None


def resource_answer(
    typ: str, name: str, inputs: dict[str, Any], values: MockValues = PREFLIGHT
) -> tuple[str, dict[str, Any]]:
    """The ID and outputs of a new (or read) resource: its inputs plus plausible cloud-assigned values."""
    if typ.startswith("azure-native:"):
        return azure_outputs(typ, name, inputs, values)
    if typ == "pulumi:pulumi:StackReference":
        outputs = dict(values.stack_outputs)
        return name, {
            "name": inputs.get("name", name),
            "outputs": outputs,
            "secretOutputNames": [*values.secret_stack_outputs],
        }
    own = values.resource_id.format(type=typ, name=name) if values.resource_id is not None else None
    if typ.startswith("databricks:"):
        rid = own or f"{name}-0000"
        inputs.setdefault("clusterId" if typ.endswith("Cluster") else "id", rid)
        return rid, inputs
    if typ.startswith("pulumi:providers:"):
        return own or "", inputs  # a new provider has no ID in a preview: references carry UNKNOWN
    if typ.startswith("kubernetes:"):
        meta = dict(inputs.get("metadata") or {})
        meta.setdefault("name", name)
        inputs["metadata"] = meta
        ns = meta.get("namespace")
        return own or (f"{ns}/{meta['name']}" if ns else str(meta["name"])), inputs
    return own or f"{name}-id", inputs


class PreflightMocks(pulumi.runtime.Mocks):
    """Resources: :func:`resource_answer`. Invokes: :func:`call_answer`; one without an answer returns an empty
    result and, with ``warnings``, adds a warning. ``invokes`` (optional) collects every invoke's token and args."""

    def __init__(
        self,
        values: MockValues = PREFLIGHT,
        *,
        warnings: list[str] | None = None,
        invokes: list[tuple[str, dict[str, Any]]] | None = None,
    ) -> None:
        self.values = values
        self.warnings = warnings
        self.invokes = invokes

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[Any, Any]]:
        return resource_answer(args.typ, args.name, dict(args.inputs), self.values)

    def call(self, args: pulumi.runtime.MockCallArgs) -> Any:
        call_args = dict(args.args)
        if self.invokes is not None:
            self.invokes.append((args.token, call_args))
        # A bare dict: MockMonitor.Invoke reads a tuple's second item as a list of check failures.
        result = call_answer(args.token, call_args, self.values)
        if result is None:
            if self.warnings is not None:
                self.warnings.append(f"invoke {args.token} has no preflight mock; it returned an empty result")
            return {}
        return result
