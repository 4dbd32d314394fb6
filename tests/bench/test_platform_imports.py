"""bench/bench_platform_imports.py's instruction figures: the ratio and how it splits into pydantic and the rest."""

from __future__ import annotations

import pytest

from bench import _common
from bench import bench_platform_imports as bpi


def test_instruction_counts_split_the_ratio_into_pydantic_and_the_rest(monkeypatch: pytest.MonkeyPatch):
    anchor = bpi.importing(["pulumi"])
    pydantic = bpi.importing(["pydantic", "pydantic.main"])
    counts = {bpi.OURS: 1_850, anchor: 1_000, f"{anchor}\n{pydantic}": 1_300}
    seen: list[str] = []

    def fake(valgrind: str, code: str) -> int:
        assert valgrind == "/usr/bin/valgrind"
        seen.append(code)
        return counts[code]

    monkeypatch.setattr(bpi, "instructions", fake)
    got = bpi.instruction_counts("/usr/bin/valgrind", anchor, pydantic)
    assert seen == [bpi.OURS, anchor, f"{anchor}\n{pydantic}"]
    assert got["counts"] == {"ours": 1_850, "sdk": 1_000, "sdk_then_pydantic": 1_300}
    assert got["ratio"] == pytest.approx(1.85)
    assert got["pydantic_share"] == pytest.approx(0.30)
    assert got["rest_share"] == pytest.approx(0.55)


def test_importing_imports_exactly_the_modules_in_order():
    namespace: dict[str, object] = {}
    exec(bpi.importing(["json", "json.decoder"]), namespace)
    assert bpi.importing(["json", "json.decoder"]) == (
        "import importlib\nfor m in ['json', 'json.decoder']:\n    importlib.import_module(m)"
    )
    assert namespace["m"] == "json.decoder"


def test_a_valgrind_output_without_a_count_is_an_error(monkeypatch: pytest.MonkeyPatch):
    class Done:
        stderr = "==1== valgrind: failed to start tool"

    calls: list[tuple[list[str], dict[str, str] | None]] = []

    def fake_run(cmd: list[str], **kwargs: object) -> Done:
        env = kwargs.get("env")
        calls.append((cmd, env if isinstance(env, dict) else None))
        return Done()

    monkeypatch.setattr(_common.subprocess, "run", fake_run)
    with pytest.raises(RuntimeError, match="no 'I refs' in valgrind's output"):
        bpi.instructions("/usr/bin/valgrind", "pass")
    [(cmd, env)] = calls
    assert cmd == [
        "/usr/bin/valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
        bpi.PY, "-c", "pass",
    ]  # fmt: skip
    assert env is not None and env["PYTHONPYCACHEPREFIX"].endswith("pycache")


def test_i_refs_reads_the_count_and_names_what_had_none():
    assert _common.i_refs("==7== \n==7== I   refs:      1,829,052,171\n") == 1_829_052_171
    with pytest.raises(RuntimeError, match="no 'I refs' in valgrind's output for floor-stack:"):
        _common.i_refs("==7== error", "floor-stack")
