"""The README, the docs, the ``jw`` options and the MCP tools speak only the
new names: ``reach`` (chunks each way a delivery adds) and ``window_chars``
(window units' size in characters). Old names live on in the library for one
release (:mod:`jw_rag.renames`), never in what a reader is told to type."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import click

from jw_cli.app import command
from jw_mcp.server import build_server
from jw_rag.renames import RENAMED

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]

#: The old names as a reader would type them: as an argument or a variant option.
OLD_SPELLINGS = re.compile(r"\bwindows?=|\bMAX_WINDOW\b|\bMAX_UNIT_CHARS\b|`window` chunks")
OLD_NAMES = {"window", "windows"}


def test_every_old_spelling_is_caught_by_the_pattern() -> None:
    for entry in RENAMED:
        assert OLD_SPELLINGS.search(f"{entry.old}=") or OLD_SPELLINGS.search(entry.old), entry
    assert not OLD_SPELLINGS.search("window_chars=0 reach=2 wide_window_chars=3000")


def test_readme_and_docs_use_only_the_new_names() -> None:
    assert len(DOCS) > 3
    found = [
        f"{path.relative_to(REPO)}:{n}: {line.strip()}"
        for path in DOCS
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if OLD_SPELLINGS.search(line)
    ]
    assert not found, "\n".join(found)


def _options(cmd: click.Command, path: str = "jw") -> list[tuple[str, str]]:
    out = [(path, opt) for p in cmd.params for opt in (*p.opts, *p.secondary_opts)]
    for name, sub in (getattr(cmd, "commands", None) or {}).items():
        out += _options(sub, f"{path} {name}")
    return out


def test_no_jw_option_carries_an_old_name() -> None:
    options = _options(command())
    assert len(options) > 30
    bad = [(c, o) for c, o in options if o.lstrip("-").replace("-", "_") in OLD_NAMES]
    assert not bad
    assert ("jw eval chunker-bench", "--window-chars") in options


def test_no_mcp_tool_parameter_carries_an_old_name() -> None:
    tools = anyio.run(build_server().list_tools)
    params = {(t.name, p) for t in tools for p in t.input_schema.get("properties", {})}
    assert ("search", "expand") in params
    assert not [(t, p) for t, p in params if p in OLD_NAMES]


def test_the_llm_chunker_speaks_of_batches_and_paragraph_parts() -> None:
    # "window" is a window unit and "segment" a delivery: the LLM chunker's
    # prompt batches and a chunk's paragraph parts are named apart from both
    source = (REPO / "packages/jw-rag/src/jw_rag/chunkers/llm_chunker.py").read_text("utf-8")
    assert not re.search(r"(?i)window|segment", source)
    assert "def _batches(" in source and "class _ParaPart" in source
