"""kaito-workspace-instance-type: a KAITO Workspace's instance type is a known, NVIDIA, KAITO-supported GPU size
with enough GPUs and GPU memory for its preset.

The rules: :func:`rules.kaito.instance_type`, then :func:`rules.kaito.preset_fit`. This module is the policy's
identity and what it cannot leave to the spec: the values unknown during a preview. The Workspace's properties become
its spec once per request (:func:`policies._specs.wire_workspace`), which the rules judge.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from gpu_catalog.kaito_presets import KAITO_VERSION
from rules import Finding, NotApplicable
from rules.kaito import WORKSPACE_PROPERTIES, instance_type, preset_fit, property_path
from rules.resource_types import is_kaito_workspace

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, props_of, request_today
from ._specs import workspace_spec

NAME = "kaito-workspace-instance-type"


def _read(props: Any, field: str) -> Any:
    return get(props, *WORKSPACE_PROPERTIES[field])


def _report(review: Review, result: list[Finding] | NotApplicable) -> None:
    if isinstance(result, NotApplicable):
        review.not_checked(result.reason)
    else:
        for finding in result:
            review.violation(f"{property_path(finding.field)}: {finding.message}")


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_kaito_workspace(args.resource_type):
        return
    review = Review(report, args)
    props = props_of(args)
    if _read(props, "instanceType") is UNKNOWN:
        review.unknown_field(property_path("instanceType"))
    else:
        ws = workspace_spec(args).workspace  # the Workspace as its spec (policies/_specs.py), built once per request
        today = request_today()
        found = instance_type(ws, today=today)
        _report(review, found)
        if found == []:  # a KAITO size: does the preset fit on count nodes of it?
            if _read(props, "preset") is UNKNOWN:
                review.unknown_field(property_path("preset"))
            elif _read(props, "count") is UNKNOWN:
                review.unknown_field(property_path("count"))
            elif ws.preset:  # no preset (a template): no GPU needs to check
                _report(review, preset_fit(ws, today=today))
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="A KAITO Workspace's resource.instanceType is a known NVIDIA GPU size in KAITO's SKU table, and "
    "resource.count nodes of it have the GPUs and the per-GPU and total GPU memory its inference preset needs.",
    why="KAITO provisions nodes only for SKUs it knows, has no AMD support, and rejects (or cannot run) a preset "
    f"whose GPU memory does not fit (KAITO {KAITO_VERSION} presets, gpu_catalog/kaito_presets.py).",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "kaito", "vm-size"],
    fix="Use the preset's example instance type (named in the violation) or raise resource.count.",
    applies_to=is_kaito_workspace,
)
