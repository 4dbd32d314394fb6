"""Every stack in stacks/, run under mocks, registers only inputs that conform to the recorded upstream contracts.

The program runs exactly as ``pulumi up`` would run it (``tests/components/harness.run_stack``); every registered
resource is checked by ``conformance.check_resources``. A failure names the resource, the field path, the rule, the
allowed values and the upstream source.
"""

from __future__ import annotations

import pytest

from conformance import check_resources, failures, load_facts
from tests.components.harness import STACKS_DIR, run_stack

STACKS = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in STACKS_DIR.glob("Pulumi.*.yaml"))

pytestmark = pytest.mark.slow


def test_there_are_stacks() -> None:
    assert {"dev", "staging", "prod"} <= set(STACKS)


@pytest.mark.parametrize("stack", STACKS)
def test_stack_conforms(stack: str) -> None:
    run = run_stack(stack)
    assert run.error is None, f"stacks/Pulumi.{stack}.yaml did not run under mocks: {run.error}"
    custom = [r for r in run.records if r.custom]
    assert custom, "no resources registered"

    findings = check_resources(run.records)

    not_covered = sorted({f.type for f in findings if f.rule == "not-covered" and f.path == ""})
    assert not_covered == [], f"resource types no facts file covers: {not_covered}"
    unchecked = sorted({f.message for f in findings if f.rule == "not-covered"})
    assert unchecked == [], f"values no facts file covers (e.g. a Helm chart's): {unchecked}"
    errors = failures(findings)
    assert errors == [], f"{len(errors)} conformance failures:\n" + "\n".join(map(str, errors))

    facts = load_facts()
    for record in custom:
        assert facts.skipped(record.type) or facts.type_for(record.type) is not None, record.type
