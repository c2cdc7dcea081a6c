"""Write a report: JSON or Markdown to a file (or stdout), the SVG chart next to it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from jw_eval.bench.chart_svg import ndcg_chart
from jw_eval.bench.report_md import render_markdown
from jw_rag.errors import ConfigError

__all__ = ["REPORT_FORMATS", "render_report", "write_report"]

REPORT_FORMATS = ("md", "json")


def render_report(report: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=True) + "\n"
    if fmt == "md":
        return render_markdown(report)
    raise ConfigError(f"unknown report format {fmt!r}: use md or json")


def write_report(report: dict[str, Any], fmt: str, out: Path | None) -> list[Path]:
    """Write the report (stdout when ``out`` is None) and, with ``out``, the
    chart as ``<out stem>.svg`` beside it. Returns the files written."""
    text = render_report(report, fmt)
    if out is None:
        sys.stdout.write(text)
        return []
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, "utf-8")
    svg = out.with_suffix(".svg")
    svg.write_text(ndcg_chart(report), "utf-8")
    return [out, svg]
