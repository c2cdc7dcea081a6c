"""Markdown: ATX (``## Title``) and setext (``Title`` over ``===``/``---``)
headings become ``heading`` paragraphs and the heading path of what follows;
paragraphs are split on blank lines; inside one, a wrapped line is joined to
the next with a space and a line of its own keeps its line break (a table
row, a hard break ending in two spaces or a backslash, a short line:
:func:`jw_rag.ingest._html.clean_lines`); a list (consecutive
``-``/``*``/``+``/``1.`` items) is one ``list`` paragraph and a fenced or
indented code block one ``code`` paragraph, both verbatim. A leading YAML
front-matter block is skipped (its ``title:`` is used). Inline markup is kept
as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from jw_rag.ingest._html import clean_lines, clean_text
from jw_rag.ingest._source import (
    Loaded,
    check_paragraphs,
    read_source,
    refuse_other_kind,
)
from jw_rag.ingest.text import read_text
from jw_rag.model import Document, Paragraph

__all__ = ["parse_markdown", "parse_markdown_bytes"]

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_DELIMITER = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$")
_HARD_BREAK = re.compile(r"(?:  |\\)$")
_FRONT_TITLE = re.compile(r"^title:\s*[\"']?(.*?)[\"']?\s*$")


class _Builder:
    def __init__(self, name: str) -> None:
        self.name = name
        self.out: list[Paragraph] = []
        self.path: list[tuple[int, str]] = []
        self.lines: list[str] = []
        self.kind = "p"

    def _add(self, paragraph: Paragraph) -> None:
        self.out.append(paragraph)
        check_paragraphs(len(self.out), self.name)

    def heading_path(self) -> tuple[str, ...]:
        return tuple(t for _, t in self.path)

    def flush(self) -> None:
        if self.lines:
            if self.kind == "p":
                text = _paragraph_text(self.lines)
            else:
                text = "\n".join(self.lines).rstrip()
            if text.strip():
                self._add(Paragraph(text, heading_path=self.heading_path(), kind=self.kind))
        self.lines, self.kind = [], "p"

    def heading(self, level: int, text: str) -> None:
        self.flush()
        text = clean_text(text)
        if not text:
            return
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, text))
        self._add(Paragraph(text, heading_path=self.heading_path(), kind="heading"))

    def add(self, line: str, kind: str) -> None:
        if self.lines and self.kind != kind:
            self.flush()
        self.kind = kind
        self.lines.append(line)


def _paragraph_text(lines: list[str]) -> str:
    """A Markdown paragraph's lines as one text: a table's rows each on its own
    line, a hard break kept, the rest as :func:`clean_lines` reads them."""
    if any(_TABLE_DELIMITER.match(line) for line in lines):
        return "\n".join(t for t in (clean_text(line) for line in lines) if t)
    out: list[str] = []
    start = 0
    for k, line in enumerate(lines):
        if _HARD_BREAK.search(line) and k + 1 < len(lines):
            out.append(clean_lines("\n".join(lines[start : k + 1])))
            start = k + 1
    out.append(clean_lines("\n".join(lines[start:])))
    return "\n".join(t for t in out if t)


def _lines(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """``(offset, line)`` of each line of ``text`` from ``start``, one at a time
    (a list of every line of a large file would cost several times the file)."""
    while True:
        end = text.find("\n", start)
        if end < 0:
            yield start, text[start:]
            return
        yield start, text[start:end]
        start = end + 1


def _front_matter(text: str) -> tuple[int, str]:
    """Where the body starts (a character offset) and the front matter's title."""
    lines = _lines(text)
    first = next(lines)[1]
    if first.strip() != "---":
        return 0, ""
    title = ""
    for offset, line in lines:
        if line.strip() in ("---", "..."):
            return offset + len(line) + 1, title
        m = _FRONT_TITLE.match(line)
        if m:
            title = m.group(1)
    return 0, ""


def _parse(text: str, name: str = "the text") -> tuple[list[Paragraph], str]:
    start, front_title = _front_matter(text)
    b = _Builder(name)
    fence: str | None = None
    for _, line in _lines(text, start) if start <= len(text) else ():
        if fence is not None:
            if line.strip().startswith(fence):
                b.lines.append(line)
                fence = None
                b.flush()
            else:
                b.lines.append(line)
            continue
        fm = _FENCE.match(line)
        if fm:
            b.flush()
            fence = fm.group(1)[0] * len(fm.group(1))
            b.add(line, "code")
            continue
        if not line.strip():
            if b.kind != "list":
                b.flush()
            else:
                b.lines.append("")
            continue
        atx = _ATX.match(line)
        if atx:
            b.heading(len(atx.group(1)), atx.group(2) or "")
            continue
        setext = _SETEXT.match(line)
        if setext and b.lines and b.kind == "p":
            title = " ".join(b.lines)
            b.lines = []
            b.heading(1 if setext.group(1)[0] == "=" else 2, title)
            continue
        if _RULE.match(line) and (b.kind != "p" or not b.lines):
            b.flush()
            continue
        if _LIST_ITEM.match(line) or (b.kind == "list" and line.startswith((" ", "\t"))):
            if b.kind == "list" and b.lines and not b.lines[-1]:
                b.lines.pop()
                b.lines.append("")
            b.add(line, "list")
            continue
        if b.kind == "list":  # text after a blank line ends the list
            while b.lines and not b.lines[-1]:
                b.lines.pop()
            b.flush()
        if (line.startswith("    ") or line.startswith("\t")) and not b.lines:
            b.add(line, "code")
            continue
        if b.kind == "code" and fence is None:
            b.flush()
        b.add(line, "p")
    if b.kind == "list":
        while b.lines and not b.lines[-1]:
            b.lines.pop()
    b.flush()
    return b.out, front_title


def parse_markdown_bytes(loaded: Loaded) -> Document:
    """Markdown; a file that is really an HTML page (it opens with a doctype,
    ``<html>``, ``<head>`` or ``<body>``), a PDF or a ZIP format is refused,
    naming the kind to ingest it as. HTML inside Markdown text is kept."""
    refuse_other_kind(loaded, "Markdown")
    paragraphs, front_title = _parse(read_text(loaded, "Markdown"), loaded.name)
    headings = [p for p in paragraphs if p.kind == "heading"]
    title = front_title or (headings[0].text if headings else loaded.stem)
    return Document(
        source_id=loaded.stem,
        paragraphs=paragraphs,
        title=title,
        metadata={"source": loaded.url or loaded.name, "format": "markdown"},
    )


def parse_markdown(source: str | Path) -> Document:
    """A UTF-8 Markdown file or http(s) URL as a :class:`Document` (``source_id`` is
    the file stem, or host and path for a URL)."""
    return parse_markdown_bytes(read_source(source))
