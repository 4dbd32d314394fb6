"""The generated Databricks cluster policy, evaluated on cluster specs with tests/exports/databricks_policy_eval.py:
it refuses a CPU node type, an ML runtime without GPU, Photon, a shared access mode, autotermination off and a missing
cost tag, accepts the GPU clusters the rules accept, and follows the catalog."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from exports.databricks_policy import (
    allowed_node_types,
    cluster_policy_definition,
    governs,
)
from gpu_catalog.catalog import CATALOG_PATH, Catalog, default_catalog, load_catalog
from rules import findings
from rules.databricks import DatabricksCluster, gpu_node_types
from tests.exports.databricks_policy_eval import UnsupportedLimitation, violations
from tests.policies._helpers import with_

POLICY = cluster_policy_definition()
GOOD: dict[str, Any] = {
    "cluster_name": "train",
    "spark_version": "17.3.x-gpu-ml-scala2.13",
    "node_type_id": "Standard_NC24ads_A100_v4",
    "num_workers": 2,
    "runtime_engine": "STANDARD",
    "data_security_mode": "SINGLE_USER",
    "single_user_name": "ml-platform@contoso.com",
    "autotermination_minutes": 60,
    "custom_tags": {"cost-center": "ml-research"},
}


def spec(**changes: Any) -> dict[str, Any]:
    """The compliant cluster spec with one mutation (``None`` removes a key)."""
    return with_(GOOD, **changes)


def test_a_gpu_cluster_the_rules_accept_is_accepted() -> None:
    assert violations(POLICY, GOOD) == {}
    assert violations(POLICY, spec(spark_version="18.x-gpu-ml-scala2.13")) == {}
    assert violations(POLICY, spec(driver_node_type_id="Standard_NV36ads_A10_v5")) == {}


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"node_type_id": "Standard_D8ds_v5"}, "node_type_id"),  # a CPU node type
        ({"driver_node_type_id": "Standard_E8ds_v5"}, "driver_node_type_id"),  # a CPU driver
        ({"node_type_id": "Standard_NC6s_v3"}, "node_type_id"),  # NC v3: Azure Databricks no longer launches it
        ({"spark_version": "17.3.x-cpu-ml-scala2.13"}, "spark_version"),  # ML runtime, not the GPU flavour
        ({"spark_version": "17.3.x-ml-scala2.13"}, "spark_version"),
        ({"spark_version": "17.3.x-scala2.13"}, "spark_version"),  # standard runtime: no CUDA
        ({"spark_version": "17.3.x-photon-scala2.13"}, "spark_version"),  # a Photon runtime
        ({"runtime_engine": "PHOTON"}, "runtime_engine"),  # Photon
        ({"data_security_mode": "USER_ISOLATION"}, "data_security_mode"),  # shared access
        ({"data_security_mode": "DATA_SECURITY_MODE_STANDARD"}, "data_security_mode"),
        ({"data_security_mode": "NONE"}, "data_security_mode"),
        ({"single_user_name": None}, "single_user_name"),  # dedicated access without its principal
        ({"autotermination_minutes": 0}, "autotermination_minutes"),  # autotermination off
        ({"autotermination_minutes": 5}, "autotermination_minutes"),
        ({"autotermination_minutes": 10001}, "autotermination_minutes"),
        ({"custom_tags": {"team": "ml"}}, "custom_tags.cost-center"),  # the cost tag missing
        ({"custom_tags": None}, "custom_tags.cost-center"),
    ],
)
def test_one_mutation_one_refusal(change: dict[str, Any], path: str) -> None:
    assert list(violations(POLICY, spec(**change))) == [path]


def test_defaults_fill_what_the_form_leaves_out() -> None:
    assert violations(POLICY, spec(autotermination_minutes=None, runtime_engine=None, data_security_mode=None)) == {}


def test_the_definition_uses_only_documented_limitations() -> None:
    assert POLICY["runtime_engine"] == {"type": "fixed", "value": "STANDARD", "hidden": True}
    assert POLICY["data_security_mode"] == {"type": "fixed", "value": "SINGLE_USER"}
    assert POLICY["autotermination_minutes"] == {
        "type": "range",
        "minValue": 10,
        "maxValue": 10000,
        "defaultValue": 60,
    }
    assert POLICY["spark_version"]["type"] == "regex"
    assert POLICY["custom_tags.cost-center"] == {"type": "unlimited", "isOptional": False}
    assert POLICY["driver_node_type_id"]["isOptional"] is True
    with pytest.raises(UnsupportedLimitation):
        violations({"node_type_id": {"type": "blocklist", "values": ["x"]}}, GOOD)


def test_the_allowlist_is_what_the_databricks_rules_accept() -> None:
    """Every catalog size: on the list exactly when the node-type rule with the size rules accepts it as a worker."""
    cat = default_catalog()
    accepted = sorted(
        s.name
        for s in cat.sizes()
        if not findings(gpu_node_types(DatabricksCluster(node_type=s.name, declared_gpu=True), size_rules=True))
    )
    assert allowed_node_types() == accepted
    assert POLICY["node_type_id"] == {"type": "allowlist", "values": accepted}
    assert "Standard_NC24ads_A100_v4" in accepted and "Standard_NC4as_T4_v3" in accepted  # T4: no source refuses it
    assert "Standard_ND96isr_MI300X_v5" not in accepted


def _gb300_retired() -> Catalog:
    """The catalog with the GB300 sizes (the only ones at or above a GB300 floor) retired."""
    import tempfile

    doc = json.loads(CATALOG_PATH.read_text())
    for row in doc["sizes"]:
        if "GB300" in row["name"]:
            row["lifecycle"].update(status="retired", retirementDate="2026-01-01", migrateTo=[])
    path = Path(tempfile.mkdtemp()) / "catalog.json"
    path.write_text(json.dumps(doc))
    return load_catalog(path)


def test_cost_tags_and_floor_are_parameters() -> None:
    policy = cluster_policy_definition(cost_tags=["cost-center", "owner"], floor="Standard_NC40ads_H100_v5")
    assert list(violations(policy, GOOD)) == ["node_type_id", "custom_tags.owner"]
    with pytest.raises(ValueError, match="not a catalog size"):
        cluster_policy_definition(floor="Standard_X")
    with pytest.raises(ValueError, match="cost tags"):
        cluster_policy_definition(cost_tags=[" "])
    with pytest.raises(ValueError, match="no GPU node type Azure Databricks offers"):
        cluster_policy_definition(floor="Standard_ND128isr_GB300_v6", today=date(2099, 1, 1), catalog=_gb300_retired())


def test_a_catalog_change_adding_a_retired_size_changes_the_policy(tmp_path: Path) -> None:
    doc = json.loads(CATALOG_PATH.read_text(encoding="utf-8"))
    row = next(r for r in doc["sizes"] if r["name"] == "Standard_NC24ads_A100_v4")
    row["lifecycle"] = {"status": "retired", "retirementDate": "2026-10-31", "migrateTo": ["Standard_NC48ads_A100_v4"]}
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    changed = cluster_policy_definition(catalog=load_catalog(path), today=date(2026, 11, 30))
    assert "Standard_NC24ads_A100_v4" not in changed["node_type_id"]["values"]
    assert list(violations(changed, GOOD)) == ["node_type_id"]
    assert changed != POLICY


def test_governs_the_classic_single_user_shape_only() -> None:
    classic = DatabricksCluster(
        node_type="Standard_NC24ads_A100_v4",
        declared_gpu=True,
        spark_version="17.3.x-gpu-ml-scala2.13",
        data_security_mode="SINGLE_USER",
    )
    assert governs(classic)
    group = DatabricksCluster(
        node_type="Standard_NC24ads_A100_v4",
        spark_version="17.3.x-scala2.13",
        kind="CLASSIC_PREVIEW",
        use_ml_runtime=True,
        data_security_mode="DATA_SECURITY_MODE_DEDICATED",
    )
    assert not governs(group)
    image = DatabricksCluster(
        node_type="Standard_NC24ads_A100_v4",
        spark_version="17.3.x-scala2.13",
        custom_image="ghcr.io/contoso/gpu:1",
        data_security_mode="SINGLE_USER",
    )
    assert not governs(image)
