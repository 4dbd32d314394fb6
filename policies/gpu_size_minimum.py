"""gpu-size-minimum: no GPU size below the configured floor (config ``minimumSize``, default Standard_NC6s_v3)."""

from __future__ import annotations

from functools import cache

from pulumi_policy import PolicyConfigSchema, ReportViolation, ResourceValidationArgs, Severity

from gpu_catalog import default_catalog
from rules.size_fields import FAMILIES, names_vm_sizes, size_family
from rules.sizes import DEFAULT_FLOOR, check_minimum, floor_size

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import per_size, review_sizes
from ._scope import FAMILIES_DOC, FAMILIES_KEY, FAMILIES_SCHEMA, configured_families

CONFIG_KEY = "minimumSize"
BY_FAMILY_KEY = "minimumSizeByFamily"

NAME = "gpu-size-minimum"
_CHECK = per_size(check_minimum, dated=True)  # check_minimum(size, floor, today=...)


@cache
def _floor_name(value: str) -> str:
    return floor_size(value).name  # a refused name raises, and is not cached


def _floor(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"policy {NAME}: config {key} must be a size name, got {value!r}")
    try:
        return _floor_name(value)
    except ValueError as exc:
        where = "" if key == CONFIG_KEY else f"{key}: "
        raise ValueError(f"policy {NAME}: {where}{exc}") from exc


def configured_floor(args: ResourceValidationArgs, family: str | None = None) -> str:
    """The floor from the policy config: ``minimumSizeByFamily[family]`` when set, else ``minimumSize``.
    pulumi_policy does not apply schema defaults, so default here.

    An unknown name fails the policy loudly (the engine normally rejects it first, against the schema's enum).
    """
    config = args.get_config()
    by_family = config.get(BY_FAMILY_KEY) or {}
    if not isinstance(by_family, dict) or any(k not in FAMILIES for k in by_family):
        raise ValueError(f"policy {NAME}: config {BY_FAMILY_KEY} maps families ({', '.join(FAMILIES)}) to sizes")
    if family is not None and family in by_family:
        return _floor(by_family[family], f"{BY_FAMILY_KEY}.{family}")
    return _floor(config.get(CONFIG_KEY) or DEFAULT_FLOOR, CONFIG_KEY)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    floor = configured_floor(args, size_family(args.resource_type))
    review_sizes(
        args,
        report,
        lambda size: _CHECK(size, floor),
        families=configured_families(args, NAME),
    )


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
            },
            BY_FAMILY_KEY: {
                "type": "object",
                "propertyNames": {"enum": list(FAMILIES)},
                "additionalProperties": {"type": "string", "enum": sorted(default_catalog())},
                "description": 'A different floor for some resource families (e.g. {"vm": '
                '"Standard_NV12ads_A10_v5"} for visualisation VMs); other families keep minimumSize.',
            },
            FAMILIES_KEY: FAMILIES_SCHEMA,
        }
    ),
    config_doc=f"`{CONFIG_KEY}`: any catalog size (default `{DEFAULT_FLOOR}`), e.g. `Standard_NC24ads_A100_v4` to "
    f"require A100-class GPUs. `{BY_FAMILY_KEY}`: a floor per resource family ({', '.join(FAMILIES)}), e.g. "
    '`{"vm": "Standard_NV12ads_A10_v5"}` for visualisation VMs; other families keep the floor above. ' + FAMILIES_DOC,
    size_families=FAMILIES,
    applies_to=names_vm_sizes,
)
