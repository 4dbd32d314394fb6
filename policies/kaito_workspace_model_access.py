"""kaito-workspace-model-access: a KAITO Workspace names a model-access secret exactly when its preset's weights are
downloaded at run time.

KAITO v0.6.0 (the AKS add-on's version) refuses both mistakes when the Workspace is created
(``api/v1beta1/workspace_validation.go``); the preset table and the pure check are in
``gpu_catalog/kaito_presets.py``, the same ones the stack config and the KAITO component use. Only ``kaito.sh/v1beta1``
is checked: v1alpha1 has no ``presetOptions.modelAccessSecret`` at that version.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from gpu_catalog.kaito_presets import (
    KAITO_VERSION,
    MODEL_ACCESS_SECRET_KEY,
    RULE_KAITO_MODEL_ACCESS,
    check_kaito_model_access,
    kaito_preset,
)

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, plain

WORKSPACE_V1BETA1 = "kubernetes:kaito.sh/v1beta1:Workspace"
SECRET_PATH = "inference.preset.presetOptions.modelAccessSecret"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type != WORKSPACE_V1BETA1:
        return
    review = Review(report, args)
    props = plain(args.props)
    preset = get(props, "inference", "preset", "name")
    secret = get(props, "inference", "preset", "presetOptions", "modelAccessSecret")
    if preset is UNKNOWN:
        review.unknown_field("inference.preset.name")
    elif secret is UNKNOWN:
        review.unknown_field(SECRET_PATH)
    elif not isinstance(preset, str) or not preset:
        review.not_checked("inference.preset.name is not set (no preset: nothing to download), so there is no rule")
    elif kaito_preset(preset) is None:
        review.not_checked(
            f"inference.preset.name {preset!r} is not in the KAITO {KAITO_VERSION} preset table "
            "(gpu_catalog/kaito_presets.py), so whether it needs a model-access secret was not checked"
        )
    else:
        finding = check_kaito_model_access(preset, secret if isinstance(secret, str) else None)
        if finding is not None:
            review.violation(f"{SECRET_PATH}: {finding.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=RULE_KAITO_MODEL_ACCESS,
    what=f"A kaito.sh/v1beta1 Workspace sets {SECRET_PATH} exactly when its preset's weights are downloaded at run "
    "time (Llama 3.x, DeepSeek R1/V3).",
    why=f"KAITO {KAITO_VERSION} refuses the Workspace otherwise: a runtime download needs a Hugging Face token from a "
    f"Secret's {MODEL_ACCESS_SECRET_KEY} key, and a preset whose weights ship in its image refuses one "
    "(api/v1beta1/workspace_validation.go; presets in gpu_catalog/kaito_presets.py).",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "kaito", "secrets"],
    fix=f"Add {SECRET_PATH} (a Secret with an {MODEL_ACCESS_SECRET_KEY} key) for a runtime-download preset; remove it "
    "for any other preset.",
)
