"""Compatibility names for modules that still import from ``preflight.mocks``; new code imports from their homes.

- ``Pulumi.yaml``: :mod:`preflight.project`; stack files and :class:`~preflight.stackfile.StackSettings`:
  :mod:`preflight.stackfile`;
- wire-format sentinels and value conversions: :mod:`preflight.wire`;
- the mocks' answers: :mod:`preflight.mock_answers`; the recording monitor: :mod:`preflight.monitor`;
- running a program (in a child process, ``python -m preflight.runner``): :mod:`preflight.runner`.

``python -m preflight.mocks`` still runs the child process of :mod:`preflight.runner`.
"""

from __future__ import annotations

import sys

from preflight.project import PreflightInputError
from preflight.stackfile import load_stack_settings
from preflight.wire import SECRET_SIG, SIG_KEY, UNKNOWN, unwrap_secrets

__all__ = ["SECRET_SIG", "SIG_KEY", "UNKNOWN", "PreflightInputError", "load_stack_settings", "unwrap_secrets"]

if __name__ == "__main__":
    from preflight.runner import child_main

    sys.exit(child_main(sys.argv[1:]))
