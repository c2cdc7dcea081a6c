"""The HTML walk of :mod:`jw_rag.ingest._html` as a stream of parser events.

A page is read without building its tree: libxml2's HTML parser hands each
start tag, piece of text, comment and end tag to :class:`_Page`, which keeps
only the elements still open and the text of the block being read. What a
block becomes is decided as its events come: a block element holding no other
block is one paragraph (known at its end tag), one holding blocks is a
container whose loose text between them is cut into paragraphs (known at the
first block inside it). The paragraphs are those the rules of the module
docstring of :mod:`jw_rag.ingest._html` give, in reading order.

:func:`read_page` parses a page this way; :func:`extract_paragraphs` walks an
already-built tree with the same code (its events come from the tree).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import lxml.etree

from jw_rag.errors import IngestError
from jw_rag.ingest._html import (
    _BR,
    _INVISIBLE,
    _NOTE_CLASSES,
    _OPS_TYPE,
    _XML_DECLARATION,
    BLOCK_TAGS,
    HEADING_TAGS,
    MAX_DEPTH,
    SKIP_TAGS,
    _Break,
    _classes,
    _dropped_markup,
    _join_parts,
    _strip_number,
    check_page,
    clean_text,
    depth_error,
    page_text,
)
from jw_rag.ingest._source import check_paragraphs, clean_controls
from jw_rag.model import Paragraph

__all__ = ["Page", "extract_paragraphs", "read_page"]

_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _is_note(attrib: Any) -> bool:
    if _classes(attrib) & _NOTE_CLASSES:
        return True
    return (attrib.get(_OPS_TYPE) or "") in ("footnote", "footnotes")


class _Flush:
    """Where a skipped element (``<script>``, ``<nav>``...) sat among the text of
    a block not yet known to be a container: a container cuts its text there."""


_FLUSH = _Flush()
_KINDS = {"li": "list", "pre": "code", "blockquote": "quote"}


class _Block:
    """A block element the walk visits: a heading, or a block that is one
    paragraph (``container`` False) until a block inside it shows it is a
    container of paragraphs."""

    __slots__ = ("container", "cuts", "in_note", "level", "parnum", "parts", "pid", "tag")

    def __init__(self, tag: str, pid: str | None, in_note: bool, level: int = 0) -> None:
        self.tag = tag
        self.pid = pid
        self.in_note = in_note
        self.level = level  # 1-6 for a heading, else 0
        self.container = False
        self.parnum = False  # a descendant has class parNum
        self.cuts = 0  # _FLUSH marks in parts
        self.parts: list[str | _Flush] = []


@dataclass(slots=True)
class _Walk:
    """The paragraphs read so far and the heading path they sit under."""

    name: str
    out: list[Paragraph]
    path: list[tuple[int, str]]
    _path: tuple[str, ...] = ()

    def add(self, paragraph: Paragraph) -> None:
        self.out.append(paragraph)
        check_paragraphs(len(self.out), self.name)

    def heading(self, level: int, text: str) -> None:
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, text))
        self._path = tuple(t for _, t in self.path)  # shared by what follows
        self.add(Paragraph(text, kind="heading", heading_path=self._path))

    def para(self, text: str, *, pid: str | None, kind: str) -> None:
        if text.strip():
            self.add(Paragraph(text, id=pid, heading_path=self._path, kind=kind))


class _Walker:
    """The walk of one element's subtree (``_visit`` of the old tree walk), fed
    the events inside it; ``done`` once the element has ended."""

    __slots__ = ("done", "error", "frames", "undecided", "walk")

    def __init__(self, name: str) -> None:
        self.walk = _Walk(name=name, out=[], path=[])
        # One frame per open element: a _Block the walk visits, the list an
        # inline element's text goes to, or None (text not read).
        self.frames: list[_Block | list[Any] | None] = []
        self.undecided: _Block | None = None
        self.done = False
        self.error: IngestError | None = None

    def _visit(self, tag: str, attrib: Any, in_note: bool) -> _Block | None:
        if tag in SKIP_TAGS or not tag:
            return None
        if tag in HEADING_TAGS:
            return _Block(tag, None, False, int(tag[1]))
        block = _Block(tag, attrib.get("data-pid"), in_note or _is_note(attrib))
        self.undecided = block
        return block

    def _flush(self, block: _Block) -> None:
        self.walk.para(_join_parts(block.parts), pid=None, kind="note" if block.in_note else "p")
        block.parts.clear()

    def _to_container(self, block: _Block) -> None:
        block.container = True
        self.undecided = None
        parts = block.parts
        if block.cuts:
            last = max(i for i, p in enumerate(parts) if p is _FLUSH)
            run: list[Any] = []
            for part in parts[:last]:
                if part is _FLUSH:
                    self.walk.para(
                        _join_parts(run), pid=None, kind="note" if block.in_note else "p"
                    )
                    run = []
                else:
                    run.append(part)
            self.walk.para(_join_parts(run), pid=None, kind="note" if block.in_note else "p")
            del parts[: last + 1]  # the same list: inline frames still point at it
            block.cuts = 0

    def start(self, tag: str, attrib: Any) -> None:
        undecided = self.undecided
        if undecided is not None:
            if tag in BLOCK_TAGS:
                self._to_container(undecided)
            elif not undecided.parnum and "parnum" in _classes(attrib):
                undecided.parnum = True
        frames = self.frames
        if not frames:
            frames.append(self._visit(tag, attrib, False))
            return
        top = frames[-1]
        if top is None:
            frames.append(None)
        elif type(top) is _Block and top.container:
            if tag in BLOCK_TAGS or tag in SKIP_TAGS:
                self._flush(top)
                frames.append(self._visit(tag, attrib, top.in_note))
            elif tag == "br":
                top.parts.append(_BR)
                frames.append(None)
            elif tag and not _dropped_markup(tag, attrib):
                frames.append(top.parts)
            else:
                frames.append(None)
        else:
            parts = top.parts if type(top) is _Block else top
            if tag == "br":
                parts.append(_BR)
                frames.append(None)
            elif not tag or _dropped_markup(tag, attrib):
                if type(top) is _Block and not top.level and tag in SKIP_TAGS:
                    parts.append(_FLUSH)
                    top.cuts += 1
                frames.append(None)
            else:
                frames.append(parts)

    def data(self, text: str) -> None:
        if self.frames:
            top = self.frames[-1]
            if type(top) is _Block:
                top.parts.append(text)
            elif top is not None:
                top.append(text)

    def end(self) -> None:
        top = self.frames.pop()
        if type(top) is _Block:
            if top.level:
                text = clean_text("".join(" " if isinstance(p, _Break) else p for p in top.parts))
                if text:
                    self.walk.heading(top.level, text)
            elif top.container:
                self._flush(top)
            else:
                self._leaf(top)
        if not self.frames:
            self.done = True

    def _leaf(self, block: _Block) -> None:
        self.undecided = None
        parts = block.parts
        if block.cuts:
            parts = [p for p in parts if p is not _FLUSH]
        if block.tag == "pre":
            text = _INVISIBLE.sub("", "".join(parts)).strip("\n").rstrip()  # type: ignore[arg-type]
        else:
            text = _join_parts(parts)  # type: ignore[arg-type]
        pid = block.pid
        if pid is not None:
            pid = pid.strip()
            if not block.parnum:
                text = _strip_number(text, pid)
        kind = "note" if block.in_note else _KINDS.get(block.tag, "p")
        self.walk.para(text, pid=pid, kind=kind)


class _TextOf:
    """The visible text of one element (:func:`jw_rag.ingest._html.element_text`)."""

    __slots__ = ("done", "frames", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.frames: list[bool] = []  # True: the element's text is read
        self.done = False

    def start(self, tag: str, attrib: Any) -> None:
        if not self.frames:
            self.frames.append(True)
        elif not self.frames[-1]:
            self.frames.append(False)
        elif tag == "br":
            self.parts.append(_BR)
            self.frames.append(False)
        else:
            self.frames.append(bool(tag) and not _dropped_markup(tag, attrib))

    def data(self, text: str) -> None:
        if self.frames and self.frames[-1]:
            self.parts.append(text)

    def end(self) -> None:
        self.frames.pop()
        if not self.frames:
            self.done = True

    def text(self) -> str:
        return clean_text("".join(" " if isinstance(p, _Break) else p for p in self.parts))


@dataclass(frozen=True, slots=True)
class Page:
    """What :func:`read_page` read: the paragraphs under the page's main element
    (its first ``<article>`` when asked for, else its ``<body>``, else the whole
    page), the text of the first ``<h1>`` in that element and in the whole page,
    the text of the first ``<title>`` and the root element's language."""

    paragraphs: list[Paragraph]
    h1: str | None
    first_h1: str | None
    title: str | None
    lang: str | None


class _Part:
    """One candidate main element being walked, with its first ``<h1>``."""

    __slots__ = ("depth", "h1", "walker")

    def __init__(self, name: str, depth: int) -> None:
        self.walker = _Walker(name)
        self.depth = depth
        self.h1: _TextOf | None = None


class _Page:
    """The parser target: hands each event to the walks and texts that want it."""

    def __init__(self, name: str, *, article: bool) -> None:
        self.name = name
        self.article = article
        self.depth = 0
        self.too_deep = False
        self.seen_root = False
        self.lang: str | None = None
        self.root: _Part | None = None
        self.body: _Part | None = None
        self.main: _Part | None = None  # the first <article>
        self.first_h1: _TextOf | None = None
        self.title: _TextOf | None = None
        self.texts: list[_TextOf] = []  # the texts still open

    def _parts(self) -> list[_Part]:
        return [p for p in (self.root, self.body, self.main) if p is not None]

    def start(self, tag: Any, attrib: Any) -> None:
        tag = tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.too_deep = True
        if self.too_deep:
            return
        depth = self.depth
        if depth == 1 and tag:
            self.seen_root = True
            self.lang = attrib.get("lang") or attrib.get(_XML_LANG)
            self.root = _Part(self.name, depth)
        elif depth == 2 and tag == "body" and self.body is None and self.main is None:
            self.root = None
            self.body = _Part(self.name, depth)
        if self.article and tag == "article" and self.main is None:
            self.root = self.body = None
            self.main = _Part(self.name, depth)
        if tag == "h1":
            if self.first_h1 is None:
                self.first_h1 = self._text()
            for part in self._parts():
                if part.h1 is None and depth > part.depth and not part.walker.done:
                    part.h1 = self._text()
        if tag == "title" and self.title is None:
            self.title = self._text()
        for part in self._parts():
            walker = part.walker
            if walker.error is None and not walker.done:
                try:
                    walker.start(tag, attrib)
                except IngestError as exc:
                    walker.error = exc
        for text in self.texts:
            text.start(tag, attrib)

    def _text(self) -> _TextOf:
        text = _TextOf()
        self.texts.append(text)
        return text

    def data(self, text: str) -> None:
        if self.too_deep:
            return
        for part in self._parts():
            if part.walker.error is None and not part.walker.done:
                part.walker.data(text)
        for each in self.texts:
            each.data(text)

    def end(self, tag: Any) -> None:
        self.depth -= 1
        if self.too_deep:
            return
        for part in self._parts():
            walker = part.walker
            if walker.error is None and not walker.done:
                try:
                    walker.end()
                except IngestError as exc:
                    walker.error = exc
        if self.texts:
            for text in self.texts:
                text.end()
            self.texts = [t for t in self.texts if not t.done]

    def comment(self, text: str) -> None:
        if self.too_deep or self.depth == 0:
            return
        for part in self._parts():  # a node without text; what follows is its tail
            walker = part.walker
            if walker.error is None and not walker.done:
                walker.start("", {})
                walker.end()
        for each in self.texts:
            each.start("", {})
            each.end()

    def pi(self, target: str, data: str | None = None) -> None:
        self.comment("")

    def close(self) -> None:
        return None


_PASS, _HOLD, _SKIP = 0, 1, 2


class _OneTree:
    """The parser target in front of :class:`_Page`: hands it the events of the
    page's tree as :func:`jw_rag.ingest._html.parse_html` leaves it, with what
    the parser put after the body (text and elements after ``</body>``, and
    the root elements it opens for what follows ``</html>``, their ``<body>``
    unwrapped) at the end of the body, or of the root when it has none."""

    def __init__(self, page: _Page) -> None:
        self.page = page
        self.roots = 0
        self.body = False  # the first root's <body> has started
        self.open: list[int] = []  # per open element: _PASS, _HOLD or _SKIP
        self.held: list[Any] = []  # end tags of the page's root and body, given at close

    def start(self, tag: Any, attrib: Any) -> None:
        depth = len(self.open) + 1
        name = tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""
        how = _PASS
        if depth == 1:
            self.roots += 1
            how = _HOLD if self.roots == 1 else _SKIP
        elif depth == 2 and name == "body":
            if self.roots > 1:
                how = _SKIP
            elif not self.body:
                self.body = True
                how = _HOLD
        self.open.append(how)
        if how != _SKIP:
            self.page.start(tag, attrib)

    def end(self, tag: Any) -> None:
        how = self.open.pop()
        if how == _PASS:
            self.page.end(tag)
        elif how == _HOLD:
            self.held.append(tag)

    def data(self, text: str) -> None:
        if self.open:  # text between root elements has no place in the tree
            self.page.data(text)

    def comment(self, text: str) -> None:
        if self.open:
            self.page.comment(text)

    def pi(self, target: str, data: str | None = None) -> None:
        if self.open:
            self.page.pi(target, data)

    def close(self) -> None:
        for tag in self.held:  # the body's end, then the root's
            self.page.end(tag)
        self.held = []


def _finish(page: _Page, parser: lxml.etree.HTMLParser) -> Page:
    stopped = next((e for e in parser.error_log if e.type_name == "ERR_RESOURCE_LIMIT"), None)
    if stopped is not None or page.too_deep:
        raise depth_error(page.name, stopped)
    if not page.seen_root:
        raise IngestError(f"{page.name} is not parseable HTML (Document is empty); check the file")
    part = page.main or page.body or page.root
    assert part is not None  # a root element was seen
    if part.walker.error is not None:
        raise part.walker.error
    return Page(
        paragraphs=part.walker.walk.out,
        h1=part.h1.text() if part.h1 else None,
        first_h1=page.first_h1.text() if page.first_h1 else None,
        title=page.title.text() if page.title else None,
        lang=page.lang,
    )


#: Characters of the page handed to the parser at a time.
FEED_CHARS = 1 << 20


def _utf8_pieces(data: bytes) -> Iterator[str] | None:
    """UTF-8 ``data`` decoded and cleaned (:func:`clean_controls`) a piece at a
    time: the text :func:`page_text` gives whole, from after its XML
    declaration; None when ``data`` is not plain UTF-8 (the caller decodes it
    whole, with the rules and errors of :func:`page_text`)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:  # checked whole first: a page that is not UTF-8 fails before it is parsed
        for at in range(start, len(data), FEED_CHARS):
            decoder.decode(view[at : at + FEED_CHARS], at + FEED_CHARS >= len(data))
    except UnicodeDecodeError:
        return None
    return _pieces(view, start)


def _pieces(view: memoryview, start: int) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")()
    head: str | None = ""  # the text up to the first ">", where a declaration ends
    for at in range(start, len(view), FEED_CHARS):
        final = at + FEED_CHARS >= len(view)
        piece = clean_controls(decoder.decode(view[at : at + FEED_CHARS], final))
        if head is not None:
            head += piece
            if ">" not in head and not final:
                continue
            declaration = _XML_DECLARATION.match(head)
            piece = head[declaration.end() :] if declaration else head
            head = None
        if piece:
            yield piece


def read_page(data: bytes, name: str, *, article: bool = False) -> Page:
    """The paragraphs of HTML ``data`` (see :class:`Page`) read as a stream, with
    the checks of :func:`jw_rag.ingest._html.parse_html` and its one-line errors.
    UTF-8 is decoded a piece at a time; other text is decoded whole first."""
    check_page(data, name)
    pieces = _utf8_pieces(data)
    if pieces is None:
        text, start = page_text(data, name)
        pieces = (text[at : at + FEED_CHARS] for at in range(start, len(text), FEED_CHARS))
    page = _Page(name, article=article)
    parser = lxml.etree.HTMLParser(huge_tree=True, target=_OneTree(page))
    fed = False
    try:
        for piece in pieces:
            parser.feed(piece)
            fed = True
        if not fed:  # nothing but a byte order mark
            raise lxml.etree.ParserError("Document is empty")
        parser.close()
    except (lxml.etree.ParserError, ValueError) as exc:
        raise IngestError(f"{name} is not parseable HTML ({exc}); check the file") from exc
    return _finish(page, parser)


def extract_paragraphs(root: lxml.etree._Element, name: str = "the page") -> list[Paragraph]:
    """Headings and paragraphs under ``root`` in reading order (see the module
    docstring of :mod:`jw_rag.ingest._html`); more than ``MAX_PARAGRAPHS`` of
    them is an IngestError naming ``name``."""
    walker = _Walker(name)

    def start(el: lxml.etree._Element) -> None:
        tag = el.tag.rsplit("}", 1)[-1].lower() if isinstance(el.tag, str) else ""
        walker.start(tag, el.attrib if tag else {})
        if tag and el.text:
            walker.data(el.text)

    start(root)
    stack = [(root, iter(root))]
    while stack:
        el, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            walker.end()
            if stack and el.tail:
                walker.data(el.tail)
        else:
            start(child)
            stack.append((child, iter(child)))
    return walker.walk.out
