"""One policy-pack process per test session (per xdist worker) for the modules that drive the real pack over gRPC
in a preview: starting the pack costs seconds, and the pack reads nothing from the project or stack it is started
for (``PULUMI_PROJECT``/``PULUMI_STACK``), only the ``Configure`` call each module and test sends. It is the pack
``tests/shared_runs.session_pack`` shares with the other tests that only need a running pack."""

from __future__ import annotations

import pytest

from preflight.analyzer.client import PolicyPackProcess
from tests.shared_runs import session_pack


@pytest.fixture(scope="session")
def preview_pack() -> PolicyPackProcess:
    """The repository's pack, started once as the engine starts it for a preview (``PULUMI_DRY_RUN=true``). A module
    takes it through its own ``pack`` fixture, which configures it with the defaults first, so no module sees the
    policy config another one left behind."""
    return session_pack()
