"""The Azure Policy definition ``aks-gpu-vm-sizes`` (AKS agent pools only on GPU sizes the size rules accept), its
effects and where it is assigned. Pure: the day is passed in; no Pulumi import.

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
- The stack's exemptions of the size rules reach the definition as the assignment's ``exemptedPools`` parameter
  (:class:`ExemptedPool`): every branch also requires that no unexpired entry names the pool — an agent pool by
  ``fullName`` (``<cluster>/<pool>``), an inline profile by the cluster's ``name`` and the profile's ``name`` in a
  ``value count`` nested in the count over the profiles — with ``expiresOn`` compared to ``utcNow()``
  (``definition-structure-policy-rule.md``; why not a ``PolicyExemption``: docs/exemptions.md).
- ``like`` and ``notIn`` compare strings case-insensitively (only ``match``/``notMatch`` are case-sensitive), so
  ``standard_nc6s_v3`` is treated like ``Standard_NC6s_v3``, as the catalog does.

Effects and scopes: the definition's effect parameter allows ``Deny``, ``Audit`` and ``Disabled``
(MicrosoftDocs/azure-docs ``articles/governance/policy/concepts/definition-structure.md``,
``policy-definition-structure`` in ``conformance/facts/azure_policy.json``); the platform assigns ``Deny`` or
``Audit`` only, at the cluster's resource group or the subscription. The stack config (``azurePolicy``), the component
(``components/azure_policy.py``) and the export (``exports/azure_policy.py``, ``python -m exports azure-policy``)
build the policy here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Final, Literal

from gpu_catalog.catalog import N_FAMILY_PREFIX, Catalog, default_catalog

from .sizes import DEFAULT_FLOOR, SIZE_RULES, accepted_sizes, floor_size

EFFECTS: Final = ("Deny", "Audit", "Disabled")
Effect = Literal["Deny", "Audit", "Disabled"]
""":data:`EFFECTS` as a type (tests/exports/test_azure_policy.py checks they agree)."""
ENFORCED_EFFECTS: Final = ("Deny", "Audit")
"""The effects the platform assigns (``Disabled`` would assign a policy that does nothing)."""
EnforcedEffect = Literal["Deny", "Audit"]
SCOPES: Final = ("resourceGroup", "subscription")
"""Where the platform assigns the policy: the cluster's resource group or the whole subscription."""
Scope = Literal["resourceGroup", "subscription"]

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
PROFILE_NAME: Final = "Microsoft.ContainerService/managedClusters/agentPoolProfiles[*].name"
ALLOWED_PARAMETER: Final = "allowedGpuSizes"
EFFECT_PARAMETER: Final = "effect"
EXEMPTED_PARAMETER: Final = "exemptedPools"
"""The pools a stack's exemptions waive, each until its ``expiresOn`` (:class:`ExemptedPool`)."""
EXEMPTION_INDEX: Final = "exemption"
"""The ``count.name`` of the value count over :data:`EXEMPTED_PARAMETER` (``current('exemption')``)."""
MAX_EXEMPTED_POOLS: Final = 100
"""definition-structure-policy-rule.md, "Policy rule limits": a value count iterates at most 100 members (AKS allows
at most 100 node pools per cluster, DESIGN §8, so one cluster's pools always fit)."""
VERSION: Final = "1.2.0"
"""1.1.0: a ``VirtualMachines`` agent pool's ``virtualMachinesProfile.scale.manual[*].size`` is checked too. 1.2.0:
the ``exemptedPools`` parameter, honoured by every branch until each entry's ``expiresOn``."""


def allowed_sizes(floor: str = DEFAULT_FLOOR, *, today: date, catalog: Catalog | None = None) -> list[str]:
    """Catalog sizes every size rule accepts for an AKS pool (floor ``floor``, on ``today``), sorted by name."""
    return list(accepted_sizes(floor, today=today, require_aks=True, catalog=catalog))


@dataclass(frozen=True)
class ExemptedPool:
    """One AKS pool the stack's exemptions (:mod:`rules.exemptions`) waive from the size rules, as an entry of the
    assignment's :data:`EXEMPTED_PARAMETER`: the definition does not refuse that pool — standalone
    (``fullName`` ``<cluster>/<pool>``) or inline in its cluster's ``agentPoolProfiles`` — while ``expiresOn`` is later
    than ``utcNow()``. The definition is one rule for every size rule, so the entry waives all of them for that pool
    (the pack and the preflight keep waiving only the named ones)."""

    cluster: str
    """The managed cluster's Azure name."""
    pool: str
    """The agent pool's Azure name."""
    expires: date
    policies: tuple[str, ...]
    reason: str
    owner: str
    category: str

    @property
    def expires_on(self) -> str:
        """``expiresOn`` in exactly the format of Azure Policy's ``utcNow()`` (``yyyy-MM-ddTHH:mm:ss.fffffffZ``), so
        the rule's ``greater`` gives the same answer whether it compares them as strings or as times (a shorter
        ``…T00:00:00Z`` sorts after ``…T00:00:00.0000000Z`` as a string): the start of the expiry day, the day the pack
        and the preflight stop applying the exemption."""
        return f"{self.expires.isoformat()}T00:00:00.0000000Z"

    def to_parameter(self) -> dict[str, Any]:
        """The entry as the assignment sends it (what the rule reads: ``cluster``, ``pool``, ``expiresOn``; the rest
        says why, for whoever reads the assignment)."""
        return {
            "cluster": self.cluster,
            "pool": self.pool,
            "expiresOn": self.expires_on,
            "policies": list(self.policies),
            "reason": self.reason,
            "owner": self.owner,
            "category": self.category,
        }


def exempted_pools_value(pools: Sequence[ExemptedPool]) -> list[dict[str, Any]]:
    """The :data:`EXEMPTED_PARAMETER` value of an assignment; raises ``ValueError`` over :data:`MAX_EXEMPTED_POOLS`."""
    if len(pools) > MAX_EXEMPTED_POOLS:
        raise ValueError(f"{len(pools)} exempted pools: a value count iterates at most {MAX_EXEMPTED_POOLS}")
    return [p.to_parameter() for p in pools]


def _current(prop: str) -> str:
    return f"current('{EXEMPTION_INDEX}').{prop}"


def _exempted(*pool_matches: dict[str, Any]) -> dict[str, Any]:
    """True when an entry of :data:`EXEMPTED_PARAMETER` names the evaluated pool (``pool_matches``) and has not
    expired (its ``expiresOn`` is later than ``utcNow()``; ISO 8601 UTC strings compare in time order)."""
    return {
        "count": {
            "value": f"[parameters('{EXEMPTED_PARAMETER}')]",
            "name": EXEMPTION_INDEX,
            "where": {
                "allOf": [*pool_matches, {"value": f"[{_current('expiresOn')}]", "greater": "[utcNow()]"}],
            },
        },
        "greater": 0,
    }


AGENT_POOL_EXEMPTED: Final = {
    "field": "fullName",
    "equals": f"[concat({_current('cluster')}, '/', {_current('pool')})]",
}
"""An agent pool's ``fullName`` is ``<cluster>/<pool>`` (definition-structure-policy-rule.md, "Fields")."""
PROFILE_EXEMPTED: Final = (
    {"field": "name", "equals": f"[{_current('cluster')}]"},
    {"value": f"[current('{PROFILE_NAME}')]", "equals": f"[{_current('pool')}]"},
)
"""Inside the count over a cluster's profiles: the cluster's name and the counted profile's ``name``."""


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
    managed cluster with at least one inline profile whose ``vmSize`` is refused — in each branch unless the pool is an
    unexpired entry of :data:`EXEMPTED_PARAMETER` (for a cluster: checked per profile, so a full cluster PUT that
    carries an exempted pool is not refused for it, and still is for any other)."""
    not_exempted_pool = {"not": _exempted(AGENT_POOL_EXEMPTED)}
    profile = {"allOf": [_refused(PROFILE_VM_SIZE), {"not": _exempted(*PROFILE_EXEMPTED)}]}
    return {
        "if": {
            "anyOf": [
                {
                    "allOf": [
                        {"field": "type", "equals": AGENT_POOL_TYPE},
                        _refused(AGENT_POOL_VM_SIZE),
                        not_exempted_pool,
                    ]
                },
                {
                    "allOf": [
                        {"field": "type", "equals": MANAGED_CLUSTER_TYPE},
                        {"count": {"field": PROFILES, "where": profile}, "greater": 0},
                    ]
                },
                {
                    "allOf": [
                        {"field": "type", "equals": AGENT_POOL_TYPE},
                        _any_refused(AGENT_POOL_MANUAL, AGENT_POOL_MANUAL_SIZE),
                        not_exempted_pool,
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


def non_compliance_message(floor: str = DEFAULT_FLOOR, *, today: date) -> str:
    """What the refusal says: the rules, and the fix (examples of the sizes allowed on ``today``)."""
    examples = ", ".join(allowed_sizes(floor, today=today)[:3])
    return (
        f"azure-gpu-platform {POLICY_NAME}: this GPU VM size is refused by the size rules (NVv4, unknown, retired, "
        f"below the floor {floor}, or not AKS-supported). Use a size from the assignment's {ALLOWED_PARAMETER} "
        f"parameter (e.g. {examples}); a real new size goes into gpu_catalog/catalog.json, then regenerate the policy."
    )


def policy_definition(
    *,
    floor: str = DEFAULT_FLOOR,
    effect: Effect = "Audit",
    today: date,
    catalog: Catalog | None = None,
    name: str = POLICY_NAME,
) -> dict[str, Any]:
    """The custom policy definition as ARM (and EPAC, Terraform, Bicep) take it: ``{name, properties}``.

    ``effect`` is the parameter's default (an assignment may choose another of :data:`EFFECTS`). ``today`` dates the
    allowed list. Raises ``ValueError`` for an unknown floor or effect.
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
                    "defaultValue": allowed_sizes(floor, today=today, catalog=cat),
                },
                EXEMPTED_PARAMETER: {
                    "type": "Array",
                    "metadata": {
                        "displayName": "Exempted GPU pools",
                        "description": "Pools the stack's exemptions waive from the size rules, each until its "
                        "expiresOn: {cluster, pool, expiresOn (yyyy-MM-ddTHH:mm:ssZ), policies, reason, owner, "
                        "category}. Generated from the stack's exemptions (docs/exemptions.md).",
                    },
                    "defaultValue": [],
                },
            },
            "policyRule": policy_rule(),
        },
    }
