"""kaito-workspace-instance-type: a KAITO Workspace's instance type is a known, NVIDIA, KAITO-supported GPU size
with enough GPUs and GPU memory for its preset."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from gpu_catalog.kaito_presets import (
    KAITO_VERSION,
    RULE_KAITO,
    check_kaito_instance_type,
    check_kaito_preset_fit,
    kaito_preset,
)
from rules.resource_types import is_kaito_workspace

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, plain


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_kaito_workspace(args.resource_type):
        return
    review = Review(report, args)
    props = plain(args.props)
    instance_type = get(props, "resource", "instanceType")
    if instance_type is UNKNOWN:
        review.unknown_field("resource.instanceType")
    elif not isinstance(instance_type, str) or not instance_type:
        review.not_checked(
            "resource.instanceType is not set (KAITO then uses existing nodes matched by resource.labelSelector / "
            "preferredNodes), so there is no instance type to check"
        )
    else:
        finding = check_kaito_instance_type(instance_type)
        if finding is not None:
            review.violation(f"resource.instanceType: {finding.message}")
        else:
            preset = get(props, "inference", "preset", "name")
            count = get(props, "resource", "count")
            if preset is UNKNOWN:
                review.unknown_field("inference.preset.name")
            elif count is UNKNOWN:
                review.unknown_field("resource.count")
            elif isinstance(preset, str) and preset:
                nodes = int(count) if isinstance(count, int | float) and count >= 1 else 1
                if kaito_preset(preset) is None:
                    review.not_checked(
                        f"inference.preset.name {preset!r} is not in the KAITO {KAITO_VERSION} preset table "
                        "(gpu_catalog/kaito_presets.py), so its GPU memory needs were not checked"
                    )
                else:
                    fit = check_kaito_preset_fit(instance_type, preset, nodes)
                    if fit is not None:
                        review.violation(f"resource.instanceType: {fit.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=RULE_KAITO,
    what="A KAITO Workspace's resource.instanceType is a known NVIDIA GPU size in KAITO's SKU table, and "
    "resource.count nodes of it have the GPUs and the per-GPU and total GPU memory its inference preset needs.",
    why="KAITO provisions nodes only for SKUs it knows, has no AMD support, and rejects (or cannot run) a preset "
    f"whose GPU memory does not fit (KAITO {KAITO_VERSION} presets, gpu_catalog/kaito_presets.py).",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "kaito", "vm-size"],
    fix="Use the preset's example instance type (named in the violation) or raise resource.count.",
)
