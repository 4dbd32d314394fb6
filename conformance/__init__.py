"""Conformance of the program's resource inputs with the upstream contracts it writes to (no Pulumi program runs).

``conformance/facts/*.json`` record, per upstream contract, the field names, enums, patterns, required fields and
cross-field rules this project may use, each traced to the upstream repository, path and tag or commit it was read
from. :func:`check_resource` checks one resource's inputs (as the engine sees them: camelCase wire names, numbers as
floats) against them; :func:`check_resources` checks many. See ``conformance/README.md``.

Modules by job: ``contracts`` (the facts files as objects), ``schema_walk`` (inputs against a schema),
``cross_rules`` (the declared cross-field rules), ``checker`` (the entry points and the facts' self-check).
"""

from .checker import check_resource, check_resources, failures, missing_value_paths, validate_facts
from .contracts import Facts, load_facts
from .schema_walk import Finding

__all__ = [
    "Facts",
    "Finding",
    "check_resource",
    "check_resources",
    "failures",
    "load_facts",
    "missing_value_paths",
    "validate_facts",
]
