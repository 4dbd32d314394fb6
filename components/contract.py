"""The output contract, as the platform's components use it: defined once in the standalone package
:mod:`agp_contract` (installable on its own from a git reference, ``docs/output-contract.md``) and re-exported here,
plus what only the platform can build: a fleet stack's view of its fleet from the fleet's spec
(:func:`fleet_contract`) and a fleet stack's outputs (:func:`fleet_outputs`).
"""

from collections.abc import Mapping
from typing import Any

from agp_contract import *  # noqa: F403  (the contract's public names, one definition)
from agp_contract import CONTRACT_VERSION, FleetContract, FleetMemberContract, FleetPoolContract
from rules.fleet import member_labels
from rules.specs.fleet import FleetSpec

SINGLE_CLUSTER_ONLY = ("contractVersion", "kubeconfig")
"""Keys of one cluster's contract that a fleet stack exports once (the version) or apart (the kubeconfigs, secret)."""


def fleet_contract(spec: FleetSpec, fleet_id: Any = None) -> FleetContract:
    """The fleet view (``fleet``): each member's region, group, Kubernetes version, labels (the ones Fleet Manager
    matches placements on, :func:`rules.fleet.member_labels`) and GPU pools, with the indexes by group, region and
    requestable extended resource."""
    members = [
        FleetMemberContract(
            name=m.name,
            region=m.region,
            group=m.group,
            kubernetes_version=m.kubernetes_version,
            labels=member_labels(m),
            pools=[FleetPoolContract(p.name, p.vm_size, list(p.gpu_resources), p.max_nodes) for p in m.pools],
        )
        for m in spec.members
    ]
    return FleetContract.of(spec.name, spec.location, spec.hub, members, fleet_id)


def fleet_outputs(
    spec: FleetSpec, member_contracts: Mapping[str, Mapping[str, Any]], fleet_id: Any = None
) -> dict[str, Any]:
    """A fleet stack's contract outputs from the fleet's spec and each member's single-cluster contract
    (``composition.platform.contract_outputs`` of the member's platform) and the Fleet's resource id (an output):
    ``contractVersion``, ``fleet``,
    ``members`` (each member's contract without ``contractVersion`` and ``kubeconfig``) and ``memberKubeconfigs``
    (export it as a secret)."""
    return {
        "contractVersion": CONTRACT_VERSION,
        "fleet": fleet_contract(spec, fleet_id).to_dict(),
        "members": {
            name: {k: v for k, v in contract.items() if k not in SINGLE_CLUSTER_ONLY}
            for name, contract in member_contracts.items()
        },
        "memberKubeconfigs": {name: contract.get("kubeconfig") for name, contract in member_contracts.items()},
    }
