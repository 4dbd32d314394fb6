"""Shared pytest setup: the repo root is importable (gpu_catalog, policies, components, preflight)."""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

# Every date-dependent check (retirements, Kubernetes and operator lifecycles) reads gpu_catalog.clock.today(),
# which honours AGP_TODAY. Pin it for the whole suite (and the subprocesses it starts) so verdicts do not change
# with the calendar; tests that need another day set it themselves. The preflight and the hook use the real date.
import os  # noqa: E402

from gpu_catalog.clock import TODAY_ENV  # noqa: E402

TEST_TODAY = "2026-11-30"
os.environ[TODAY_ENV] = TEST_TODAY

# The facts' age is advisory and depends on the day too: the suite reads it as "never stale" unless a test asks
# (tests/test_staleness.py sets a maximum age itself).
from gpu_catalog.staleness import MAX_AGE_ENV  # noqa: E402

os.environ.setdefault(MAX_AGE_ENV, "36500")
