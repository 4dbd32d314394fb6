"""One policy-pack process per test session (per xdist worker) for the modules that drive the real pack over gRPC
in a preview: starting the pack costs seconds, and the pack reads nothing from the project or stack it is started
for (``PULUMI_PROJECT``/``PULUMI_STACK``), only the ``Configure`` call each module and test sends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from preflight.analyzer.client import PolicyPackProcess

PACK_DIR = Path(__file__).resolve().parents[2] / "policies"


@pytest.fixture(scope="session")
def preview_pack() -> Iterator[PolicyPackProcess]:
    """The repository's pack, started once as the engine starts it for a preview (``PULUMI_DRY_RUN=true``). A module
    takes it through its own ``pack`` fixture, which configures it with the defaults first, so no module sees the
    policy config another one left behind."""
    if not (PACK_DIR / "__main__.py").is_file():
        pytest.fail(f"{PACK_DIR}/__main__.py is missing: the policy pack is not in the tree")
    with PolicyPackProcess(PACK_DIR, project="azure-gpu-platform", stack="dev", dry_run=True) as p:
        yield p
