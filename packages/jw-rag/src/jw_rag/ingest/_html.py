"""HTML to paragraphs: parse bytes safely, walk blocks in reading order.

Blocks are the leaf block elements (``p``, ``li``, ``pre``, ...) and runs of
loose inline text between blocks; ``h1``-``h6`` become ``kind="heading"``
paragraphs and set the heading path of what follows (a heading's own path
includes itself). A page is read whole or refused: text nodes of any size are
kept (libxml2's "huge" mode), and a page nested deeper than :data:`MAX_DEPTH`
is a one-line error, never silently cut. Footnote markers (``<sup>``, footnote links) and visible
paragraph numbers (``span.parNum``) are dropped; whitespace is normalised,
except that a ``<br>`` is kept as a line break (a line of its own: a verse,
an address, a chat message) and ``<pre>`` keeps its lines as written. What
follows ``</body>`` or ``</html>`` is read at the end of the body, in order,
as a browser shows it (two pages saved into one file are both read).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import lxml.etree
import lxml.html

from jw_rag._lines import line_breaks
from jw_rag.errors import IngestError
from jw_rag.ingest._source import (
    MAX_TAGS,
    check_text_size,
    clean_controls,
    decode_text,
    looks_binary,
)

__all__ = [
    "BLOCK_TAGS",
    "HEADING_TAGS",
    "MAX_DEPTH",
    "clean_lines",
    "check_page",
    "clean_text",
    "depth_error",
    "element_text",
    "page_text",
    "parse_html",
]

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
BLOCK_TAGS = HEADING_TAGS | frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "dd", "details", "div",
        "dl", "dt", "fieldset", "figcaption", "figure", "footer", "header", "hr", "html",
        "li", "main", "ol", "p", "pre", "section", "summary", "table", "tbody", "td",
        "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
SKIP_TAGS = frozenset(
    {"script", "style", "noscript", "template", "nav", "head", "button", "form", "svg"}
)
_DROP_CLASSES = frozenset({"parnum", "fn", "footnotelink", "footnote-ref", "noteref"})
_NOTE_CLASSES = frozenset({"footnote", "footnotes", "fnbody", "notes"})
_INVISIBLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")
_SPACES = re.compile(r"\s+")
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9_.:-]+)""")


#: Characters :func:`clean_text` cleans at a time: ``re.sub`` holds one string
#: per piece of text between matches until it joins them (about 14 times a
#: text's size for prose), so a long text is cleaned a piece at a time.
_CLEAN_PIECE = 1 << 16
_NOT_SPACE = re.compile(r"\S")


def clean_text(text: str) -> str:
    """Invisible characters removed, runs of whitespace turned into one space,
    trimmed. Cleaning a text of any size takes at most about three times its
    size of memory at peak (twice without invisible characters)."""
    if len(text) <= _CLEAN_PIECE:
        return _SPACES.sub(" ", _INVISIBLE.sub("", text)).strip()
    step = _CLEAN_PIECE
    if _INVISIBLE.search(text):  # one character each: cut anywhere
        text = "".join(_INVISIBLE.sub("", text[at : at + step]) for at in range(0, len(text), step))
    pieces: list[str] = []
    at, size = 0, len(text)
    while at < size:  # each piece ends before a non-space: no run of spaces is cut
        found = _NOT_SPACE.search(text, at + step) if at + step < size else None
        end = found.start() if found else size
        pieces.append(_SPACES.sub(" ", text[at:end]))
        at = end
    if not pieces:  # nothing but invisible characters
        return ""
    # only the first piece can start with a space, only the last can end with one
    pieces[0] = pieces[0].lstrip()
    pieces[-1] = pieces[-1].rstrip()
    return "".join(pieces)


def clean_lines(text: str) -> str:
    """``text`` cleaned line by line (:func:`clean_text`), its lines joined by a
    space where they were wrapped and by ``"\\n"`` where they are lines of their
    own (rows, list items, chat lines: :func:`jw_rag._lines.line_breaks`)."""
    raw = [line for line in _INVISIBLE.sub("", text).split("\n") if line.strip()]
    if len(raw) < 2:
        return clean_text(text)
    cleaned = [clean_text(line) for line in raw]
    breaks = line_breaks(
        [line[: len(line) - len(line.lstrip())] + c for line, c in zip(raw, cleaned, strict=True)]
    )
    parts = [cleaned[0]]
    for line, structure in zip(cleaned[1:], breaks, strict=True):
        parts.append("\n" if structure else " ")
        parts.append(line)
    return "".join(parts)


def check_page(data: bytes, name: str) -> None:
    """Refuse HTML ``data`` that is too big, holds more than ``MAX_TAGS`` tags,
    is empty or is binary, before it is decoded."""
    check_text_size(len(data), name)
    tags = data.count(b"<")
    if tags > MAX_TAGS:
        raise IngestError(
            f"{name} holds {tags:,} tags, more than the {MAX_TAGS:,} one page may hold; "
            "split it into smaller pages"
        )
    if not data.strip():
        raise IngestError(f"{name} is empty; pass a page with content")
    if looks_binary(data):
        raise IngestError(f"{name} is not HTML (it holds binary data); check the file")


def page_text(data: bytes, name: str) -> tuple[str, int]:
    """HTML ``data`` as text, and where its markup starts (after an XML
    declaration, which the parser refuses in text); what :func:`check_page`
    refuses, or undecodable input, is refused."""
    check_page(data, name)
    declared = _XML_ENCODING.match(data[:2048]) or _CHARSET.search(data[:2048])
    try:
        text = decode_text(data, name)
    except IngestError:
        charset = declared.group(1).lower() if declared else b"utf-8"
        # a declaration readable as ASCII is not in UTF-16/32: HTML takes it for UTF-8
        if charset in (b"utf-8", b"utf8") or charset.startswith((b"utf-16", b"utf-32")):
            raise
        try:
            text = clean_controls(data.decode(charset.decode("ascii")))
        except (LookupError, UnicodeDecodeError) as exc:
            raise IngestError(
                f"{name} does not decode as its declared charset "
                f"{charset.decode('ascii', 'replace')}; re-save it as UTF-8"
            ) from exc
    declaration = _XML_DECLARATION.match(text)
    return text, declaration.end() if declaration else 0


_XML_DECLARATION = re.compile(r"\s*<\?xml[^>]*\?>")


def parse_html(data: bytes, name: str) -> lxml.html.HtmlElement:
    """The document root of HTML ``data``, refused as :func:`page_text` says."""
    text, start = page_text(data, name)
    parser = lxml.html.HTMLParser(huge_tree=True)  # no cap on a text node's size
    try:
        root = lxml.html.document_fromstring(text[start:] if start else text, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise IngestError(f"{name} is not parseable HTML ({exc}); check the file") from exc
    _gather_strays(root)
    _check_complete(parser, root, name)
    return root


def _gather_strays(root: lxml.etree._Element) -> None:
    """Move what the parser put after the page's ``<body>`` to the end of it, in
    order, as a browser shows it: text and elements after ``</body>``, and the
    content of the root elements libxml2 opens for what follows ``</html>``
    (their own ``<body>`` unwrapped). A page without a body gathers them in its
    root. Each stray root is left empty beside the page's."""
    body = root.find("body")
    end = _End(root if body is None else body)
    if body is not None:
        end.add_text(body.tail)
        body.tail = None
        for node in list(body.itersiblings()):
            end.add(node)
    for stray in list(root.itersiblings()):
        if not isinstance(stray.tag, str):  # a comment beside the root: no text
            continue
        end.add_text(stray.text)
        stray.text = None
        for node in list(stray):
            if node.tag != "body":
                end.add(node)
                continue
            end.add_text(node.text)
            for child in list(node):
                end.add(child)
            end.add_text(node.tail)
            stray.remove(node)


class _End:
    """The end of an element's content, where nodes and text are added (its
    last child is kept: lxml counts an element's children one by one)."""

    def __init__(self, el: lxml.etree._Element) -> None:
        self.el = el
        self.last = el[-1] if len(el) else None

    def add(self, node: lxml.etree._Element) -> None:
        self.el.append(node)  # its tail moves with it
        self.last = node

    def add_text(self, text: str | None) -> None:
        if not text:
            return
        if self.last is not None:
            self.last.tail = (self.last.tail or "") + text
        else:
            self.el.text = (self.el.text or "") + text


#: The deepest element nesting read: the walk recurses once per level, and
#: real pages stay far below this.
MAX_DEPTH = 512


def depth_error(name: str, stopped: lxml.etree._LogEntry | None) -> IngestError:
    """The error for a page nested deeper than :data:`MAX_DEPTH` (``stopped``:
    where libxml2 stopped reading it at its own limit, if it did)."""
    why = f"at line {stopped.line} ({stopped.message.strip()})" if stopped else ""
    return IngestError(
        f"{name} nests its elements more than {MAX_DEPTH} deep{' ' + why if why else ''}, "
        "past what this reader walks: its text would be cut there; flatten the page, or "
        "save its text and ingest that"
    )


def _check_complete(parser: lxml.html.HTMLParser, root: lxml.etree._Element, name: str) -> None:
    """Refuse a page the parser stopped reading (it hit one of libxml2's limits,
    such as its nesting depth, and would drop the rest silently) or one nested
    deeper than :data:`MAX_DEPTH`."""
    stopped = next((e for e in parser.error_log if e.type_name == "ERR_RESOURCE_LIMIT"), None)
    if stopped is not None or _deeper_than(root, MAX_DEPTH):
        raise depth_error(name, stopped)


def _deeper_than(root: lxml.etree._Element, limit: int) -> bool:
    depth = 0
    for event, _ in lxml.etree.iterwalk(root, events=("start", "end")):
        depth += 1 if event == "start" else -1
        if depth > limit:
            return True
    return False


def _tag(el: lxml.etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


_OPS_TYPE = "{http://www.idpf.org/2007/ops}type"


def _classes(attrib: Mapping[str, str]) -> set[str]:
    return {c.lower() for c in (attrib.get("class") or "").split()}


def _dropped_markup(tag: str, attrib: Mapping[str, str]) -> bool:
    """An inline element whose text is not read (skipped tags, verse and
    footnote numbers, note references), by its tag and attributes."""
    if tag in SKIP_TAGS or tag == "sup":
        return True
    if _classes(attrib) & _DROP_CLASSES:
        return True
    return (attrib.get(_OPS_TYPE) or "") == "noteref"


def _dropped(el: lxml.etree._Element) -> bool:
    return _dropped_markup(_tag(el), el.attrib)


class _Break(str):
    """A ``<br>`` among an element's text parts (told apart by its type, never
    by its value: the page's own text may hold a newline)."""


_BR = _Break("\n")


def _join_parts(parts: list[str]) -> str:
    """Text parts with their ``<br>`` breaks: each line cleaned, blank ones dropped."""
    lines: list[list[str]] = [[]]
    for part in parts:
        if isinstance(part, _Break):
            lines.append([])
        else:
            lines[-1].append(part)
    return "\n".join(t for t in (clean_text("".join(line)) for line in lines) if t)


def _inline_parts(el: lxml.etree._Element, out: list[str]) -> None:
    """Text of ``el`` and its descendants, without dropped elements (tails kept)."""
    if el.text:
        out.append(el.text)
    for child in el:
        if not isinstance(child.tag, str):  # comments, processing instructions
            pass
        elif _tag(child) == "br":
            out.append(_BR)
        elif not _dropped(child):
            _inline_parts(child, out)
        if child.tail:
            out.append(child.tail)


def element_text(
    el: lxml.etree._Element, *, keep_whitespace: bool = False, lines: bool = False
) -> str:
    """The visible text of ``el`` (see the module docstring for what is dropped);
    a ``<br>`` is a line break with ``lines``, else a space (a heading, a title)."""
    parts: list[str] = []
    _inline_parts(el, parts)
    if keep_whitespace:
        return _INVISIBLE.sub("", "".join(parts)).strip("\n").rstrip()
    if lines:
        return _join_parts(parts)
    return clean_text("".join(" " if isinstance(p, _Break) else p for p in parts))


def _strip_number(text: str, number: str) -> str:
    """``text`` without a leading visible paragraph number equal to ``number``
    (digits, an optional period, then whitespace). Compared as a prefix, never
    compiled into a pattern: an id can be as long as the page."""
    if not number.isdigit() or not text.startswith(number):
        return text
    rest = text[len(number) :]
    rest = rest.removeprefix(".")
    kept = rest.lstrip()
    return kept if len(kept) < len(rest) else text
