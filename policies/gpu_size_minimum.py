"""gpu-size-minimum: no GPU size below the configured floor (config ``minimumSize``, default Standard_NC6s_v3)."""

from __future__ import annotations

from functools import partial

from pulumi_policy import PolicyConfigSchema, ReportViolation, ResourceValidationArgs, Severity

from gpu_catalog import default_catalog
from rules.sizes import DEFAULT_FLOOR, check_minimum, floor_size

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import review_sizes

CONFIG_KEY = "minimumSize"

NAME = "gpu-size-minimum"


def configured_floor(args: ResourceValidationArgs) -> str:
    """The floor from the policy config. pulumi_policy does not apply schema defaults, so default here.

    An unknown name fails the policy loudly (the engine normally rejects it first, against the schema's enum).
    """
    value = args.get_config().get(CONFIG_KEY) or DEFAULT_FLOOR
    if not isinstance(value, str):
        raise ValueError(f"policy {NAME}: config {CONFIG_KEY} must be a size name, got {value!r}")
    try:
        return floor_size(value).name
    except ValueError as exc:
        raise ValueError(f"policy {NAME}: {exc}") from exc


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review_sizes(args.resource_type, args.props, report, partial(check_minimum, floor=configured_floor(args)))


POLICY = GpuResourcePolicy(
    name=NAME,
    what="No GPU size below the floor: smaller GPU memory per GPU, lower CUDA compute capability, or only a "
    "fraction of a GPU than the floor size.",
    why="Below one whole V100 (16 GiB, compute capability 7.0) current CUDA/ML stacks and KAITO presets do not fit "
    "or do not run; T4 (16 GiB, 7.5) passes, K80/M60/P40/P100 and partial A10/AMD sizes do not.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "vm-size"],
    fix="Use a size at or above the floor (the violation lists the cheapest ones), or lower the floor in the "
    "policy config if the environment allows it.",
    config_schema=PolicyConfigSchema(
        properties={
            CONFIG_KEY: {
                "type": "string",
                "enum": sorted(default_catalog()),
                "default": DEFAULT_FLOOR,
                "description": "The floor size: any catalog size. GPU sizes below it are rejected.",
            }
        }
    ),
    config_doc=f"`{CONFIG_KEY}`: any catalog size (default `{DEFAULT_FLOOR}`), e.g. `Standard_NC24ads_A100_v4` to "
    "require A100-class GPUs.",
)
