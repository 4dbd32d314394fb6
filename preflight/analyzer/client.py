"""The engine's calls to a running policy pack: ``Handshake``, ``ConfigureStack``, ``GetAnalyzerInfo``, ``Configure``,
``Remediate`` + ``Analyze`` per resource and ``AnalyzeStack`` once (the order and content are described in
:mod:`preflight.analyzer`), and :func:`run_policy_pack`, which does all of them for a list of resources."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from preflight.analyzer.collector import collector_paused
from preflight.analyzer.policy_config import reconcile_policy_config
from preflight.analyzer.process import PackProcess, read_pack_yaml
from preflight.analyzer.protocol import (
    LEVEL_TO_PROTO,
    POLICY_TYPES,
    PROTO_TO_LEVEL,
    SEVERITIES,
    Analysis,
    AnalyzerInfo,
    NotApplicable,
    PackResult,
    PolicyInfo,
    PolicyPackError,
    Remediation,
    Violation,
    engine_urn,
    provider_urn,
    struct_to_dict,
    to_struct,
    urn_type_and_name,
)
from preflight.model import RecordedResource


class PolicyPackProcess(PackProcess):
    """A running policy pack and the engine side of its gRPC connection.

    Use as a context manager; the process is stopped on exit, also when the body raises::

        with PolicyPackProcess(Path("policies")) as pack:
            info = pack.analyzer_info()
            pack.configure({"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}})
            result = pack.analyze(resource)            # Remediate (when needed) + Analyze
            result = pack.analyze_stack(resources)     # AnalyzeStack

    ``configure`` is called with no user config before the first analysis if it was not called explicitly.
    """

    def __init__(
        self,
        pack_dir: Path | str,
        *,
        project: str = "azure-gpu-platform",
        stack: str = "dev",
        dry_run: bool = True,
        organization: str = "organization",
        stack_config: Mapping[str, Any] | None = None,
        python: str | None = None,
        startup_timeout: float = 60.0,
        rpc_timeout: float = 120.0,
        always_remediate: bool = False,
        today: date | None = None,
    ) -> None:
        super().__init__(
            pack_dir,
            project=project,
            stack=stack,
            dry_run=dry_run,
            organization=organization,
            stack_config=stack_config,
            python=python,
            startup_timeout=startup_timeout,
            today=today,
        )
        self.rpc_timeout = rpc_timeout
        # False: skip Remediate while no policy runs at level remediate (pulumi_policy's Remediate is then a no-op).
        self.always_remediate = always_remediate

        self._stub: analyzer_pb2_grpc.AnalyzerStub | None = None
        self._info: AnalyzerInfo | None = None
        self._config: dict[str, dict[str, Any]] | None = None
        self._remediate = True
        self._provider_props: dict[str, dict[str, Any]] = {}
        self._provider_msgs: dict[str, analyzer_pb2.AnalyzerProviderResource] = {}  # by reference, built once
        self._analyzed: dict[str, tuple[Mapping[str, Any], struct_pb2.Struct]] = {}  # urn -> (inputs, Analyze props)

    # -- lifecycle ---------------------------------------------------------------------------------------------------

    def _start(self) -> None:
        super()._start()
        assert self._channel is not None
        self._stub = analyzer_pb2_grpc.AnalyzerStub(self._channel)
        try:
            self._stub.Handshake(
                analyzer_pb2.AnalyzerHandshakeRequest(
                    engine_address=self.engine_address,
                    root_directory=str(self.pack_dir),
                    program_directory=str(self.pack_dir),
                ),
                timeout=self.rpc_timeout,
            )
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
                raise self._rpc_error("Handshake", e) from e
        try:
            self._stub.ConfigureStack(
                analyzer_pb2.AnalyzerStackConfigureRequest(
                    stack=self.stack,
                    project=self.project,
                    organization=self.organization,
                    dry_run=self.dry_run,
                    config=self.stack_config,
                ),
                timeout=self.rpc_timeout,
            )
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
                raise self._rpc_error("ConfigureStack", e) from e

    def close(self) -> None:
        """Close the channel, stop the pack process and the engine service. Safe to call more than once."""
        self._stub = None
        super().close()

    def _rpc_error(self, method: str, e: grpc.RpcError, subject: str = "") -> PolicyPackError:
        code = e.code() if hasattr(e, "code") else None  # type: ignore[attr-defined]
        details = e.details() if hasattr(e, "details") else str(e)  # type: ignore[attr-defined]
        name = self._info.name if self._info else str(self.pack_dir)
        about = f" for {subject}" if subject else ""
        time.sleep(0.05)  # give the stderr reader a moment to capture the pack's traceback
        return PolicyPackError(self._describe(f"policy pack '{name}' failed in {method}{about}: {code}: {details}"))

    # -- protocol ----------------------------------------------------------------------------------------------------

    def _require_stub(self) -> analyzer_pb2_grpc.AnalyzerStub:
        if self._stub is None:
            raise PolicyPackError("policy pack process is not running (use it as a context manager or call start())")
        return self._stub

    def analyzer_info(self) -> AnalyzerInfo:
        """GetAnalyzerInfo (cached): the pack's name, version, policies and initial config."""
        if self._info is not None:
            return self._info
        stub = self._require_stub()
        try:
            resp = stub.GetAnalyzerInfo(empty_pb2.Empty(), timeout=self.rpc_timeout)
        except grpc.RpcError as e:
            raise self._rpc_error("GetAnalyzerInfo", e) from e
        policies = [
            PolicyInfo(
                name=p.name,
                description=p.description,
                enforcement_level=PROTO_TO_LEVEL.get(p.enforcementLevel, "advisory"),
                policy_type=POLICY_TYPES.get(p.policy_type, "unknown"),
                display_name=p.displayName,
                config_schema=struct_to_dict(p.configSchema.properties) if p.HasField("configSchema") else {},
                required=tuple(p.configSchema.required),
                severity=SEVERITIES.get(p.severity, ""),
                remediation_steps=p.remediation_steps,
                url=p.url,
                tags=tuple(p.tags),
            )
            for p in resp.policies
        ]
        policies.sort(key=lambda p: p.name)
        initial: dict[str, dict[str, Any]] = {}
        for key, cfg in resp.initialConfig.items():
            entry = struct_to_dict(cfg.properties)
            entry["enforcementLevel"] = PROTO_TO_LEVEL.get(cfg.enforcementLevel, "advisory")
            initial[key] = entry
        version = read_pack_yaml(self.pack_dir).get("version") or resp.version
        self._info = AnalyzerInfo(
            name=resp.name,
            version=str(version),
            policies=policies,
            initial_config=initial,
            supports_config=resp.supportsConfig,
            description=resp.description,
            display_name=resp.displayName,
        )
        return self._info

    def configure(self, policy_config: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
        """Reconcile and validate the config, then Configure with an entry (and a level) for every policy.

        Returns what was sent: ``{policy: {"enforcementLevel": level, <prop>: value}}``. Raises
        :class:`PolicyConfigError` (nothing is sent) when the config does not fit the pack.
        """
        info = self.analyzer_info()
        config = reconcile_policy_config(info, policy_config)
        request = analyzer_pb2.ConfigureAnalyzerRequest()
        for name, cfg in config.items():
            entry = request.policyConfig[name]
            entry.enforcementLevel = LEVEL_TO_PROTO[cfg["enforcementLevel"]]  # type: ignore[assignment]
            entry.properties.CopyFrom(to_struct({k: v for k, v in cfg.items() if k != "enforcementLevel"}))
        try:
            self._require_stub().Configure(request, timeout=self.rpc_timeout)
        except grpc.RpcError as e:
            raise self._rpc_error("Configure", e) from e
        self._config = config
        self._remediate = any(cfg["enforcementLevel"] == "remediate" for cfg in config.values())
        return config

    @property
    def config(self) -> dict[str, dict[str, Any]] | None:
        """The config last sent with Configure (None before configure())."""
        return self._config

    def _ensure_configured(self) -> None:
        if self._config is None:
            self.configure(None)

    def _options(self, r: RecordedResource) -> analyzer_pb2.AnalyzerResourceOptions:
        return analyzer_pb2.AnalyzerResourceOptions(protect=r.protect, parent=engine_urn(r.parent or ""))

    def _provider(self, r: RecordedResource) -> analyzer_pb2.AnalyzerProviderResource | None:
        if not r.provider:
            return None
        msg = self._provider_msgs.get(r.provider)
        if msg is None:
            urn = engine_urn(provider_urn(r.provider))
            typ, name = urn_type_and_name(urn)
            props = to_struct(self._provider_props.get(urn, {}), skip_internal_keys=True)
            msg = analyzer_pb2.AnalyzerProviderResource(urn=urn, type=typ, name=name, properties=props)
            self._provider_msgs[r.provider] = msg
        return msg

    def _request(self, r: RecordedResource, inputs: Mapping[str, Any], *, analyze: bool) -> analyzer_pb2.AnalyzeRequest:
        return analyzer_pb2.AnalyzeRequest(
            type=r.type,
            properties=to_struct(inputs, skip_internal_keys=analyze),
            urn=engine_urn(r.urn),
            name=r.name,
            options=self._options(r),
            provider=self._provider(r),
        )

    def _remediate_one(self, r: RecordedResource, out: Analysis) -> dict[str, Any]:
        """Remediate; returns the inputs Analyze must see (the last remediation's properties, if any)."""
        inputs: dict[str, Any] = dict(r.inputs)
        urn = engine_urn(r.urn)
        try:
            resp = self._require_stub().Remediate(self._request(r, inputs, analyze=False), timeout=self.rpc_timeout)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
                return inputs
            raise self._rpc_error("Remediate", e, urn) from e
        for rem in resp.remediations:
            props = struct_to_dict(rem.properties) if rem.HasField("properties") else None
            if props is not None:
                inputs = props
            out.remediations.append(Remediation(rem.policyName, urn, rem.description, props, rem.diagnostic))
        out.not_applicable.extend(NotApplicable(n.policy_name, urn, n.reason) for n in resp.not_applicable)
        return inputs

    def _collect(self, resp: analyzer_pb2.AnalyzeResponse, urn: str | None, out: Analysis) -> None:
        for d in resp.diagnostics:
            out.violations.append(
                Violation(
                    policy_name=d.policyName,
                    policy_pack_name=d.policyPackName,
                    enforcement_level=PROTO_TO_LEVEL.get(d.enforcementLevel, "advisory"),
                    # Analyze: the engine always reports against the analysed resource. AnalyzeStack: the policy's.
                    urn=urn if urn is not None else d.urn,
                    message=d.message,
                    description=d.description,
                    policy_pack_version=self._info.version if self._info else d.policyPackVersion,
                    severity=SEVERITIES.get(d.severity, ""),
                )
            )
        out.not_applicable.extend(NotApplicable(n.policy_name, urn or "", n.reason) for n in resp.not_applicable)

    def analyze(self, resource: RecordedResource) -> Analysis:
        """Remediate (when a policy runs at level remediate) then Analyze one resource."""
        return self.analyze_many([resource])

    def analyze_many(self, resources: Iterable[RecordedResource], *, in_flight: int = 4) -> Analysis:
        """Remediate + Analyze each resource, in order, with up to ``in_flight`` Analyze calls outstanding.

        Results come back in resource order. Pipelining hides the round trip: the pack's server handles calls on its
        own threads while this side serialises the next resources.
        """
        self._ensure_configured()
        stub = self._require_stub()
        out = Analysis()
        pending: list[tuple[str, grpc.Future]] = []

        def drain(limit: int) -> None:
            while len(pending) > limit:
                urn, fut = pending.pop(0)
                try:
                    resp = fut.result()
                except grpc.RpcError as e:
                    for _, other in pending:
                        other.cancel()
                    raise self._rpc_error("Analyze", e, urn) from e
                self._collect(resp, urn, out)

        with collector_paused():  # the results grow with the stack (preflight/analyzer/collector.py)
            for r in resources:
                inputs = self._remediate_one(r, out) if self._remediate or self.always_remediate else r.inputs
                req = self._request(r, inputs, analyze=True)
                # AnalyzeStack sends the same (possibly remediated) properties: keep the Struct, don't rebuild it.
                self._analyzed[r.urn] = (r.inputs, req.properties)
                pending.append((req.urn, stub.Analyze.future(req, timeout=self.rpc_timeout)))
                drain(max(in_flight - 1, 0))
            drain(0)
        return out

    def analyze_stack(self, resources: Sequence[RecordedResource]) -> Analysis:
        """AnalyzeStack once with every resource (properties = inputs, as in a preview of new resources)."""
        with collector_paused():  # the request and the results grow with the stack (preflight/analyzer/collector.py)
            return self._analyze_stack(resources)

    def _analyze_stack(self, resources: Sequence[RecordedResource]) -> Analysis:
        self._ensure_configured()
        request = analyzer_pb2.AnalyzeStackRequest()
        for r in resources:
            ar = request.resources.add(
                type=r.type,
                urn=engine_urn(r.urn),
                name=r.name,
                options=self._options(r),
                parent=engine_urn(r.parent or ""),
                dependencies=[engine_urn(d) for d in r.dependencies],
            )
            seen = self._analyzed.get(r.urn)
            if seen is not None and seen[0] is r.inputs:
                ar.properties.CopyFrom(seen[1])
            else:
                ar.properties.CopyFrom(to_struct(r.inputs, skip_internal_keys=True))
            provider = self._provider(r)
            if provider is not None:
                ar.provider.CopyFrom(provider)
            for key, urns in r.property_dependencies.items():
                if urns:
                    ar.propertyDependencies[key].urns.extend(engine_urn(u) for u in urns)
        out = Analysis()
        try:
            resp = self._require_stub().AnalyzeStack(request, timeout=self.rpc_timeout)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
                return out
            raise self._rpc_error("AnalyzeStack", e) from e
        self._collect(resp, None, out)
        return out

    def know_providers(self, resources: Iterable[RecordedResource]) -> None:
        """Remember provider resources' inputs so Analyze can send them with the resources they serve."""
        for r in resources:
            if r.type.startswith("pulumi:providers:"):
                self._provider_props[engine_urn(r.urn)] = dict(r.inputs)
        self._provider_msgs.clear()


def run_policy_pack(
    pack_dir: Path,
    resources: list[RecordedResource],
    *,
    policy_config: dict[str, Any] | None = None,
    project: str = "azure-gpu-platform",
    stack: str = "dev",
    dry_run: bool = True,
    python: str | None = None,
    organization: str = "organization",
    stack_config: Mapping[str, Any] | None = None,
    startup_timeout: float = 60.0,
) -> PackResult:
    """Start the pack, configure it, Analyze every resource, AnalyzeStack once, stop it; return the verdict.

    Raises :class:`PolicyConfigError` for config that does not fit the pack, :class:`PolicyPackStartError` when the
    pack does not start, :class:`PolicyPackError` when it fails during analysis.
    """
    with PolicyPackProcess(
        pack_dir,
        project=project,
        stack=stack,
        dry_run=dry_run,
        organization=organization,
        stack_config=stack_config,
        python=python,
        startup_timeout=startup_timeout,
    ) as pack:
        result = analyze_run(pack, resources, policy_config=policy_config)
    result.stderr = pack.stderr  # complete once the pack has stopped
    return result


def analyze_run(
    pack: PolicyPackProcess,
    resources: list[RecordedResource],
    *,
    policy_config: dict[str, Any] | None = None,
    logs_since_configure: bool = False,
) -> PackResult:
    """One run on a started pack, as the engine drives it: Configure with ``policy_config`` (an entry and a level for
    every policy), know the providers, Analyze every resource, AnalyzeStack once. ``logs``: every log of the pack, or
    with ``logs_since_configure`` only those after Configure (a pack that served earlier runs)."""
    info = pack.analyzer_info()
    config = pack.configure(policy_config)
    seen = len(pack.logs) if logs_since_configure else 0
    pack.know_providers(resources)
    analysis = pack.analyze_many(resources)
    analysis.extend(pack.analyze_stack(resources))
    return PackResult(
        violations=analysis.violations,
        not_applicable=analysis.not_applicable,
        policies=info.policies,
        pack_name=info.name,
        version=info.version,
        config=config,
        remediations=analysis.remediations,
        logs=pack.logs[seen:],
        stderr=pack.stderr,
    )
