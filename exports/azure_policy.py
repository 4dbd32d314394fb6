"""Azure Policy definition ``aks-gpu-vm-sizes``: AKS agent pools only on GPU sizes the size rules accept.

The size rules are :func:`rules.sizes.check_gpu_size` (policies ``gpu-size-no-nvv4``, ``gpu-size-known``,
``gpu-size-not-retired``, ``gpu-size-minimum``, ``gpu-size-aks-supported``). The allowed list is every catalog size
that passes all of them on ``today`` with the configured floor: it is computed by calling the rules, so a catalog
update (a new size, a retirement date) changes the generated definition. A GPU size is an N-family name
(``Standard_N*``: every catalog name has that shape, and the rules treat any such name as a GPU size), so an unknown
N-family name is refused like the rules refuse it, and non-GPU sizes (the system pool) are not this policy's business.

Policy language (MicrosoftDocs/azure-docs ``articles/governance/policy/concepts/definition-structure.md`` and
``articles/governance/policy/how-to/author-policies-for-arrays.md``; aliases and commits in
``conformance/facts/azure_policy.json``):

- ``Microsoft.ContainerService/managedClusters/agentPools`` carries one size, alias ``…/agentPools/vmSize``; a pool of
  type ``VirtualMachines`` carries its sizes in ``virtualMachinesProfile.scale.manual[]`` (``{size, count}`` entries in
  REST API 2025-09-01, the version pulumi-azure-native 3.29 uses) instead, so "some entry is refused" is a ``count``
  over ``…/agentPools/virtualMachinesProfile.scale.manual[*]`` whose ``where`` is evaluated per entry, ``greater`` than
  0. ``scale.autoscale`` exists only in preview API versions and is not generated (docs/guardrail-layers.md).
- ``Microsoft.ContainerService/managedClusters`` carries the inline pools; a ``field`` condition on the ``[*]`` alias
  ``…/agentPoolProfiles[*].vmSize`` is true only when *every* profile satisfies it, so "some profile is refused" is
  a ``count`` over ``…/agentPoolProfiles[*]`` whose ``where`` is evaluated per profile, ``greater`` than 0. An inline
  profile's ``virtualMachinesProfile.scale.manual[*].size`` has no alias (the alias list has only the preview-era
  ``…manual[*].sizes[*]``), so inline ``VirtualMachines`` profiles are not covered: the policy pack checks them.
- Karpenter NodePools (node auto-provisioning) are Kubernetes objects, never ARM requests, so the definition cannot
  tell an explicitly GPU NodePool from one that excludes or does not constrain GPUs (``rules.karpenter.GpuScope``);
  those three cases live in the policy pack and the cost estimate, and leave the allowed list unchanged
  (docs/guardrail-layers.md, "What the Azure Policy does not see").
- ``like`` and ``notIn`` compare strings case-insensitively (only ``match``/``notMatch`` are case-sensitive), so
  ``standard_nc6s_v3`` is treated like ``Standard_NC6s_v3``, as the catalog does.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Final

from gpu_catalog import clock
from gpu_catalog.catalog import N_FAMILY_PREFIX, Catalog, default_catalog
from rules.azure_policy import EFFECTS, Effect
from rules.sizes import DEFAULT_FLOOR, SIZE_RULES, accepted_sizes, floor_size

POLICY_NAME: Final = "aks-gpu-vm-sizes"
"""The definition's name in metadata and in the project's docs (the Azure resource name adds the environment)."""
AGENT_POOL_TYPE: Final = "Microsoft.ContainerService/managedClusters/agentPools"
MANAGED_CLUSTER_TYPE: Final = "Microsoft.ContainerService/managedClusters"
AGENT_POOL_VM_SIZE: Final = "Microsoft.ContainerService/managedClusters/agentPools/vmSize"
PROFILES: Final = "Microsoft.ContainerService/managedClusters/agentPoolProfiles[*]"
PROFILE_VM_SIZE: Final = "Microsoft.ContainerService/managedClusters/agentPoolProfiles[*].vmSize"
AGENT_POOL_MANUAL: Final = (
    "Microsoft.ContainerService/managedClusters/agentPools/virtualMachinesProfile.scale.manual[*]"
)
"""A ``VirtualMachines`` agent pool's fixed-size entries (``{size, count}``)."""
AGENT_POOL_MANUAL_SIZE: Final = f"{AGENT_POOL_MANUAL}.size"
GPU_SIZE_PATTERN: Final = f"{N_FAMILY_PREFIX}*"
"""``like`` pattern of an N-family (GPU) size (the catalog's notion, :data:`gpu_catalog.catalog.N_FAMILY_PREFIX`):
one wildcard, compared case-insensitively."""
ALLOWED_PARAMETER: Final = "allowedGpuSizes"
EFFECT_PARAMETER: Final = "effect"
VERSION: Final = "1.1.0"
"""1.1.0: a ``VirtualMachines`` agent pool's ``virtualMachinesProfile.scale.manual[*].size`` is checked too."""


def allowed_sizes(floor: str = DEFAULT_FLOOR, today: date | None = None, catalog: Catalog | None = None) -> list[str]:
    """Catalog sizes every size rule accepts for an AKS pool (floor ``floor``, on ``today``), sorted by name.

    An adapter: ``today`` defaults to :func:`gpu_catalog.clock.today`, resolved here (the rules take the day)."""
    day = today or clock.today()
    return list(accepted_sizes(floor, today=day, require_aks=True, catalog=catalog))


def _refused(field: str) -> dict[str, Any]:
    """A GPU size that is not in the allowed list (both comparisons are case-insensitive)."""
    return {
        "allOf": [
            {"field": field, "like": GPU_SIZE_PATTERN},
            {"field": field, "notIn": f"[parameters('{ALLOWED_PARAMETER}')]"},
        ]
    }


def _any_refused(members: str, size: str) -> dict[str, Any]:
    """At least one member of the ``[*]`` alias ``members`` whose ``size`` (an alias under it) is refused."""
    return {"count": {"field": members, "where": _refused(size)}, "greater": 0}


def policy_rule() -> dict[str, Any]:
    """``if``: an agent pool with a refused size (``vmSize``, or any ``VirtualMachines`` manual-scale entry), or a
    managed cluster with at least one inline profile whose ``vmSize`` is refused."""
    return {
        "if": {
            "anyOf": [
                {"allOf": [{"field": "type", "equals": AGENT_POOL_TYPE}, _refused(AGENT_POOL_VM_SIZE)]},
                {
                    "allOf": [
                        {"field": "type", "equals": MANAGED_CLUSTER_TYPE},
                        _any_refused(PROFILES, PROFILE_VM_SIZE),
                    ]
                },
                {
                    "allOf": [
                        {"field": "type", "equals": AGENT_POOL_TYPE},
                        _any_refused(AGENT_POOL_MANUAL, AGENT_POOL_MANUAL_SIZE),
                    ]
                },
            ]
        },
        "then": {"effect": f"[parameters('{EFFECT_PARAMETER}')]"},
    }


def description(floor: str = DEFAULT_FLOOR) -> str:
    return (
        "Refuses AKS agent pools (agentPools, including a VirtualMachines pool's manual-scale sizes, and a managed "
        "cluster's inline agentPoolProfiles' vmSize) on an N-family GPU VM "
        f"size that azure-gpu-platform's size rules refuse: NVv4, unknown to the catalog, retired, below the GPU "
        f"floor {floor}, not supported by AKS ({', '.join(SIZE_RULES)}). The allowed list is generated from "
        "gpu_catalog/catalog.json by rules/sizes.py; regenerate it after a catalog update. Non-GPU sizes are not "
        "evaluated."
    )


def non_compliance_message(floor: str = DEFAULT_FLOOR, today: date | None = None) -> str:
    """What the refusal says: the rules, and the fix (examples on ``today``; default :func:`gpu_catalog.clock.today`,
    resolved by :func:`allowed_sizes`)."""
    examples = ", ".join(allowed_sizes(floor, today)[:3])
    return (
        f"azure-gpu-platform {POLICY_NAME}: this GPU VM size is refused by the size rules (NVv4, unknown, retired, "
        f"below the floor {floor}, or not AKS-supported). Use a size from the assignment's {ALLOWED_PARAMETER} "
        f"parameter (e.g. {examples}); a real new size goes into gpu_catalog/catalog.json, then regenerate the policy."
    )


def policy_definition(
    *,
    floor: str = DEFAULT_FLOOR,
    effect: Effect = "Audit",
    today: date | None = None,
    catalog: Catalog | None = None,
    name: str = POLICY_NAME,
) -> dict[str, Any]:
    """The custom policy definition as ARM (and EPAC, Terraform, Bicep) take it: ``{name, properties}``.

    ``effect`` is the parameter's default (an assignment may choose another of :data:`EFFECTS`). ``today`` dates the
    allowed list (default: :func:`gpu_catalog.clock.today`, resolved by :func:`allowed_sizes`). Raises
    ``ValueError`` for an unknown floor or effect.
    """
    if effect not in EFFECTS:
        raise ValueError(f"effect must be one of {', '.join(EFFECTS)}, got {effect!r}")
    cat = catalog if catalog is not None else default_catalog()
    floor_size(floor, cat)  # an unknown floor is refused before anything is generated
    return {
        "name": name,
        "properties": {
            "displayName": "AKS GPU node pools: VM sizes azure-gpu-platform's size rules accept",
            "policyType": "Custom",
            "mode": "All",
            "description": description(floor),
            "metadata": {
                "category": "Kubernetes",
                "version": VERSION,
                "source": "azure-gpu-platform (exports/azure_policy.py)",
                "rules": list(SIZE_RULES),
                "gpuFloor": floor,
                "catalogAsOf": cat.as_of.isoformat(),
            },
            "parameters": {
                EFFECT_PARAMETER: {
                    "type": "String",
                    "metadata": {
                        "displayName": "Effect",
                        "description": "Deny refuses the request; Audit reports it (roll out with Audit first).",
                    },
                    "allowedValues": list(EFFECTS),
                    "defaultValue": effect,
                },
                ALLOWED_PARAMETER: {
                    "type": "Array",
                    "metadata": {
                        "displayName": "Allowed GPU VM sizes",
                        "description": "N-family sizes AKS pools may use: generated from the catalog and size rules.",
                    },
                    "defaultValue": allowed_sizes(floor, today, cat),
                },
            },
            "policyRule": policy_rule(),
        },
    }
