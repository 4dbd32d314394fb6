"""``python -m exports``: the JSON it writes is the generated policy; bad input exits 2 with a message."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from exports.__main__ import main
from exports.azure_policy import policy_definition
from exports.databricks_policy import cluster_policy_definition


def test_azure_policy_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "aks.json"
    assert main(["azure-policy", "--effect", "Deny", "--floor", "Standard_NC24ads_A100_v4", "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == policy_definition(effect="Deny", floor="Standard_NC24ads_A100_v4")
    assert capsys.readouterr().err == f"wrote {out}\n"


def test_databricks_policy_to_stdout_for_another_day(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["databricks-policy", "--cost-tag", "cost-center", "--cost-tag", "owner", "--today", "2027-01-01"]) == 0
    expected = cluster_policy_definition(cost_tags=["cost-center", "owner"], today=date(2027, 1, 1))
    assert json.loads(capsys.readouterr().out) == expected


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["azure-policy", "--floor", "Standard_NC1"], "python -m exports azure-policy: minimumSize 'Standard_NC1' is"),
        (["databricks-policy", "--today", "tomorrow"], "exports databricks-policy: --today='tomorrow' is not"),
        (["databricks-policy", "--cost-tag", " "], "cost tags must be non-empty tag names"),
    ],
)
def test_bad_input_exits_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_unknown_effect_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["azure-policy", "--effect", "deny"])
    assert exc.value.code == 2
    assert "invalid choice: 'deny'" in capsys.readouterr().err


def test_databricks_policy_for_the_kind_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["databricks-policy", "--shape", "kind", "--today", "2026-12-03"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == cluster_policy_definition(today=date(2026, 12, 3), shape="kind")
    assert doc["use_ml_runtime"] == {"type": "fixed", "value": True, "hidden": True}
    with pytest.raises(SystemExit):
        main(["databricks-policy", "--shape", "standard"])
    assert "invalid choice: 'standard'" in capsys.readouterr().err
