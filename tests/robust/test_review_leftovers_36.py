"""Leftovers of the review of the streaming parse (review 36): EPUB members the
spine does not list, and chapter ids from hostile member names; each test
failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_rag.embed import FakeEmbedder
from jw_rag.errors import IngestError
from jw_rag.ingest import ingest_epub
from jw_rag.ingest._source import Loaded
from jw_rag.ingest.epub import parse_epub_bytes
from jw_rag.store import SQLiteStore
from tests.jwpub.jw_formats_builder import zip_bytes
from tests.robust.hostile_files import CONTAINER, OPF


def _chapter(text: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
        f"<body><p>{text}</p></body></html>"
    ).encode()


def _book(manifest: str, spine: str, members: dict[str, bytes]) -> bytes:
    opf = OPF.replace(
        b'<item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/>',
        manifest.encode(),
    ).replace(b'<itemref idref="c1"/>', spine.encode())
    base = {"mimetype": b"application/epub+zip", "META-INF/container.xml": CONTAINER}
    return zip_bytes({**base, "content.opf": opf, **members})


def _item(id_: str, href: str, extra: str = "") -> str:
    return f'<item id="{id_}" href="{href}" media-type="application/xhtml+xml"{extra}/>'


def _read(data: bytes) -> list[tuple[str, list[str]]]:
    docs = parse_epub_bytes(Loaded(data=data, name="book.epub", path=Path("book.epub")))
    return [(d.source_id, [p.text for p in d.paragraphs]) for d in docs]


# -- 2. only the spine's members must be in the archive ---------------------------


@pytest.mark.parametrize(
    ("manifest", "spine_attr"),
    [
        (_item("c2", "c2.xhtml"), ""),  # a document the spine does not list
        (_item("nav", "nav.xhtml", ' properties="nav"'), ""),  # the EPUB 3 table of contents
        ('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>', ' toc="ncx"'),
        ('<item id="x" href="notes.xml" media-type="application/xml"/>', ""),
    ],
)
def test_a_missing_member_the_spine_does_not_list_leaves_the_book_readable(
    manifest: str, spine_attr: str
) -> None:
    """ebooklib reads every member the manifest lists, so one missing (here not
    in the archive at all) failed the whole book ("There is no item named
    'c2.xhtml' in the archive"). Only the spine's documents are read: the book is."""
    data = _book(
        _item("c1", "ch1.xhtml") + manifest,
        '<itemref idref="c1"/>',
        {"ch1.xhtml": _chapter("Gardens need water.")},
    ).replace(b"<spine>", f"<spine{spine_attr}>".encode())
    assert _read(data) == [("book/ch1", ["Gardens need water."])]


@pytest.mark.parametrize("nav", [b"", b"   ", b"\x00\x01"])
def test_an_unreadable_table_of_contents_leaves_the_book_readable(nav: bytes) -> None:
    """An empty navigation document (not in the spine) failed the book as
    "broken EPUB (Document is empty)": the table of contents is not read."""
    data = _book(
        _item("c1", "ch1.xhtml") + _item("nav", "nav.xhtml", ' properties="nav"'),
        '<itemref idref="c1"/>',
        {"ch1.xhtml": _chapter("Gardens need water."), "nav.xhtml": nav},
    )
    assert _read(data) == [("book/ch1", ["Gardens need water."])]


def test_a_missing_spine_document_is_still_a_one_line_error_naming_it() -> None:
    data = _book(
        _item("c1", "ch1.xhtml") + _item("c2", "text/ch2.xhtml"),
        '<itemref idref="c1"/><itemref idref="c2"/>',
        {"ch1.xhtml": _chapter("One.")},
    )
    with pytest.raises(IngestError) as info:
        _read(data)
    assert str(info.value) == (
        "book.epub is a broken EPUB (its spine lists 'text/ch2.xhtml', which the archive "
        "lacks); check the file"
    )


def test_a_missing_package_document_is_still_refused() -> None:
    data = zip_bytes({"mimetype": b"application/epub+zip", "META-INF/container.xml": CONTAINER})
    with pytest.raises(IngestError) as info:  # only the package document's absence is fatal
        _read(data)
    # named as the package document the container names (ebooklib's own words,
    # 'Can not find container file', named the container, which is there)
    assert str(info.value) == (
        "book.epub is a broken EPUB (META-INF/container.xml names the package document "
        "'content.opf', which the archive lacks); check the file"
    )


# -- 3. chapter ids from hostile member names --------------------------------------


@pytest.mark.parametrize(
    ("href", "member", "source_id"),
    [
        ("book/../../evil.xhtml", "../evil.xhtml", "book/evil"),
        ("../../../up/evil.xhtml", "../../../up/evil.xhtml", "book/up/evil"),
        ("/abs/evil.xhtml", "/abs/evil.xhtml", "book/abs/evil"),
        ("a\\..\\..\\evil.xhtml", "a\\..\\..\\evil.xhtml", "book/evil"),
        ("./text//ch.xhtml", "text/ch.xhtml", "book/text/ch"),
        ("%2E%2E/e.xhtml", "../e.xhtml", "book/e"),  # ebooklib unquotes the href
        # nothing left once normalised: the name percent-encoded
        ("..", "..", "book/%2E%2E"),
        ("x/..", ".", "book/x/%2E%2E"),
    ],
)
def test_a_chapter_id_has_no_dot_dot_part_and_no_leading_slash(
    href: str, member: str, source_id: str
) -> None:
    """The id kept the member's name as the manifest gave it ("book/../evil",
    "book//abs/evil", "book/a\\..\\..\\evil"): only ids, but something that
    takes ids for paths would climb out of its folder. Ids are normalised."""
    data = _book(_item("c1", href), '<itemref idref="c1"/>', {member: _chapter("Evil.")})
    ((got, texts),) = _read(data)
    assert (got, texts) == (source_id, ["Evil."])
    parts = got.replace("\\", "/").split("/")
    assert ".." not in parts and "" not in parts


def test_ordinary_chapter_ids_are_unchanged() -> None:
    data = _book(
        _item("c1", "text/ch1.xhtml") + _item("c2", "ch2.html") + _item("c3", "caf%C3%A9.xhtml"),
        '<itemref idref="c1"/><itemref idref="c2"/><itemref idref="c3"/>',
        {
            "text/ch1.xhtml": _chapter("One."),
            "ch2.html": _chapter("Two."),
            "café.xhtml": _chapter("Three."),
        },
    )
    assert [i for i, _ in _read(data)] == ["book/text/ch1", "book/ch2", "book/café"]


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    with SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16)) as s:
        yield s  # type: ignore[misc]


def test_two_members_one_normalised_name_keep_two_ids(tmp_path: Path, store: SQLiteStore) -> None:
    """``../evil.xhtml`` and ``evil.xhtml`` are two members whose ids normalise
    to one: each takes its distinct id (as ``ch.xhtml`` and ``ch.html`` do),
    the same in every run, and both are stored; none overwrites the other."""
    data = _book(
        _item("c1", "evil.xhtml") + _item("c2", "../evil.xhtml"),
        '<itemref idref="c1"/><itemref idref="c2"/>',
        {"evil.xhtml": _chapter("Plain words."), "../evil.xhtml": _chapter("Climbing words.")},
    )
    path = tmp_path / "book.epub"
    path.write_bytes(data)
    results = ingest_epub(store, path)
    assert [(r.source_id, r.skipped) for r in results] == [
        ("book/evil.xhtml", False),
        ("book/%2E%2E/evil.xhtml", False),
    ]
    for result in results:
        assert ".." not in result.source_id.split("/")
    again = ingest_epub(store, path)
    assert [(r.source_id, r.skipped) for r in again] == [(r.source_id, True) for r in results]
    assert store.stats()["sources"] == 2


def test_one_member_named_two_ways_is_one_chapter() -> None:
    """``a/../ch1.xhtml`` is the member ``ch1.xhtml``: listed both ways in the
    spine it is one document, like a chapter the spine lists twice."""
    data = _book(
        _item("c1", "ch1.xhtml") + _item("c2", "a/../ch1.xhtml"),
        '<itemref idref="c1"/><itemref idref="c2"/>',
        {"ch1.xhtml": _chapter("Once.")},
    )
    assert _read(data) == [("book/ch1", ["Once."])]
