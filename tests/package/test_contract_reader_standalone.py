"""The typed contract reader (``agp_contract/``) is installable on its own from a git reference: its directory is the
package (the file the platform imports), its only dependency is ``pulumi``, and it imports nothing of the platform."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

from agp_contract import NetworkContract, PlatformContract, parse_contract

PACKAGE = Path(__file__).resolve().parents[2] / "agp_contract"


def test_the_package_directory_is_the_package() -> None:
    meta = tomllib.loads((PACKAGE / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["name"] == "agp-contract"
    assert meta["project"]["dependencies"] == ["pulumi>=3.100,<4"]
    assert meta["tool"]["setuptools"] == {"packages": ["agp_contract"], "package-dir": {"agp_contract": "."}}
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py"]


def test_it_imports_only_the_standard_library_and_pulumi() -> None:
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    roots = {
        (node.module or "").split(".")[0] if isinstance(node, ast.ImportFrom) else alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert roots - set(sys.stdlib_module_names) - {"__future__"} == {"pulumi"}


def test_network_entry_round_trip_and_older_stacks() -> None:
    outputs = {
        "contractVersion": "1",
        "clusterName": "aks",
        "clusterId": "/subscriptions/x/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks",
        "resourceGroupName": "rg",
        "gpuPools": {},
    }
    older = parse_contract(outputs)
    assert isinstance(older, PlatformContract) and older.network is None
    network = NetworkContract("public", "loadBalancer", "overlay", subnets={"system": "/subscriptions/x/subnets/s"})
    assert network.to_dict() == {
        "apiServer": "public",
        "outboundType": "loadBalancer",
        "networkMode": "overlay",
        "podCidr": None,
        "serviceCidr": None,
        "privateDnsZone": None,
        "subnets": {"system": "/subscriptions/x/subnets/s"},
        "podSubnets": {},
    }
    assert parse_contract({**outputs, "network": network.to_dict()}).network == network


def test_fleet_view_round_trip_without_the_platform() -> None:
    from agp_contract import FleetContract, FleetMemberContract, FleetPoolContract, parse_fleet, parse_member

    weu = FleetMemberContract("weu", "westeurope", "canary", "1.34", {"team": "ml"},
                              [FleetPoolContract("t4", "Standard_NC8as_T4_v3", ["nvidia.com/gpu"], 4)])  # fmt: skip
    view = FleetContract.of("gpu-fleet", "westeurope", False, [weu])
    outputs = {
        "contractVersion": "1",
        "fleet": view.to_dict(),
        "members": {"weu": {"clusterName": "aks-weu", "clusterId": "/x", "resourceGroupName": "rg", "gpuPools": {}}},
    }
    assert parse_fleet(outputs) == view
    assert view.where("nvidia.com/gpu") == {"weu": ["Standard_NC8as_T4_v3"]} and view.groups == {"canary": ["weu"]}
    assert parse_member(outputs, "weu").cluster_name == "aks-weu"
