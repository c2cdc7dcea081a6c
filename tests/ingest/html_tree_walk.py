"""The tree walk the HTML readers used before they read pages as a stream
(``jw_rag.ingest._html_walk``), kept as the reference the stream is checked
against: it recurses over a parsed tree and decides at each block element,
from the whole subtree, whether it is one paragraph or a container."""

from __future__ import annotations

from dataclasses import dataclass

import lxml.etree

from jw_rag.ingest._html import (
    _BR,
    _NOTE_CLASSES,
    BLOCK_TAGS,
    HEADING_TAGS,
    SKIP_TAGS,
    _dropped,
    _inline_parts,
    _join_parts,
    _strip_number,
    _tag,
    element_text,
)
from jw_rag.ingest._source import check_paragraphs
from jw_rag.model import Paragraph


def _classes(el: lxml.etree._Element) -> set[str]:
    return {c.lower() for c in (el.get("class") or "").split()}


def _has_block(el: lxml.etree._Element) -> bool:
    return any(_tag(d) in BLOCK_TAGS for d in el.iterdescendants() if d is not el)


@dataclass(slots=True)
class _Walk:
    path: list[tuple[int, str]]
    out: list[Paragraph]
    name: str = "the page"

    def add(self, paragraph: Paragraph) -> None:
        self.out.append(paragraph)
        check_paragraphs(len(self.out), self.name)

    def heading_path(self) -> tuple[str, ...]:
        return tuple(text for _, text in self.path)

    def heading(self, level: int, text: str) -> None:
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, text))
        self.add(Paragraph(text, kind="heading", heading_path=self.heading_path()))

    def para(self, text: str, *, pid: str | None, kind: str) -> None:
        if text.strip():
            self.add(Paragraph(text, id=pid, heading_path=self.heading_path(), kind=kind))


def _kind(el: lxml.etree._Element, in_note: bool) -> str:
    if in_note:
        return "note"
    tag = _tag(el)
    return {"li": "list", "pre": "code", "blockquote": "quote"}.get(tag, "p")


def _is_note(el: lxml.etree._Element) -> bool:
    if _classes(el) & _NOTE_CLASSES:
        return True
    return (el.get("{http://www.idpf.org/2007/ops}type") or "") in ("footnote", "footnotes")


def _visit(el: lxml.etree._Element, walk: _Walk, in_note: bool) -> None:
    tag = _tag(el)
    if tag in SKIP_TAGS or not tag:
        return
    in_note = in_note or _is_note(el)
    if tag in HEADING_TAGS:
        text = element_text(el)
        if text:
            walk.heading(int(tag[1]), text)
        return
    if not _has_block(el):
        text = element_text(el, keep_whitespace=tag == "pre", lines=True)
        pid = el.get("data-pid")
        if pid is not None:
            pid = pid.strip()
            if not any("parnum" in _classes(d) for d in el.iterdescendants()):
                text = _strip_number(text, pid)
        walk.para(text, pid=pid, kind=_kind(el, in_note))
        return
    buffer: list[str] = [el.text or ""]

    def flush() -> None:
        walk.para(_join_parts(buffer), pid=None, kind="note" if in_note else "p")
        buffer.clear()

    for child in el:
        ctag = _tag(child)
        if ctag in BLOCK_TAGS or ctag in SKIP_TAGS:
            flush()
            _visit(child, walk, in_note)
        elif ctag == "br":
            buffer.append(_BR)
        elif ctag and not _dropped(child):
            _inline_parts(child, buffer)
        if child.tail:
            buffer.append(child.tail)
    flush()


def extract_paragraphs(root: lxml.etree._Element, name: str = "the page") -> list[Paragraph]:
    """Headings and paragraphs under ``root`` in reading order (see module docstring);
    more than ``MAX_PARAGRAPHS`` of them is an IngestError naming ``name``."""
    walk = _Walk(path=[], out=[], name=name)
    _visit(root, walk, False)
    return walk.out
