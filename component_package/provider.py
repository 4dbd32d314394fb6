"""The package's provider: the components it hosts, the name and version of the package, and the SDK's component
provider with this package's error mapping; :func:`serve` hosts it.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

import sys
from dataclasses import replace

import pulumi
from pulumi.errors import InputPropertiesError, InputPropertyError
from pulumi.provider import main as provider_main
from pulumi.provider.experimental.analyzer import ComponentDefinition, PropertyDefinition, TypeDefinition
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.provider import ConstructResult
from pulumi.provider.server import ComponentInitError

from component_package.aks_gpu_cluster import AksGpuCluster
from component_package.args import ArgsRefusedError
from component_package.databricks_gpu_cluster import DatabricksGpuCluster
from component_package.gpu_node_pool import GpuNodePool
from component_package.gpu_operator import GpuOperator
from component_package.kaito_workspace import KaitoWorkspace
from component_package.nap_gpu_pool import NapGpuPool
from component_package.nvidia_device_plugin import NvidiaDevicePlugin
from component_package.package import NAMESPACE, PACKAGE_NAME, VERSION
from component_package.spec_inputs import describe

COMPONENTS: list[type[pulumi.ComponentResource]] = [
    AksGpuCluster,
    GpuNodePool,
    GpuOperator,
    NvidiaDevicePlugin,
    KaitoWorkspace,
    DatabricksGpuCluster,
    NapGpuPool,
]
"""The components the package hosts (the schema's resources)."""

RULE_CHECKED_INPUTS: dict[str, tuple[str, ...]] = {"NapGpuPool": ("gpuLimit",)}
"""Required inputs whose absence the rules refuse themselves: the schema requires them (the SDKs and Pulumi YAML ask
for them), and an engine that sends none gets the rules' message, as Python does, not a generic "missing input"."""


class GpuPackageProvider(ComponentProvider):
    """The SDK's component provider, with four changes: the generated input objects' property descriptions are in
    the schema (:func:`component_package.spec_inputs.describe`); Args the rules refuse come back to the engine as an
    input-properties error (``InvalidArgument``: the rules' message, and each finding on its property path) instead
    of a generic error carrying a Python stack trace; a missing input the rules check themselves
    (:data:`RULE_CHECKED_INPUTS`) reaches the rules; arrays of enums are mapped item by item to the enum."""

    def __init__(self) -> None:
        super().__init__(COMPONENTS, PACKAGE_NAME, NAMESPACE, VERSION)
        if self.schema is not None:  # the generated input objects' descriptions (component_package/spec_inputs.py)
            self.schema = describe(self.schema, PACKAGE_NAME)

    def map_inputs(self, inputs: pulumi.Inputs, component_def: ComponentDefinition) -> pulumi.Inputs:
        missing = {k for k in RULE_CHECKED_INPUTS.get(component_def.name, ()) if inputs.get(k) is None}
        if missing:
            props = {k: replace(p, optional=True) if k in missing else p for k, p in component_def.inputs.items()}
            component_def = replace(component_def, inputs=props)
        return super().map_inputs(inputs, component_def)

    def map_input_properties(
        self,
        inputs: pulumi.Inputs,
        properties: dict[str, PropertyDefinition],
        mapping: dict[str, str],
        component_name: str,
        property_path: str,
    ) -> pulumi.Inputs:
        """The SDK's mapping, plus arrays of enums (``capacityTypes``): the SDK (3.272) maps each item of an array of
        a named type as an object, which turns an enum string into ``{}``; here each item becomes the enum member,
        and a value outside the enum is refused on its path (``capacityTypes[1]``)."""
        enum_lists = {k: t for k, p in properties.items() if (t := self._enum_items(p)) is not None}
        rest = {k: p for k, p in properties.items() if k not in enum_lists}
        out = dict(super().map_input_properties(inputs, rest, mapping, component_name, property_path))
        for key, enum_def in enum_lists.items():
            path = f"{property_path}.{key}" if property_path else key
            value = inputs.get(key) if isinstance(inputs, dict) else None
            if value is None:
                if not properties[key].optional:
                    raise InputPropertyError(path, f"Missing required input '{path}' on '{component_name}'")
                continue
            items = value if isinstance(value, list) else [value]
            members = []
            for i, item in enumerate(items):
                try:
                    members.append(enum_def.python_type(item))
                except ValueError as error:
                    allowed = ", ".join(str(v.value) for v in enum_def.enum or [])
                    raise InputPropertyError(
                        f"{path}[{i}]", f"Invalid value {item!r} for enum '{enum_def.name}'; allowed: {allowed}"
                    ) from error
            out[mapping[key]] = members
        return out

    def _enum_items(self, prop: PropertyDefinition) -> TypeDefinition | None:
        """The enum type of an array property's items, if they are one of this package's enums."""
        if prop.items is None or not prop.items.ref:
            return None
        type_def = self.get_type_definition(prop.items)
        return type_def if type_def is not None and type_def.enum else None

    def construct(
        self,
        name: str,
        resource_type: str,
        inputs: pulumi.Inputs,
        options: pulumi.ResourceOptions | None = None,
    ) -> ConstructResult:
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as error:
            if isinstance(error.inner, ArgsRefusedError):
                raise InputPropertiesError(error.inner.message, error.inner.errors) from error.inner
            raise


def provider() -> GpuPackageProvider:
    """The provider: the schema is inferred here, from this module's annotations."""
    return GpuPackageProvider()


def serve(args: list[str] | None = None) -> None:
    """Serve the provider over gRPC: the first stdout line is the port (what
    ``pulumi.provider.experimental.component_provider_host`` does, with :class:`GpuPackageProvider`). ``args``: the
    engine address and the engine's flags."""
    provider_main(provider(), sys.argv[1:] if args is None else args)
