"""Bible chapters: the verse is the unit, ids are ``"book:chapter:verse"``.

Accepted shapes (a local file or a URL):

* HTML, verse containers with wol-style ids: ``id="v43003016"`` (book 43,
  chapter 3, verse 16) or ``id="v43-3-16-1"`` (the last number is a part;
  parts of one verse are joined). Book and chapter come from the id.
* HTML, containers ``<span class="verse" data-verse="16">`` (the number may
  instead lead the text, or sit in a ``<sup>``).
* HTML, markers: a ``<sup>16</sup>`` (or ``span.verseNum``) holding only a
  number starts verse 16; the text up to the next marker belongs to it.
* Plain text: one verse per line, ``16 For God so loved ...``; a line that
  does not start with a number continues the previous verse; lines before
  the first verse are taken as the heading (``John 3``).

Book and chapter, when the source does not carry them, come from the caller,
else the heading / ``<h1>`` / ``<title>`` (``"John 3"``), else the file name
(``john-3.html``). Book slugs are lowercase with hyphens (``"1-john"``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import lxml.etree

from jw_core import normalize_language
from jw_rag.errors import IngestError
from jw_rag.ingest._html import clean_text, element_text, parse_html
from jw_rag.ingest._source import Loaded, decode_text, looks_binary, read_source
from jw_rag.ingest.pipeline import VERSE_UNIT
from jw_rag.model import Document, Paragraph

__all__ = ["BOOKS", "book_slug", "parse_bible_chapter", "parse_bible_bytes"]

#: Book slugs in canonical order: ``BOOKS[n - 1]`` is book number ``n``.
BOOKS: tuple[str, ...] = tuple(
    """genesis exodus leviticus numbers deuteronomy joshua judges ruth 1-samuel
    2-samuel 1-kings 2-kings 1-chronicles 2-chronicles ezra nehemiah esther job
    psalms proverbs ecclesiastes song-of-solomon isaiah jeremiah lamentations
    ezekiel daniel hosea joel amos obadiah jonah micah nahum habakkuk zephaniah
    haggai zechariah malachi matthew mark luke john acts romans 1-corinthians
    2-corinthians galatians ephesians philippians colossians 1-thessalonians
    2-thessalonians 1-timothy 2-timothy titus philemon hebrews james 1-peter
    2-peter 1-john 2-john 3-john jude revelation""".split()
)

_ID_PACKED = re.compile(r"^v(\d{1,2})(\d{3})(\d{3})$")
_ID_DASHED = re.compile(r"^v(\d{1,2})-(\d{1,3})-(\d{1,3})(?:-(\d+))?$")
_LEADING_NUMBER = re.compile(r"^\s*(\d{1,3})(?:[.:]|\s|(?=[^\W\d_]))\s*")
_HEADING = re.compile(r"^\s*(.+?)\s+(\d{1,3})\s*$")
_FILE_NAME = re.compile(r"^(.+?)[-_ .](\d{1,3})$")


def book_slug(name: str) -> str:
    """``"1 John"`` -> ``"1-john"``, ``"Génesis"`` -> ``"genesis"``."""
    folded = unicodedata.normalize("NFKD", name)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).lower()
    slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")
    if not slug:
        raise IngestError(f"book name {name!r} has no letters; pass book='john' or similar")
    return slug


def _number(text: str) -> int | None:
    """``text`` as a verse number: one to three ASCII digits (``"²"`` and a
    thousand-digit run are not verse numbers)."""
    text = text.strip()
    return int(text) if 0 < len(text) <= 3 and text.isascii() and text.isdigit() else None


def _verse_number(el: lxml.etree._Element) -> int | None:
    for attr in ("data-verse", "data-v"):
        value = _number(el.get(attr) or "")
        if value is not None:
            return value
    return None


def _is_marker(el: lxml.etree._Element) -> bool:
    if not isinstance(el.tag, str):
        return False
    classes = {c.lower() for c in (el.get("class") or "").split()}
    is_marker_el = el.tag == "sup" or bool(classes & {"versenum", "vn", "vl"})
    return is_marker_el and _number(el.text_content() or "") is not None


def _container_text(el: lxml.etree._Element) -> tuple[int | None, str]:
    """(verse number found in a leading marker or number, text without it)."""
    number: int | None = None
    for marker in el.iter():
        if marker is not el and _is_marker(marker):
            number = _number(marker.text_content())
            break
    text = element_text(el)  # drops <sup>; span.verseNum handled below
    for marker in el.iter():
        if marker is not el and _is_marker(marker) and marker.tag != "sup":
            shown = marker.text_content().strip()
            if text.startswith(shown):  # a prefix, never a pattern built from the page
                text = text[len(shown) :].lstrip()
    m = _LEADING_NUMBER.match(text)
    if m and (number is None or int(m.group(1)) == number):
        number = number or int(m.group(1))
        text = text[m.end() :]
    return number, text


def _from_ids(root: lxml.etree._Element) -> tuple[str | None, int | None, list[tuple[int, str]]]:
    verses: dict[int, list[str]] = {}
    book = chapter = None
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        vid = el.get("id") or ""
        m = _ID_PACKED.match(vid) or _ID_DASHED.match(vid)
        if not m:
            continue
        b, c, v = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if 1 <= b <= len(BOOKS):
            book = BOOKS[b - 1]
        chapter = c
        _, text = _container_text(el)
        verses.setdefault(v, []).append(text)
    return book, chapter, [(v, clean_text(" ".join(parts))) for v, parts in verses.items()]


def _from_classes(root: lxml.etree._Element) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for el in root.xpath('//*[contains(concat(" ", normalize-space(@class), " "), " verse ")]'):
        number, text = _container_text(el)
        number = _verse_number(el) or number
        if number is None:
            raise IngestError(
                "a <span class='verse'> has no verse number; give it data-verse or a leading number"
            )
        out.append((number, text))
    return out


def _from_markers(body: lxml.etree._Element) -> list[tuple[int, str]]:
    verses: list[tuple[int, list[str]]] = []

    def emit(text: str | None) -> None:
        if text and verses:
            verses[-1][1].append(text)

    def walk(el: lxml.etree._Element) -> None:
        for child in el:
            if isinstance(child.tag, str) and child.tag in ("script", "style", "h1", "h2", "h3"):
                pass
            elif _is_marker(child):
                verses.append((_number(child.text_content()) or 0, []))
            elif isinstance(child.tag, str) and child.tag != "sup":
                emit(child.text)
                walk(child)
                if child.tag in ("p", "div", "br", "li"):
                    emit(" ")
            emit(child.tail)

    emit(body.text)
    walk(body)
    return [(v, clean_text("".join(parts))) for v, parts in verses]


def _from_lines(text: str) -> tuple[str, list[tuple[int, str]]]:
    heading: list[str] = []
    verses: list[tuple[int, list[str]]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = re.match(r"^\s*(\d{1,3})[.:]?\s+(\S.*)$", line)
        if m:
            verses.append((int(m.group(1)), [m.group(2)]))
        elif verses:
            verses[-1][1].append(line)
        else:
            heading.append(line.strip())
    return " ".join(heading), [(v, clean_text(" ".join(parts))) for v, parts in verses]


def _split_heading(text: str) -> tuple[str | None, int | None]:
    m = _HEADING.match(text or "")
    return (m.group(1), int(m.group(2))) if m else (None, None)


@dataclass(slots=True)
class _Found:
    """What the source itself says: its verses, title and language, and the
    book and chapter when its verse ids carry them."""

    verses: list[tuple[int, str]]
    title: str = ""
    language: str | None = None
    book: str | None = None
    chapter: int | None = None


def _find_html(loaded: Loaded) -> _Found:
    root = parse_html(loaded.data, loaded.name)
    h1 = root.xpath("//h1")
    title_el = root.find(".//title")
    title = element_text(h1[0]) if h1 else (element_text(title_el) if title_el is not None else "")
    book, chapter, verses = _from_ids(root)
    if not verses:
        verses = _from_classes(root)
    if not verses:
        body = root.find("body")
        verses = _from_markers(body if body is not None else root)
    return _Found(verses, title, root.get("lang"), book, chapter)


def _find_verses(loaded: Loaded) -> _Found:
    """The source's verses (empty ones dropped); raises when it has none."""
    if not loaded.data.strip():
        raise IngestError(f"{loaded.name} is empty; pass a Bible chapter")
    if looks_binary(loaded.data):
        raise IngestError(f"{loaded.name} holds binary data, not a Bible chapter; check the file")
    if loaded.data.lstrip()[:512].lower().startswith(b"<"):
        found = _find_html(loaded)
    else:
        title, verses = _from_lines(decode_text(loaded.data, loaded.name))
        found = _Found(verses, title)
    found.verses = [(v, t) for v, t in found.verses if t]
    if not found.verses:
        raise IngestError(
            f"{loaded.name}: no verses found; see jw_rag.ingest.bible for the accepted shapes "
            "(verse ids like v43003016, <sup> verse numbers, or one numbered verse per line)"
        )
    return found


def _book_and_chapter(
    loaded: Loaded, found: _Found, book: str | None, chapter: int | None
) -> tuple[str, int]:
    """The book's name and the chapter: the caller's, else the source's (its
    verse ids, then its heading), else the file name's."""
    head_book, head_chapter = _split_heading(found.title)
    file_book, file_chapter = _split_heading(loaded.stem.replace("-", " ").replace("_", " "))
    final_book = book or found.book or head_book or file_book
    final_chapter = chapter or found.chapter or head_chapter or file_chapter
    if not final_book or not final_chapter:
        raise IngestError(
            f"{loaded.name}: cannot tell the book and chapter; pass book= and chapter= "
            "(e.g. book='john', chapter=3)"
        )
    return final_book, final_chapter


def _verse_paragraphs(
    name: str, slug: str, chapter: int, verses: list[tuple[int, str]]
) -> list[Paragraph]:
    seen: set[int] = set()
    paragraphs: list[Paragraph] = []
    for number, text in verses:
        if number in seen:
            raise IngestError(f"{name}: verse {number} appears twice; check the source")
        seen.add(number)
        paragraphs.append(Paragraph(text, id=f"{slug}:{chapter}:{number}", kind="verse"))
    return paragraphs


def parse_bible_bytes(
    loaded: Loaded, *, book: str | None = None, chapter: int | None = None
) -> Document:
    """Parse an already-read chapter (HTML or plain text, see the module docstring)."""
    found = _find_verses(loaded)
    final_book, final_chapter = _book_and_chapter(loaded, found, book, chapter)
    slug = book_slug(final_book)
    if isinstance(final_chapter, bool) or int(final_chapter) < 1:
        raise IngestError(f"chapter must be a positive number, got {final_chapter!r}")
    ch = int(final_chapter)
    return Document(
        source_id=f"{slug}:{ch}",
        paragraphs=_verse_paragraphs(loaded.name, slug, ch, found.verses),
        title=found.title or f"{final_book} {ch}",
        language=normalize_language(found.language),
        metadata={
            "source": loaded.url or loaded.name,
            "format": "bible_chapter",
            "unit": VERSE_UNIT,
            "book": slug,
            "chapter": ch,
        },
    )


def parse_bible_chapter(
    source: str | Path, *, book: str | None = None, chapter: int | None = None
) -> Document:
    """One chapter from a local file or URL; ``source_id`` is ``"book:chapter"``."""
    return parse_bible_bytes(read_source(source), book=book, chapter=chapter)
