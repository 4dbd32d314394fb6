"""``python -m exports azure-policy|databricks-policy [--floor SIZE] [--effect Deny|Audit|Disabled] [--out FILE]``.

Writes the generated policy as JSON (stdout, or ``--out``) for teams that manage Azure Policy or Databricks policies
elsewhere (Terraform, Bicep, EPAC, the Databricks CLI). ``--today YYYY-MM-DD`` generates for another day (retirements
are dated). Exit 2 with a message on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from gpu_catalog import clock
from rules.azure_policy import EFFECTS
from rules.databricks_policy import DEFAULT_COST_TAGS
from rules.sizes import DEFAULT_FLOOR

from . import azure_policy, databricks_policy


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m exports", description="Write a generated guard-rail policy as JSON."
    )
    parser.add_argument("kind", choices=("azure-policy", "databricks-policy"))
    parser.add_argument("--floor", default=DEFAULT_FLOOR, help=f"the GPU floor (default {DEFAULT_FLOOR})")
    parser.add_argument("--effect", default="Audit", choices=EFFECTS, help="azure-policy: default effect (Audit)")
    parser.add_argument(
        "--cost-tag",
        action="append",
        dest="cost_tags",
        help=f"databricks-policy: a required tag (repeatable; default {', '.join(DEFAULT_COST_TAGS)})",
    )
    parser.add_argument("--today", help="generate for this day (YYYY-MM-DD) instead of today")
    parser.add_argument("--out", type=Path, help="write to this file instead of stdout")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        today = clock.parse_day(args.today, "--today") if args.today else None
        if args.kind == "azure-policy":
            doc: object = azure_policy.policy_definition(floor=args.floor, effect=args.effect, today=today)
        else:
            doc = databricks_policy.cluster_policy_definition(
                floor=args.floor, cost_tags=args.cost_tags or DEFAULT_COST_TAGS, today=today
            )
    except ValueError as exc:
        print(f"python -m exports {args.kind}: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(doc, indent=2, sort_keys=False) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
