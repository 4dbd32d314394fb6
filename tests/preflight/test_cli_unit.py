"""CLI pieces that need no subprocess: progress only on a terminal, stack-file lookup, argument defaults."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from preflight.cli import REPO_ROOT, _Progress, _stack_file_for, build_parser


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal() -> None:
    tty, pipe = _Tty(), io.StringIO()
    _Progress(tty)("running the program")
    _Progress(pipe)("running the program")
    assert tty.getvalue().endswith("s] running the program\n")
    assert pipe.getvalue() == ""


def test_stack_file_follows_stack_config_dir(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\nstackConfigDir: envs\n", encoding="utf-8")
    assert _stack_file_for(tmp_path, "qa") == tmp_path / "envs" / "Pulumi.qa.yaml"
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n", encoding="utf-8")
    assert _stack_file_for(tmp_path, "qa") == tmp_path / "Pulumi.qa.yaml"
    assert _stack_file_for(REPO_ROOT, "dev") == REPO_ROOT / "stacks" / "Pulumi.dev.yaml"


def test_defaults_are_this_repo_and_its_pack() -> None:
    args = build_parser().parse_args([])
    assert (args.program, args.policy_pack, args.format, args.output) == (
        REPO_ROOT,
        REPO_ROOT / "policies",
        "text",
        None,
    )


def test_stack_and_config_file_are_exclusive() -> None:
    with pytest.raises(SystemExit) as err:
        build_parser().parse_args(["--stack", "dev", "--config-file", "x.yaml"])
    assert err.value.code == 2
