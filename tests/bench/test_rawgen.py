"""The raw-program generator behind the component-overhead benchmark (bench/rawgen.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from bench import rawgen
from preflight.model import RecordedResource
from preflight.wire import SECRET_SIG, SIG_KEY

POOL = "azure-native:containerservice:AgentPool"


def _pool(name: str = "aks-gpu", **inputs: object) -> RecordedResource:
    base: dict[str, object] = {
        "resourceGroupName": "rg",
        "resourceName": "aks",
        "agentPoolName": "gpu",
        "vmSize": "Standard_NC24ads_A100_v4",
        "count": 1.0,
        "gpuProfile": {"driver": "None"},
    }
    base.update(inputs)
    return RecordedResource(urn=f"urn:pulumi:prod::p::{POOL}::{name}", type=POOL, name=name, inputs=base)


def test_agent_pool_wire_names_map_to_the_sdk_keywords() -> None:
    sdk = rawgen.resolve_class(POOL)
    assert sdk is not None
    assert (sdk.module, sdk.name) == ("pulumi_azure_native.containerservice", "AgentPool")
    # resourceName clashes with the constructor's own resource_name parameter: the SDK suffixes it.
    assert sdk.kwargs["resourceName"] == "resource_name_"
    assert sdk.kwargs["vmSize"] == "vm_size"
    assert sdk.kwargs["gpuProfile"] == "gpu_profile"


def test_unknown_package_has_no_sdk_class() -> None:
    assert rawgen.resolve_class("acme:index:Widget") is None


def test_generated_program_registers_through_the_sdk_class(tmp_path: Path) -> None:
    provider = RecordedResource(
        urn="urn:pulumi:prod::p::pulumi:providers:azure-native::default_3_29_0",
        type="pulumi:providers:azure-native",
        name="default_3_29_0",
        inputs={"location": "westeurope"},
    )
    component = RecordedResource(urn="urn:pulumi:prod::p::my:index:Thing::t", type="my:index:Thing", name="t",
                                 inputs={}, custom=False)  # fmt: skip
    secret = {SIG_KEY: SECRET_SIG, "value": "s3cr3t"}
    summary = rawgen.generate([provider, component, _pool(tags={"k": secret})], tmp_path, mode="sdk")
    assert summary == {"resources": 1, "classes": {POOL: "pulumi_azure_native.containerservice.AgentPool"},
                       "fallbacks": []}  # fmt: skip
    source = (tmp_path / "__main__.py").read_text()
    ast.parse(source)
    assert "import pulumi_azure_native.containerservice as pulumi_azure_native_containerservice" in source
    assert "resource_name_='aks'" in source
    assert "gpu_profile={'driver': 'None'}" in source
    assert "'k': pulumi.Output.secret('s3cr3t')" in source
    assert "default_3_29_0" not in source  # default providers come with the SDK resources
    assert (tmp_path / "Pulumi.yaml").read_text() == "name: azure-gpu-platform\nruntime: python\n"


def test_generic_mode_uses_custom_resource(tmp_path: Path) -> None:
    summary = rawgen.generate([_pool()], tmp_path, mode="generic")
    assert summary["classes"] == {POOL: "pulumi.CustomResource"}
    assert (
        f"pulumi.CustomResource({POOL!r}, 'aks-gpu', {{'resourceGroupName': 'rg'"
        in (tmp_path / "__main__.py").read_text()
    )


def test_comparable_ignores_default_providers_and_number_types() -> None:
    a = [_pool(count=2)]
    b = [_pool(count=2.0), RecordedResource(urn="u", type="pulumi:providers:kubernetes", name="default", inputs={})]
    assert rawgen.comparable(a) == rawgen.comparable(b)
    assert rawgen.comparable(a) != rawgen.comparable([_pool(count=3.0)])
