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


def check_report_path(out: Path | None) -> None:
    """Refuse, before a run, a report path the report cannot be written to
    whole: a folder, a path under a file, or an ``.svg`` name (the chart,
    written beside the report as ``<stem>.svg``, would replace it)."""
    if out is None:
        return
    if out.is_dir():
        raise ConfigError(f"--out {out} is a folder: give a file path, such as {out / 'report.md'}")
    if out.suffix.lower() == ".svg":
        raise ConfigError(
            f"--out {out}: the chart is written beside the report as {out.with_suffix('.svg')} "
            f"and would replace it; give the report another name, such as {out.with_suffix('.md')}"
        )
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(
                    f"--out {out}: {parent} is a file, not a folder; give a path in a folder"
                )
            break


def write_report(report: dict[str, Any], fmt: str, out: Path | None) -> list[Path]:
    """Write the report (stdout when ``out`` is None) and, with ``out``, the
    chart as ``<out stem>.svg`` beside it (:func:`check_report_path` says
    which ``out`` cannot be). Returns the files written."""
    text = render_report(report, fmt)
    check_report_path(out)
    if out is None:
        sys.stdout.write(text)
        return []
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, "utf-8")
    svg = out.with_suffix(".svg")
    svg.write_text(ndcg_chart(report), "utf-8")
    return [out, svg]
