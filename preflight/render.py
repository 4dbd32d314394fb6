"""One preflight report in the format asked for: text (terminal), JSON, Markdown (pull-request comment), SARIF."""

from __future__ import annotations

import json

from preflight.report import Report
from preflight.report_json import to_json
from preflight.report_markdown import render_markdown
from preflight.report_sarif import render_sarif
from preflight.report_text import render_text

FORMATS: tuple[str, ...] = ("text", "json", "markdown", "sarif")


def render(report: Report, fmt: str) -> str:
    if fmt == "text":
        return render_text(report)
    if fmt == "json":
        return json.dumps(to_json(report), indent=2) + "\n"
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "sarif":
        return render_sarif(report)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
