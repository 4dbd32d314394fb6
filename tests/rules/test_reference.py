"""Issue 27, item 4: the generated GPU reference (KAITO presets, MIG slices) is up to date and says what the rules do;
an NVIDIA MIG name in migProfile is refused with the AKS profile that gives it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_catalog import default_catalog
from rules.node_stack import nvidia_mig_hint
from rules.reference import kaito_rows, mig_rows, render
from tests.components.test_deployable import config, problems
from tests.conftest import TODAY

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "gpu-reference.md"
A100 = "Standard_NC24ads_A100_v4"


def test_the_committed_reference_is_generated_from_the_facts() -> None:
    assert REFERENCE.read_text(encoding="utf-8") == render(today=TODAY), "run `make reference`"


def test_each_kaito_preset_row_names_the_smallest_size_it_fits() -> None:
    rows = {r[0]: r for r in kaito_rows(today=TODAY)}
    assert len(rows) == 22
    assert rows["`phi-4-mini-instruct`"] == [
        "`phi-4-mini-instruct`",
        "1",
        "8 GiB",
        "—",
        "1 × `Standard_NC4as_T4_v3`",
        "no",
    ]
    assert rows["`llama-3.3-70b-instruct`"][4] == "1 × `Standard_NC96ads_A100_v4`"
    assert rows["`falcon-40b`"][4] == "1 × `Standard_NC48ads_A100_v4`"


def test_each_mig_size_lists_the_slices_of_every_profile() -> None:
    rows = {r[0]: r for r in mig_rows()}
    assert rows[f"`{A100}`"][3:] == [
        "7 × `1g.10gb` (7/node)",
        "3 × `2g.20gb` (3/node)",
        "2 × `3g.40gb` (2/node)",
        "1 × `4g.40gb` (1/node)",
        "1 × `7g.80gb` (1/node)",
    ]
    assert rows["`Standard_ND96asr_v4`"][3] == "7 × `1g.5gb` (56/node)"


def test_an_nvidia_mig_name_is_refused_with_the_aks_profile_that_gives_it() -> None:
    found = problems(config(gpuPools=[{"name": "mig", "vmSize": A100, "count": 1, "migProfile": "1g.10gb"}]))
    assert found["gpuPools[0].migProfile"] == (
        "'1g.10gb' is NVIDIA's name of a MIG instance; AKS's gpuInstanceProfile names the profile: write MIG1g (on "
        "Standard_NC24ads_A100_v4 MIG1g gives 7 × 1g.10gb per GPU, 7 per node). Allowed: MIG1g, MIG2g, MIG3g, MIG4g, "
        "MIG7g."
    )
    assert nvidia_mig_hint("1g.5gb", default_catalog()[A100]) == (
        "'1g.5gb' is NVIDIA's name of a MIG instance; AKS's gpuInstanceProfile names the profile, and on "
        "Standard_NC24ads_A100_v4 MIG1g gives 7 × 1g.10gb per GPU, 7 per node, not 1g.5gb: write MIG1g for 1g.10gb."
    )
    assert nvidia_mig_hint("MIG3g", None) is None


def test_the_command_prints_help_and_refuses_a_bad_day(capsys: pytest.CaptureFixture[str]) -> None:
    from rules.reference import main

    with pytest.raises(SystemExit) as exc:
        main(["--help"], today=TODAY)
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python -m rules.reference [-h] [day]")
    with pytest.raises(SystemExit) as exc:
        main(["tomorrow"], today=TODAY)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "day='tomorrow' is not a date: use YYYY-MM-DD" in err and "Traceback" not in err
    assert main([], today=TODAY) == 0
    assert capsys.readouterr().out == REFERENCE.read_text(encoding="utf-8")
