"""Findings of the review of the scale-and-cost work (streaming parse, line
cache, HNSW graph options), each with the test that failed before its fix."""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

import pytest

from tests.jwpub.jw_formats_builder import Doc, write_jwpub

XHTML = (
    '<html><body><article><h1 data-pid="1">Water</h1>'
    '<p data-pid="2">Gardens need water every morning, and the soil keeps it.</p>'
    "</article></body></html>"
)


def test_a_jwpub_whose_database_is_in_wal_mode_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database saved in WAL mode (bytes 18-19 of its header are 2) was read
    before its private copy lost its name; since then SQLite, which opens the
    copy's ``-wal`` and ``-shm`` files beside it by name, failed with "disk I/O
    error" and the publication was refused as damaged. It is read, and no file
    is left in (or made in) the temporary folder."""
    from jw_core.jwpub import read_jwpub

    spare = tmp_path / "tmp"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    plain = write_jwpub(tmp_path / "plain.jwpub", [Doc(1, 101, "Water", XHTML)])
    with zipfile.ZipFile(plain) as outer, zipfile.ZipFile(outer.open("contents")) as inner:
        db = bytearray(inner.read("tp.db"))
    db[18:20] = b"\x02\x02"  # what `PRAGMA journal_mode=WAL` leaves in the file
    path = write_jwpub(tmp_path / "wal.jwpub", [Doc(1, 101, "Water", XHTML)], database=bytes(db))
    pub = read_jwpub(path)
    assert "Gardens need water" in pub.documents[0].xhtml
    assert sorted(spare.iterdir()) == []


def test_an_epub_whose_spine_lists_a_chapter_twice_gives_the_chapter_once() -> None:
    """A spine that lists one chapter twice (seen in converted books) made each
    listing a document with one id, refused before anything was stored; since
    chapters are read once from the archive, the second listing found the
    chapter's markup let go and failed the book as "is empty". The chapter is
    one document, at its first place in the spine."""
    from jw_rag.ingest._source import Loaded
    from jw_rag.ingest.epub import parse_epub_bytes
    from tests.robust.hostile_files import OPF, epub_bytes

    twice = OPF.replace(b'<itemref idref="c1"/>', b'<itemref idref="c1"/><itemref idref="c1"/>')
    docs = parse_epub_bytes(
        Loaded(data=epub_bytes(opf=twice), name="book.epub", path=Path("book.epub"))
    )
    assert [(d.source_id, [p.text for p in d.paragraphs]) for d in docs] == [
        ("book/ch1", ["One", "A paragraph of the chapter."])
    ]
    assert docs[0].metadata["spine_index"] == 0


@pytest.mark.parametrize("empty", [b"", b" \n\t "])
def test_an_empty_chapter_file_is_left_out_like_a_page_without_text(empty: bytes) -> None:
    """A spine document whose file is empty (a placeholder a converter left)
    failed the whole book ("is empty; pass a page with content"), while a
    chapter of markup with no text (a cover, an image page) is left out. It is
    left out too, and the book's other chapters are read."""
    from jw_rag.ingest._source import Loaded
    from jw_rag.ingest.epub import parse_epub_bytes
    from tests.jwpub.jw_formats_builder import zip_bytes
    from tests.robust.hostile_files import CHAPTER, CONTAINER, OPF

    opf = OPF.replace(
        b"</manifest>",
        b'<item id="c0" href="ch0.xhtml" media-type="application/xhtml+xml"/></manifest>',
    ).replace(b"<spine>", b'<spine><itemref idref="c0"/>')
    data = zip_bytes(
        {
            "mimetype": b"application/epub+zip",
            "META-INF/container.xml": CONTAINER,
            "content.opf": opf,
            "ch0.xhtml": empty,
            "ch1.xhtml": CHAPTER,
        }
    )
    docs = parse_epub_bytes(Loaded(data=data, name="book.epub", path=Path("book.epub")))
    assert [(d.source_id, d.metadata["spine_index"]) for d in docs] == [("book/ch1", 1)]


def test_an_epub_missing_a_stylesheet_its_manifest_lists_is_read() -> None:
    """A book whose manifest lists a stylesheet the archive lacks was refused
    whole ("broken EPUB (There is no item named 'style.css' ...)"), though the
    reader never looks at stylesheets; a missing image was already no matter.
    Both are read, with the chapter's text."""
    from jw_rag.ingest._source import Loaded
    from jw_rag.ingest.epub import parse_epub_bytes
    from tests.robust.hostile_files import OPF, epub_bytes

    opf = OPF.replace(
        b"</manifest>",
        b'<item id="css" href="style.css" media-type="text/css"/>'
        b'<item id="img" href="cover.jpg" media-type="image/jpeg"/></manifest>',
    )
    docs = parse_epub_bytes(
        Loaded(data=epub_bytes(opf=opf), name="book.epub", path=Path("book.epub"))
    )
    assert [(d.source_id, [p.text for p in d.paragraphs]) for d in docs] == [
        ("book/ch1", ["One", "A paragraph of the chapter."])
    ]


@pytest.mark.parametrize("charset", ["utf-16", "UTF-16LE", "utf-32"])
def test_a_page_that_declares_utf16_but_is_not_is_refused_not_read_as_mojibake(
    charset: str,
) -> None:
    """A page in a one-byte encoding whose <meta> says UTF-16 (a declaration
    that can be read as ASCII is not in UTF-16) was decoded as UTF-16 and
    stored as CJK-looking garbage. The declaration is not believed (HTML's
    own rule takes it for UTF-8): the page is refused with the advice its
    bytes call for."""
    from jw_rag.errors import IngestError
    from jw_rag.ingest._html_walk import read_page

    data = (
        f'<meta charset="{charset}"><html><body><p>Canción del corazón!</p></body></html>'
    ).encode("latin-1")
    with pytest.raises(IngestError, match=r"is not UTF-8 .*looks like cp1252"):
        read_page(data, "p.html")


def test_a_page_whose_xml_declaration_names_its_encoding_is_decoded_by_it() -> None:
    """An XHTML page (or EPUB chapter) in ISO-8859-1 that says so in its XML
    declaration, as XML does, was refused ("is not UTF-8 ... convert it with
    iconv"): only a <meta> charset was looked for. The declaration is read the
    same way; a page that is valid UTF-8 is still read as UTF-8."""
    from jw_rag.ingest._html_walk import read_page

    latin = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
        "<body><p>Canción del corazón</p></body></html>"
    )
    page = read_page(latin.encode("latin-1"), "ch.xhtml")
    assert [p.text for p in page.paragraphs] == ["Canción del corazón"]
    page = read_page(latin.encode("utf-8"), "ch.xhtml")
    assert [p.text for p in page.paragraphs] == ["Canción del corazón"]
