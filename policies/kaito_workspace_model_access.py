"""kaito-workspace-model-access: a KAITO Workspace names a model-access secret exactly when its preset's weights are
downloaded at run time.

KAITO v0.6.0 (the AKS add-on's version) refuses both mistakes when the Workspace is created
(``api/v1beta1/workspace_validation.go``). The rule: :func:`rules.kaito.model_access_secret`, the one the stack
config and the KAITO component call; the preset table is data in ``gpu_catalog/kaito_presets.py``. This module is the
policy's identity and what it cannot leave to the Workspace's spec (:func:`policies._specs.wire_workspace`): the
values unknown during a preview. Only ``kaito.sh/v1beta1`` is checked: v1alpha1 has no
``presetOptions.modelAccessSecret`` at that version.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from gpu_catalog.kaito_presets import KAITO_VERSION, MODEL_ACCESS_SECRET_KEY
from rules import NotApplicable
from rules.kaito import WORKSPACE_PROPERTIES, model_access_secret, property_path

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, props_of
from ._specs import workspace_spec

NAME = "kaito-workspace-model-access"
WORKSPACE_V1BETA1 = "kubernetes:kaito.sh/v1beta1:Workspace"
SECRET_PATH = property_path("modelAccessSecret")


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type != WORKSPACE_V1BETA1:
        return
    review = Review(report, args)
    props = props_of(args)
    if get(props, *WORKSPACE_PROPERTIES["preset"]) is UNKNOWN:
        review.unknown_field(property_path("preset"))
    elif get(props, *WORKSPACE_PROPERTIES["modelAccessSecret"]) is UNKNOWN:
        review.unknown_field(SECRET_PATH)
    else:
        result = model_access_secret(workspace_spec(args).workspace)  # the spec, built once per request
        if isinstance(result, NotApplicable):
            review.not_checked(result.reason)
        else:
            for finding in result:
                review.violation(f"{property_path(finding.field)}: {finding.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
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
    applies_to=lambda resource_type: resource_type == WORKSPACE_V1BETA1,
)
