"""One policy-pack process per test session (per xdist worker) for the modules that drive the real pack over gRPC
in a preview: starting the pack costs seconds, and the pack reads nothing from the project or stack it is started
for (``PULUMI_PROJECT``/``PULUMI_STACK``), only the ``Configure`` call each module and test sends. It is the pack
``tests/shared_runs.session_pack`` shares with the other tests that only need a running pack."""

from __future__ import annotations

import pytest
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer

from policies.pack import ALL_POLICIES, PACK_NAME
from preflight.analyzer.client import PolicyPackProcess
from tests.shared_runs import session_pack


@pytest.fixture(scope="session")
def preview_pack() -> PolicyPackProcess:
    """The repository's pack, started once as the engine starts it for a preview (``PULUMI_DRY_RUN=true``). A module
    takes it through its own ``pack`` fixture, which configures it with the defaults first, so no module sees the
    policy config another one left behind."""
    return session_pack()


@pytest.fixture
def servicer(monkeypatch: pytest.MonkeyPatch) -> _PolicyAnalyzerServicer:
    """The pack's analyzer service in this process (no gRPC, no pack process): call ``Analyze`` / ``AnalyzeStack`` on
    it directly, with the environment the engine gives a pack."""
    for key, value in {
        "PULUMI_PROJECT": "azure-gpu-platform",
        "PULUMI_STACK": "bench",
        "PULUMI_DRY_RUN": "true",
        "PULUMI_ORGANIZATION": "organization",
        "PULUMI_CONFIG": "{}",
    }.items():
        monkeypatch.setenv(key, value)
    return _PolicyAnalyzerServicer(PACK_NAME, "0.0.0", list(ALL_POLICIES), EnforcementLevel.ADVISORY)
