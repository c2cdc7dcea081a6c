"""Within one ingest no document overwrites another: an EPUB with ``ch.xhtml``
and ``ch.html``, a JWPUB with two documents sharing a MEPS document id and a
backup with two notes sharing a GUID store every one of them, under ids that
are the same in every run; ids that cannot be told apart are refused before
anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import IngestError
from jw_rag.ingest import ingest_epub, ingest_jw_library_backup, ingest_jwpub
from jw_rag.store import SQLiteStore
from tests.jwpub.jw_formats_builder import Doc, Note, write_backup, write_jwpub, zip_bytes
from tests.robust.hostile_files import CONTAINER


def _chapter(text: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
        f"<head><title>t</title></head><body><p>{text}</p></body></html>"
    ).encode()


def epub_with_chapters(path: Path, chapters: dict[str, str]) -> Path:
    """An EPUB whose spine holds ``chapters`` (file name -> its one paragraph), in order."""
    items = "".join(
        f'<item id="c{i}" href="{name}" media-type="application/xhtml+xml"/>'
        for i, name in enumerate(chapters)
    )
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    opf = (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">x'
        "</dc:identifier><dc:title>Book</dc:title><dc:language>en</dc:language></metadata>"
        f"<manifest>{items}</manifest><spine>{spine}</spine></package>"
    ).encode()
    members = {"mimetype": b"application/epub+zip", "META-INF/container.xml": CONTAINER}
    members["content.opf"] = opf
    members.update({name: _chapter(text) for name, text in chapters.items()})
    path.write_bytes(zip_bytes(members))
    return path


def _stored(store: SQLiteStore) -> dict[str, list[str]]:
    ids = [h.chunk.id for h in store.search("words", k=100, mode="bm25")]
    out: dict[str, list[str]] = {}
    for c in store.get(ids):
        out.setdefault(c.source_id, []).append(c.text)
    return out


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    with SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16)) as s:
        yield s  # type: ignore[misc]


def test_epub_chapters_differing_only_in_extension_are_both_stored(
    tmp_path: Path, store: SQLiteStore
) -> None:
    book = epub_with_chapters(
        tmp_path / "book.epub",
        {
            "ch.xhtml": "First words here.",
            "ch.html": "Second words here.",
            "end.xhtml": "End words.",
        },
    )
    results = ingest_epub(store, book)
    assert [(r.source_id, r.skipped) for r in results] == [
        ("book/ch.xhtml", False),
        ("book/ch.html", False),
        ("book/end", False),
    ]
    assert _stored(store) == {
        "book/ch.xhtml": ["First words here."],
        "book/ch.html": ["Second words here."],
        "book/end": ["End words."],
    }
    again = ingest_epub(store, book)  # the same ids in every run: nothing rewritten
    assert [(r.source_id, r.skipped) for r in again] == [(r.source_id, True) for r in results]


def test_jwpub_documents_sharing_a_meps_id_are_both_stored(
    tmp_path: Path, store: SQLiteStore
) -> None:
    page = "<html><body><article><p data-pid='1'>{} words.</p></article></body></html>"
    pub = write_jwpub(
        tmp_path / "tp.jwpub",
        [
            Doc(1, 500, "One", page.format("First")),
            Doc(2, 500, "Two", page.format("Second")),
            Doc(3, 501, "Three", page.format("Third")),
        ],
    )
    results = ingest_jwpub(store, pub, language="en")
    assert [r.source_id for r in results] == [
        "jwpub:tp:2024:500:0:doc1",
        "jwpub:tp:2024:500:0:doc2",
        "jwpub:tp:2024:501:0",
    ]
    assert _stored(store) == {
        "jwpub:tp:2024:500:0:doc1": ["First words."],
        "jwpub:tp:2024:500:0:doc2": ["Second words."],
        "jwpub:tp:2024:501:0": ["Third words."],
    }


def test_backup_notes_sharing_a_guid_are_both_stored(
    tmp_path: Path, store: SQLiteStore, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = write_backup(
        tmp_path / "b.jwlibrary",
        [
            Note("guid-a", "First", "first note words"),
            Note("guid-a", "Second", "second note words"),
            Note("guid-b", "Third", "third note words"),
        ],
    )
    results = ingest_jw_library_backup(store, backup, language="en")
    assert [r.source_id for r in results] == [
        "jwlibrary:note:guid-a:1",
        "jwlibrary:note:guid-a:2",
        "jwlibrary:note:guid-b",
    ]
    assert sorted(_stored(store)) == [r.source_id for r in results]
    code = main(
        ["--store", str(tmp_path / "cli.sqlite"), "--embedder", "fake:16", "rag", "ingest"]
        + ["backup", str(backup), "--language", "en"]
    )
    out = capsys.readouterr().out
    assert code == 0 and out.splitlines()[-1] == "3 sources, 3 stored, 3 chunks"


def test_ids_that_cannot_be_told_apart_are_refused(tmp_path: Path, store: SQLiteStore) -> None:
    # "ch.html" would take "book/ch.html", the id "ch.html.xhtml" already has
    book = epub_with_chapters(
        tmp_path / "book.epub",
        {"ch.xhtml": "One words.", "ch.html": "Two words.", "ch.html.xhtml": "Three words."},
    )
    with pytest.raises(IngestError) as info:
        ingest_epub(store, book)
    assert str(info.value) == (
        f"two documents of {book} would share the id 'book/ch.html' and one would overwrite "
        "the other; nothing was stored: give the file to ingest a distinct id for each, or "
        "split it"
    )
    assert store.stats()["sources"] == 0
