"""The recording monitor: a Pulumi ``MockMonitor`` that records every registration as the engine would see it.

- URNs in the engine's form: the SDK's mock monitor qualifies every child of the root stack with
  ``pulumi:pulumi:Stack$`` and keeps only the last parent type; :class:`RecordingMonitor` builds URNs exactly as the
  engine does (the full parent type chain, the root stack type left out), so parent URNs, dependencies and the URNs
  the program sees agree.
- inputs as the engine receives them over gRPC (:func:`~preflight.wire.engine_value`): camelCase wire names,
  numbers as floats, values unknown during the preview as :data:`~preflight.wire.UNKNOWN`, secrets in their wire
  form, resource references downgraded to the ID (custom) or URN (component).
- parent, dependencies, property dependencies, provider reference, ``protect``, ``ignoreChanges``,
  ``replaceOnChanges`` and ``deleteBeforeReplace`` from the registration request.
- default providers (``pulumi:providers:<pkg>::default_<version>``) recorded and referenced as the engine registers
  them (``default_providers``; without, a resource without a provider has none, as under the SDK's mock monitor).
- reads (``ReadResource``, e.g. a stack reference) as ``(type, name, id)`` in :attr:`RecordingMonitor.reads`.

Used by the preflight's runner (:mod:`preflight.runner`) and by the component tests (``tests/components/harness.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import pulumi
from google.protobuf import json_format
from pulumi.runtime.mocks import MockMonitor

from preflight.model import RecordedResource
from preflight.wire import STACK_TYPE, UNKNOWN, engine_value


class RecordingMonitor(MockMonitor):
    """A MockMonitor that builds engine-form URNs and records each registration as the engine would see it."""

    def __init__(
        self,
        mocks: pulumi.runtime.Mocks,
        *,
        project: str,
        stack: str,
        config: Mapping[str, str] | None = None,
        default_providers: bool = True,
    ) -> None:
        super().__init__(mocks)
        self.project = project
        self.stack = stack
        self.config = dict(config or {})
        """The program's config: a default provider's inputs are its package's keys."""
        self.default_providers = default_providers
        self.recorded: list[RecordedResource] = []
        self.reads: list[tuple[str, str, str]] = []
        self._lock = threading.Lock()
        self._default_provider_refs: dict[str, str] = {}

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        # The engine qualifies a type with the parent's full qualified type, except for the root stack.
        if parent:
            parent_type = parent.split("::")[2]
            if parent_type != STACK_TYPE:
                type_ = f"{parent_type}${type_}"
        return f"urn:pulumi:{self.stack}::{self.project}::{type_}::{name}"

    def _default_provider(self, type_: str, version: str) -> str:
        pkg = type_.split(":", maxsplit=1)[0]
        key = f"{pkg}@{version}"
        with self._lock:
            ref = self._default_provider_refs.get(key)
            if ref is not None:
                return ref
            name = "default" + (f"_{version.replace('.', '_').replace('-', '_')}" if version else "")
            urn = f"urn:pulumi:{self.stack}::{self.project}::pulumi:providers:{pkg}::{name}"
            inputs: dict[str, Any] = {
                k.split(":", 1)[1]: v for k, v in self.config.items() if k.split(":", 1)[0] == pkg and ":" in k
            }
            if version:
                inputs["version"] = version
            ref = f"{urn}::{UNKNOWN}"
            self._default_provider_refs[key] = ref
            self.recorded.append(
                RecordedResource(urn=urn, type=f"pulumi:providers:{pkg}", name=name, inputs=inputs, custom=True)
            )
            return ref

    def ReadResource(self, request: Any) -> Any:  # gRPC method name
        response = super().ReadResource(request)
        with self._lock:
            self.reads.append((request.type, request.name, request.id))
        return response

    def RegisterResource(self, request: Any) -> Any:  # gRPC method name
        response = super().RegisterResource(request)
        urn = self.make_urn(request.parent, request.type, request.name)
        raw = json_format.MessageToDict(request.object) if request.HasField("object") else {}
        provider = request.provider or None
        if (
            provider is None
            and self.default_providers
            and request.custom
            and not request.type.startswith("pulumi:providers:")
            and request.type != STACK_TYPE
        ):
            provider = self._default_provider(request.type, request.version)
        record = RecordedResource(
            urn=urn,
            type=request.type,
            name=request.name,
            inputs=engine_value(raw),
            parent=request.parent or None,
            custom=bool(request.custom),
            provider=provider,
            dependencies=list(request.dependencies),
            property_dependencies={k: list(v.urns) for k, v in request.propertyDependencies.items()},
            protect=bool(request.protect) if request.HasField("protect") else False,
            ignore_changes=list(request.ignoreChanges),
            replace_on_changes=list(request.replaceOnChanges),
            delete_before_replace=bool(request.deleteBeforeReplace),
        )
        with self._lock:
            self.recorded.append(record)
        return response
