"""The generated Databricks cluster policy, evaluated on cluster specs with tests/exports/databricks_policy_eval.py:
it refuses a CPU node type, an ML runtime without GPU, Photon, a shared access mode, autotermination off and a missing
cost tag, accepts the GPU clusters the rules accept in both request shapes (a user's classic request, a group's
``kind: CLASSIC_PREVIEW`` request) and with a custom container, and follows the catalog. The exact requests the
components send are evaluated in tests/components/test_databricks.py."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from exports.databricks_policy import allowed_node_types, cluster_policy_definition
from gpu_catalog.catalog import CATALOG_PATH, Catalog, default_catalog, load_catalog
from rules import findings
from rules.databricks import DatabricksCluster, gpu_node_types, gpu_runtime
from rules.databricks_policy import policy_refusals
from tests.conftest import TODAY
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
GROUP: dict[str, Any] = {
    **GOOD,
    "kind": "CLASSIC_PREVIEW",
    "spark_version": "17.3.x-scala2.13",
    "use_ml_runtime": True,
    "data_security_mode": "DATA_SECURITY_MODE_DEDICATED",
    "single_user_name": "ml-platform",
}
"""A group-dedicated cluster: the ``kind`` request with the DBR release key and ``use_ml_runtime``."""


def spec(**changes: Any) -> dict[str, Any]:
    """The compliant cluster spec with one mutation (``None`` removes a key)."""
    return with_(GOOD, **changes)


def group(**changes: Any) -> dict[str, Any]:
    return with_(GROUP, **changes)


def test_a_gpu_cluster_the_rules_accept_is_accepted() -> None:
    assert violations(POLICY, GOOD) == {}
    assert violations(POLICY, spec(spark_version="18.x-gpu-ml-scala2.13")) == {}
    assert violations(POLICY, spec(driver_node_type_id="Standard_NV36ads_A10_v5")) == {}
    assert violations(POLICY, spec(spark_version="15.4.x-gpu-ml-scala2.12")) == {}


def test_both_request_shapes_and_a_custom_container_are_accepted() -> None:
    assert violations(POLICY, GROUP) == {}
    assert violations(POLICY, group(data_security_mode="SINGLE_USER")) == {}  # the alias the API reports back
    assert violations(POLICY, group(spark_version="18.x-scala2.13")) == {}
    single = group(num_workers=0, is_single_node=True)
    assert violations(POLICY, single) == {}
    image = spec(spark_version="17.3.x-scala2.13", docker_image={"url": "databricksruntime/gpu-pytorch:cuda11.8"})
    assert violations(POLICY, image) == {}


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"node_type_id": "Standard_D8ds_v5"}, "node_type_id"),
        ({"spark_version": "17.3.x-cpu-ml-scala2.13"}, "spark_version"),
        ({"spark_version": "17.3.x-photon-scala2.13"}, "spark_version"),
        ({"runtime_engine": "PHOTON"}, "runtime_engine"),
        ({"data_security_mode": "DATA_SECURITY_MODE_STANDARD"}, "data_security_mode"),
        ({"data_security_mode": "DATA_SECURITY_MODE_AUTO"}, "data_security_mode"),  # may pick standard access
        ({"single_user_name": None}, "single_user_name"),
        ({"custom_tags": None}, "custom_tags.cost-center"),
    ],
)
def test_the_group_shape_is_refused_what_the_rules_refuse(change: dict[str, Any], path: str) -> None:
    assert list(violations(POLICY, group(**change))) == [path]


def test_what_one_limitation_per_attribute_cannot_refuse() -> None:
    """A DBR release key is on the pattern (the group request and custom containers need it), and a policy cannot
    tie it to use_ml_runtime or docker_image: a release key with neither (a standard runtime) passes the policy. The
    rules refuse it, so the stack config, the components and the pack do (docs/guardrail-layers.md)."""
    standard = spec(spark_version="17.3.x-scala2.13")
    assert violations(POLICY, standard) == {}
    assert violations(POLICY, group(use_ml_runtime=False)) == {}
    facts = DatabricksCluster(node_type="Standard_NC24ads_A100_v4", spark_version="17.3.x-scala2.13")
    assert [f.field for f in findings(gpu_runtime(facts, today=TODAY))] == ["sparkVersion"]
    kind = DatabricksCluster(
        node_type="Standard_NC24ads_A100_v4", spark_version="17.3.x-scala2.13", kind="CLASSIC_PREVIEW"
    )
    assert [f.field for f in findings(gpu_runtime(kind, today=TODAY))] == ["useMlRuntime"]


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"node_type_id": "Standard_D8ds_v5"}, "node_type_id"),  # a CPU node type
        ({"driver_node_type_id": "Standard_E8ds_v5"}, "driver_node_type_id"),  # a CPU driver
        ({"node_type_id": "Standard_NC6s_v3"}, "node_type_id"),  # NC v3: Azure Databricks no longer launches it
        ({"spark_version": "17.3.x-cpu-ml-scala2.13"}, "spark_version"),  # ML runtime, not the GPU flavour
        ({"spark_version": "17.3.x-ml-scala2.13"}, "spark_version"),
        ({"spark_version": "17.3.x-gpu-ml-scala2.13-custom"}, "spark_version"),  # not a runtime key
        ({"spark_version": "17.3.x-photon-scala2.13"}, "spark_version"),  # a Photon runtime
        ({"runtime_engine": "PHOTON"}, "runtime_engine"),  # Photon
        ({"data_security_mode": "USER_ISOLATION"}, "data_security_mode"),  # shared access
        ({"data_security_mode": "DATA_SECURITY_MODE_STANDARD"}, "data_security_mode"),
        ({"data_security_mode": "NONE"}, "data_security_mode"),
        ({"data_security_mode": "LEGACY_SINGLE_USER"}, "data_security_mode"),
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
    assert POLICY["data_security_mode"] == {
        "type": "allowlist",
        "values": ["SINGLE_USER", "DATA_SECURITY_MODE_DEDICATED"],
        "defaultValue": "SINGLE_USER",
    }
    assert POLICY["spark_version"] == {
        "type": "regex",
        "pattern": r"^(?:19|18|17\.3|16\.4|15\.4|14\.3)\.x-(?:gpu-ml-)?scala(2\.1[23])$",  # supported 2026-11-30
        "defaultValue": "17.3.x-gpu-ml-scala2.13",
    }
    assert "kind" not in POLICY and "use_ml_runtime" not in POLICY
    assert POLICY["autotermination_minutes"] == {
        "type": "range",
        "minValue": 10,
        "maxValue": 10000,
        "defaultValue": 60,
    }
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
        if not findings(
            gpu_node_types(DatabricksCluster(node_type=s.name, declared_gpu=True), size_rules=True, today=TODAY)
        )
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


_FIELDS = {
    "nodeTypeId": "node_type_id",
    "driverNodeTypeId": "driver_node_type_id",
    "sparkVersion": "spark_version",
    "dataSecurityMode": "data_security_mode",
    "runtimeEngine": "runtime_engine",
    "singleUserName": "single_user_name",
}


def _facts(api: dict[str, Any]) -> DatabricksCluster:
    return DatabricksCluster(
        node_type=api.get("node_type_id"),
        driver_node_type=api.get("driver_node_type_id"),
        spark_version=api.get("spark_version"),
        use_ml_runtime=bool(api.get("use_ml_runtime")),
        kind=api.get("kind"),
        runtime_engine=api.get("runtime_engine"),
        data_security_mode=api.get("data_security_mode"),
        single_user_name=api.get("single_user_name"),
    )


@pytest.mark.parametrize(
    "request_spec",
    [
        GOOD,
        GROUP,
        spec(node_type_id="Standard_D8ds_v5"),
        spec(driver_node_type_id="Standard_E8ds_v5"),
        spec(spark_version="17.3.x-cpu-ml-scala2.13"),
        spec(spark_version="17.3.x-photon-scala2.13"),
        spec(spark_version="13.3.x-gpu-ml-scala2.12"),  # ended 2026-08-22
        spec(spark_version="18.1.x-gpu-ml-scala2.13"),  # a release the facts do not list
        spec(runtime_engine="PHOTON"),
        spec(data_security_mode="USER_ISOLATION"),
        group(data_security_mode="DATA_SECURITY_MODE_AUTO"),
        group(single_user_name=None),
    ],
)
def test_policy_refusals_name_what_the_policy_refuses(request_spec: dict[str, Any]) -> None:
    """The components' early check (rules.databricks.policy_refusals) and the policy agree, attribute by attribute,
    on everything but cost tags and autotermination (checked elsewhere)."""
    refused = {_FIELDS[f.field] for f in policy_refusals(_facts(request_spec), allowed_node_types(), today=TODAY)}
    by_policy = set(violations(POLICY, request_spec)) - {"custom_tags.cost-center", "autotermination_minutes"}
    assert refused == by_policy


def test_the_runtime_pattern_follows_the_end_of_support_dates() -> None:
    """The policy's spark_version admits the releases gpu_catalog/facts/databricks.json lists as supported on the
    export's ``today``: 15.4 leaves on 2027-08-19, 17.3 on 2028-10-22 (the default then moves to 18 LTS), and the
    components' early check (policy_refusals) agrees on each day."""
    lts_15 = spec(spark_version="15.4.x-gpu-ml-scala2.12")
    before, after = (
        cluster_policy_definition(today=date(2027, 8, 18)),
        cluster_policy_definition(today=date(2027, 8, 19)),
    )
    assert violations(before, lts_15) == {}
    assert list(violations(after, lts_15)) == ["spark_version"]
    assert violations(after, GOOD) == {} and violations(after, GROUP) == {}
    for day, refused in ((date(2027, 8, 18), []), (date(2027, 8, 19), ["sparkVersion"])):
        assert [f.field for f in policy_refusals(_facts(lts_15), allowed_node_types(), today=day)] == refused
    message = policy_refusals(_facts(lts_15), allowed_node_types(), today=date(2027, 8, 19))[0].message
    assert "supported on 2027-08-19 (19, 18, 17.3, 16.4; gpu_catalog/facts/databricks.json)" in message
    late = cluster_policy_definition(today=date(2028, 10, 22))
    assert late["spark_version"]["defaultValue"] == "18.x-gpu-ml-scala2.13"
    assert list(violations(late, GOOD)) == ["spark_version"]
    assert violations(late, spec(spark_version=None)) == {}  # the default fills it, and passes


def test_no_supported_runtime_no_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    from rules import databricks_facts

    monkeypatch.setattr(databricks_facts, "supported_rows", lambda: ())
    with pytest.raises(ValueError, match="no Databricks Runtime release is supported on 2026-11-30"):
        cluster_policy_definition()
