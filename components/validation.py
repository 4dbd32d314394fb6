"""Components refuse wrong Args before anything is registered, with the rules' own messages.

Every component takes typed Args (``GpuNodePoolArgs``, ``AksGpuClusterArgs``, ...). Args that a rule applies to check
themselves when they are built (``__post_init__``), with the functions the stack config and the policy pack call
(``rules/``, :mod:`gpu_catalog`): a component used from Python without a stack file refuses the same mistakes with
the same messages, and a component can only ever be given Args that passed. Built from a stack file
(:mod:`composition.wiring`), the Args pass: the stack config refused those mistakes first, at their key path.

A refusal is an :class:`InvalidArgsError` naming the component, the instance and, for every finding, the Args field
to change (the rules name fields as a stack file does, ``minCount``; the error shows the Args field, ``min_count``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pulumi

from rules import Finding


class InvalidArgsError(pulumi.RunError, ValueError):
    """A component's Args break a guard rail; nothing was registered. One line per finding: ``<field>: <message>``."""

    def __init__(self, component: str, name: str, findings: Sequence[Finding]) -> None:
        self.component = component
        self.instance = name
        self.findings = list(findings)
        count = len(self.findings)
        header = (
            f"{component} {name!r}: invalid arguments ({count} problem{'s' if count != 1 else ''}; nothing was "
            "registered):"
        )
        lines = [f"  {f.field}: {f.message}" if f.field else f"  {f.message}" for f in self.findings]
        super().__init__("\n".join([header, *lines]))


def refuse_findings(component: str, name: str, findings: Iterable[Finding], fields: Mapping[str, str]) -> None:
    """Raise :class:`InvalidArgsError` when there are findings, each on the Args field ``fields`` maps the rule's
    field to (a field ``fields`` does not name is shown as the rule names it)."""
    listed = [Finding(fields.get(f.field, f.field), f.message) for f in findings]
    if listed:
        raise InvalidArgsError(component, name, listed)
