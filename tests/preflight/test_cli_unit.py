"""CLI pieces that need no subprocess: progress only on a terminal, stack-file lookup, argument defaults."""

from __future__ import annotations

import io

import pytest

from preflight.cli import REPO_ROOT, _Progress, build_parser


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal() -> None:
    tty, pipe = _Tty(), io.StringIO()
    _Progress(tty)("running the program")
    _Progress(pipe)("running the program")
    assert tty.getvalue().endswith("s] running the program\n")
    assert pipe.getvalue() == ""


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
