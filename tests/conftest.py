"""Shared pytest setup: the repo root is importable (gpu_catalog, policies, components, preflight)."""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

# The date-dependent rules (retirements, Kubernetes and operator lifecycles) take the day as an argument; the adapters
# (stack config, components, policy pack, preflight) pass gpu_catalog.clock.today(), which honours AGP_TODAY. Pin it
# for the whole suite (and the subprocesses it starts) so verdicts do not change with the calendar; tests that need
# another day set it themselves. Tests that call the rules directly pass TODAY, the same day. The preflight and the
# hook use the real date.
import os  # noqa: E402
from datetime import date  # noqa: E402

from gpu_catalog.clock import TODAY_ENV  # noqa: E402

TEST_TODAY = "2026-11-30"
os.environ[TODAY_ENV] = TEST_TODAY
TODAY = date.fromisoformat(TEST_TODAY)
"""The suite's day as a date: what tests pass as ``today`` to the rules and the catalog."""

# The facts' age is advisory and depends on the day too: the suite reads it as "never stale" unless a test asks
# (tests/test_staleness.py sets a maximum age itself).
from gpu_catalog.staleness import MAX_AGE_ENV  # noqa: E402

os.environ.setdefault(MAX_AGE_ENV, "36500")


# One directory per test session for the runs tests/shared_runs.py shares between modules and xdist workers: made
# by the controller before the workers start (they inherit the variable), removed when the session ends.
import shutil  # noqa: E402
import tempfile  # noqa: E402

import pytest  # noqa: E402

from tests.shared_runs import SHARED_DIR_ENV, stop_session_pack  # noqa: E402

_OWN_SHARED_DIR = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    if "PYTEST_XDIST_WORKER" in os.environ or SHARED_DIR_ENV in os.environ:
        return
    os.environ[SHARED_DIR_ENV] = tempfile.mkdtemp(prefix="agp-test-runs-")
    config.stash[_OWN_SHARED_DIR] = os.environ[SHARED_DIR_ENV]


def pytest_unconfigure(config: pytest.Config) -> None:
    stop_session_pack()  # the policy pack tests/shared_runs.session_pack started in this process, if any
    owned = config.stash.get(_OWN_SHARED_DIR, None)
    if owned is not None:
        shutil.rmtree(owned)
        os.environ.pop(SHARED_DIR_ENV, None)
