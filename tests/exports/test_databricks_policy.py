"""The generated Databricks cluster policy, evaluated on cluster specs with tests/exports/databricks_policy_eval.py:
it refuses a CPU node type, an ML runtime without GPU, a standard runtime without an image, Photon, a shared access
mode, autotermination off and a missing cost tag, accepts the GPU clusters the rules accept in each request shape's
policy (a user's classic request, a group's ``kind: CLASSIC_PREVIEW`` request, a custom container), and follows the
catalog. The exact requests the
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
from rules.databricks_shapes import SHAPE_ANY, SHAPE_CONTAINER, SHAPE_GPU_ML, SHAPE_KIND, shape_refusals
from tests.conftest import TODAY
from tests.exports.databricks_policy_eval import UnsupportedLimitation, applied, violations
from tests.policies._helpers import with_

POLICY = cluster_policy_definition()
"""The default policy: the classic request (``gpu-ml``), closed."""
KIND_POLICY = cluster_policy_definition(shape=SHAPE_KIND)
CONTAINER_POLICY = cluster_policy_definition(shape=SHAPE_CONTAINER)
ANY_POLICY = cluster_policy_definition(shape=SHAPE_ANY)
POLICIES = {SHAPE_GPU_ML: POLICY, SHAPE_KIND: KIND_POLICY, SHAPE_CONTAINER: CONTAINER_POLICY, SHAPE_ANY: ANY_POLICY}
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
IMAGE: dict[str, Any] = {
    **GOOD,
    "spark_version": "17.3.x-scala2.13",
    "docker_image": {"url": "databricksruntime/gpu-pytorch:cuda11.8"},
}
"""A custom container: a standard runtime with its image."""


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


def test_each_shape_accepts_its_requests_and_any_accepts_all() -> None:
    assert violations(KIND_POLICY, GROUP) == {}
    assert violations(KIND_POLICY, group(data_security_mode="SINGLE_USER")) == {}  # the alias the API reports back
    assert violations(KIND_POLICY, group(spark_version="18.x-scala2.13")) == {}
    assert violations(KIND_POLICY, group(num_workers=0, is_single_node=True)) == {}
    assert violations(CONTAINER_POLICY, IMAGE) == {}
    for request in (GOOD, GROUP, IMAGE):
        assert violations(ANY_POLICY, request) == {}
    assert list(violations(POLICY, GROUP)) == ["spark_version", "kind", "use_ml_runtime"]
    assert list(violations(POLICY, IMAGE)) == ["spark_version", "docker_image.url"]
    assert list(violations(KIND_POLICY, GOOD)) == ["spark_version"]
    assert list(violations(KIND_POLICY, IMAGE)) == ["docker_image.url"]
    assert list(violations(CONTAINER_POLICY, GROUP)) == ["use_ml_runtime", "docker_image.url"]


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"node_type_id": "Standard_D8ds_v5"}, "node_type_id"),
        ({"spark_version": "17.3.x-cpu-ml-scala2.13"}, "spark_version"),
        ({"spark_version": "17.3.x-photon-scala2.13"}, "spark_version"),
        ({"spark_version": "17.3.x-gpu-ml-scala2.13"}, "spark_version"),  # with kind: the DBR release key
        ({"runtime_engine": "PHOTON"}, "runtime_engine"),
        ({"data_security_mode": "DATA_SECURITY_MODE_STANDARD"}, "data_security_mode"),
        ({"data_security_mode": "DATA_SECURITY_MODE_AUTO"}, "data_security_mode"),  # may pick standard access
        ({"single_user_name": None}, "single_user_name"),
        ({"custom_tags": None}, "custom_tags.cost-center"),
        ({"use_ml_runtime": False}, "use_ml_runtime"),  # a standard runtime with kind
        ({"kind": "CLASSIC"}, "kind"),
    ],
)
def test_the_group_shape_is_refused_what_the_rules_refuse(change: dict[str, Any], path: str) -> None:
    assert list(violations(KIND_POLICY, group(**change))) == [path]


def _runtime_fields(api: dict[str, Any]) -> list[str]:
    return [f.field for f in findings(gpu_runtime(_facts(api), today=TODAY))]


def test_a_standard_runtime_is_closed_in_every_shape_policy() -> None:
    """A DBR release key with neither use_ml_runtime nor an image (a standard runtime, no CUDA): the gpu-ml policy
    refuses the key, the container policy the missing image, and the kind policy fixes kind and use_ml_runtime, so
    Databricks creates the GPU ML runtime from the same request; use_ml_runtime: false is refused. Only the policy for
    mixed shapes (any) admits it; the rules refuse it there (stack config, components, pack)."""
    standard = spec(spark_version="17.3.x-scala2.13")
    assert _runtime_fields(standard) == ["sparkVersion"]
    assert list(violations(POLICY, standard)) == ["spark_version"]
    assert list(violations(CONTAINER_POLICY, standard)) == ["docker_image.url"]
    assert violations(KIND_POLICY, standard) == {}
    created = applied(KIND_POLICY, standard)
    assert (created["kind"], created["use_ml_runtime"]) == ("CLASSIC_PREVIEW", True)
    assert _runtime_fields(created) == []  # the GPU ML runtime on GPU node types
    assert list(violations(KIND_POLICY, group(use_ml_runtime=False))) == ["use_ml_runtime"]
    assert violations(ANY_POLICY, standard) == {}
    assert violations(ANY_POLICY, group(use_ml_runtime=False)) == {}
    assert _runtime_fields(group(use_ml_runtime=False)) == ["useMlRuntime"]


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
        "pattern": r"^(?:19|18|17\.3|16\.4|15\.4|14\.3)\.x-gpu-ml-scala(2\.1[23])$",  # supported 2026-11-30
        "defaultValue": "17.3.x-gpu-ml-scala2.13",
    }
    forbidden = {"type": "forbidden", "hidden": True}
    assert [POLICY[k] for k in ("kind", "use_ml_runtime", "docker_image.url")] == [forbidden] * 3
    assert KIND_POLICY["spark_version"] == {
        "type": "regex",
        "pattern": r"^(?:19|18|17\.3|16\.4|15\.4|14\.3)\.x-scala(2\.1[23])$",
        "defaultValue": "17.3.x-scala2.13",
    }
    assert KIND_POLICY["kind"] == {"type": "fixed", "value": "CLASSIC_PREVIEW", "hidden": True}
    assert KIND_POLICY["use_ml_runtime"] == {"type": "fixed", "value": True, "hidden": True}
    assert CONTAINER_POLICY["docker_image.url"] == {"type": "unlimited", "isOptional": False}
    assert CONTAINER_POLICY["use_ml_runtime"] == forbidden and "kind" not in CONTAINER_POLICY
    assert ANY_POLICY["spark_version"]["pattern"].endswith(r"\.x-(?:gpu-ml-)?scala(2\.1[23])$")
    assert not {"kind", "use_ml_runtime", "docker_image.url"} & set(ANY_POLICY)
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
    "kind": "kind",
    "useMlRuntime": "use_ml_runtime",
    "customImage": "docker_image.url",
}


def _facts(api: dict[str, Any]) -> DatabricksCluster:
    return DatabricksCluster(
        node_type=api.get("node_type_id"),
        driver_node_type=api.get("driver_node_type_id"),
        spark_version=api.get("spark_version"),
        use_ml_runtime=bool(api.get("use_ml_runtime")),
        kind=api.get("kind"),
        custom_image=(api.get("docker_image") or {}).get("url"),
        runtime_engine=api.get("runtime_engine"),
        data_security_mode=api.get("data_security_mode"),
        single_user_name=api.get("single_user_name"),
    )


_REQUESTS = [
    GOOD,
    GROUP,
    IMAGE,
    spec(spark_version="17.3.x-scala2.13"),  # a standard runtime without an image
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
    group(use_ml_runtime=True, docker_image={"url": "x/y:1"}),
]


@pytest.mark.parametrize("shape", [SHAPE_GPU_ML, SHAPE_KIND, SHAPE_CONTAINER, SHAPE_ANY])
@pytest.mark.parametrize("request_spec", _REQUESTS)
def test_shape_refusals_name_what_the_policy_refuses(request_spec: dict[str, Any], shape: str) -> None:
    """The components' early check (rules.databricks_shapes.shape_refusals) and the policy of each shape agree,
    attribute by attribute, on everything but cost tags and autotermination (checked elsewhere); a fixed value the
    request leaves out is no refusal (Databricks sets it)."""
    refused = {
        _FIELDS[f.field] for f in shape_refusals(_facts(request_spec), allowed_node_types(), today=TODAY, shape=shape)
    }
    fixed_and_absent = {p for p, r in POLICIES[shape].items() if r["type"] == "fixed" and p not in request_spec}
    by_policy = set(violations(POLICIES[shape], request_spec)) - {"custom_tags.cost-center", "autotermination_minutes"}
    assert refused - fixed_and_absent == by_policy


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
    assert violations(after, GOOD) == {}
    assert violations(cluster_policy_definition(today=date(2027, 8, 19), shape=SHAPE_KIND), GROUP) == {}
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
