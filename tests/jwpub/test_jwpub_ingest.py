"""JWPUB and JW Library backups ingested end to end into SQLiteStore, then searched."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_rag.chunkers.validate import check_chunks
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import IngestError
from jw_rag.ingest import (
    ingest_jw_library_backup,
    ingest_jwpub,
    parse_jw_library_backup,
    parse_jwpub,
)
from jw_rag.model import rebuild_text
from jw_rag.store import SQLiteStore
from jw_rag.windows import is_window
from tests.jwpub.jw_formats_builder import Doc, Note, write_backup, write_jwpub

CH1 = (
    "<html><body><article><h1>Why Pray?</h1>"
    '<p data-pid="1"><span class="parNum">1</span> Prayer lets us speak to our Creator '
    "at any hour, in any language.</p>"
    "<h2>What to Pray About</h2>"
    '<p data-pid="2">We may pray about our daily needs, our worries and our thanks.</p>'
    '<p data-pid="3">A short prayer said from the heart is heard.<sup>*</sup></p>'
    "</article></body></html>"
)
CH2 = (
    "<html><body><h1>Hope for the Dead</h1>"
    '<p data-pid="4">The resurrection hope comforts those who mourn a loved one.</p>'
    "</body></html>"
)
ES = (
    "<html><body><h1>La oración</h1>"
    '<p data-pid="1">Podemos hablar con nuestro Creador en cualquier momento y en '
    "cualquier idioma, porque él escucha a quienes le oran con sinceridad.</p></body></html>"
)


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "index.db", FakeEmbedder(dim=64))


def _pub(tmp_path: Path, **kw: object) -> Path:
    docs = [Doc(1, 1102024101, "Why Pray?", CH1), Doc(2, 1102024102, "Cover", ""),
            Doc(3, 1102024103, "Hope for the Dead", CH2)]  # fmt: skip
    return write_jwpub(tmp_path / "tp_E.jwpub", docs, symbol="tp", year=2024, **kw)  # type: ignore[arg-type]


def test_parse_jwpub_paragraphs_pids_and_headings(tmp_path: Path) -> None:
    docs = parse_jwpub(_pub(tmp_path))
    assert [d.source_id for d in docs] == [
        "jwpub:tp:2024:1102024101:0",
        "jwpub:tp:2024:1102024103:0",
    ]
    first = docs[0]
    assert first.title == "Why Pray?"
    assert first.language == "en"
    assert [(p.kind, p.id, p.text, p.heading_path) for p in first.paragraphs] == [
        ("heading", None, "Why Pray?", ("Why Pray?",)),
        ("p", "1", "Prayer lets us speak to our Creator at any hour, in any language.", ("Why Pray?",)),
        ("heading", None, "What to Pray About", ("Why Pray?", "What to Pray About")),
        ("p", "2", "We may pray about our daily needs, our worries and our thanks.",
         ("Why Pray?", "What to Pray About")),
        ("p", "3", "A short prayer said from the heart is heard.", ("Why Pray?", "What to Pray About")),
    ]  # fmt: skip
    assert first.metadata["symbol"] == "tp" and first.metadata["meps_document_id"] == 1102024101


def test_language_detected_when_meps_index_unknown_and_override(tmp_path: Path) -> None:
    path = write_jwpub(tmp_path / "x.jwpub", [Doc(1, 5, "La oración", ES)], meps_language_index=300)
    assert [d.language for d in parse_jwpub(path)] == ["es"]
    assert [d.language for d in parse_jwpub(path, language="pt")] == ["pt"]


def test_ingest_jwpub_end_to_end_and_search(store: SQLiteStore, tmp_path: Path) -> None:
    path = _pub(tmp_path)
    results = ingest_jwpub(store, path)
    assert [(r.source_id, r.skipped, r.language) for r in results] == [
        ("jwpub:tp:2024:1102024101:0", False, "en"),
        ("jwpub:tp:2024:1102024103:0", False, "en"),
    ]
    hits = store.search("resurrection hope mourn", k=3, mode="bm25")
    assert hits and hits[0].chunk.source_id == "jwpub:tp:2024:1102024103:0"
    # the <h1> (no data-pid) is named by its position, the paragraph by its pid
    assert hits[0].chunk.metadata["para_ids"] == [0, "4"]
    dense = store.search("pray daily needs worries", k=1, mode="dense")
    assert dense[0].chunk.source_id == "jwpub:tp:2024:1102024101:0"
    # provenance: stored chunks rebuild from the parsed paragraphs and cover them once
    for doc in parse_jwpub(path):
        found = store.search("the", k=50, mode="dense", filters={"source_id": doc.source_id})
        stored = [h.chunk for h in found if not is_window(h.chunk)]
        stored.sort(key=lambda c: c.metadata["chunk_index"])
        assert stored, doc.source_id
        check_chunks(doc.paragraphs, stored)
        for c in stored:
            assert rebuild_text(doc.paragraphs, c.metadata["span"]) == c.text
    # unchanged file: every document skipped
    assert [r.skipped for r in ingest_jwpub(store, path)] == [True, True]


def _snapshot(store: SQLiteStore) -> tuple[object, ...]:
    stats = store.stats()
    return (stats.get("chunks"), stats.get("sources"), [
        (h.chunk.id, h.chunk.text) for h in store.search("prayer hope", k=20, mode="bm25")
    ])  # fmt: skip


def test_bad_jwpub_leaves_store_unchanged(store: SQLiteStore, tmp_path: Path) -> None:
    ingest_jwpub(store, _pub(tmp_path))
    before = _snapshot(store)
    wrong_key = write_jwpub(
        tmp_path / "wrong.jwpub", [Doc(1, 9, "A", CH2), Doc(2, 10, "B", CH1)],
        key_card=(0, "tp", 1999, 0),
    )  # fmt: skip
    truncated = tmp_path / "cut.jwpub"
    truncated.write_bytes(_pub(tmp_path).read_bytes()[:300])
    not_zip = tmp_path / "text.jwpub"
    not_zip.write_text("just text")
    empty_pub = write_jwpub(tmp_path / "empty.jwpub", [Doc(1, 1, "Cover", "<p></p>")])
    backup = write_backup(tmp_path / "notes.jwlibrary", NOTES)
    for bad, expected in [
        (backup, "not a JWPUB"),
        (wrong_key, "does not decrypt"),
        (truncated, "not a ZIP archive"),
        (not_zip, "not a ZIP archive"),
        (empty_pub, "no document with text"),
    ]:
        with pytest.raises(IngestError) as err:
            ingest_jwpub(store, bad)
        assert expected in str(err.value) and bad.name in str(err.value)
        assert "\n" not in str(err.value)
    assert _snapshot(store) == before


NOTES = [
    Note("g-1", "God's love", "He gave his only-begotten Son.\nCompare 1 John 4:8.",
         tags=("love", "study"), location=("nwtsty", 43, 3, None, 0), block=(2, 16)),
    Note("g-2", "Endurance", "Endurance brings approval and hope.", tags=("study",),
         location=("w", None, None, 2024201, 20240100), block=(1, 5)),
    Note("g-3", "", "Un pensamiento en español sobre la oración y la paciencia de Dios."),
]  # fmt: skip


def test_parse_backup_one_document_per_note(tmp_path: Path) -> None:
    pairs = parse_jw_library_backup(write_backup(tmp_path / "b.jwlibrary", NOTES))
    docs = [d for d, _ in pairs]
    assert [d.source_id for d in docs] == [
        "jwlibrary:note:g-1",
        "jwlibrary:note:g-2",
        "jwlibrary:note:g-3",
    ]
    assert [(p.kind, p.text) for p in docs[0].paragraphs] == [
        ("heading", "God's love"),
        ("note", "He gave his only-begotten Son."),
        ("note", "Compare 1 John 4:8."),
    ]
    assert [d.language for d in docs] == ["en", "en", "es"]


def test_ingest_backup_metadata_search_and_rehash(store: SQLiteStore, tmp_path: Path) -> None:
    path = write_backup(tmp_path / "b.jwlibrary", NOTES)
    results = ingest_jw_library_backup(store, path)
    assert [(r.source_id, r.skipped) for r in results] == [
        ("jwlibrary:note:g-1", False), ("jwlibrary:note:g-2", False), ("jwlibrary:note:g-3", False),
    ]  # fmt: skip
    hit = store.search("only-begotten Son", k=1, mode="bm25")[0].chunk
    assert hit.source_id == "jwlibrary:note:g-1"
    assert hit.metadata["tags"] == ["love", "study"]
    assert hit.metadata["location"] == {
        "key_symbol": "nwtsty", "meps_language": 0, "book_number": 43, "chapter_number": 3, "verse": 16,
    }  # fmt: skip
    assert hit.metadata["last_modified"] == "2025-01-02T03:04:05+00:00"
    other = store.search("endurance approval", k=1, mode="hybrid")[0].chunk
    assert other.metadata["location"]["paragraph"] == 5
    assert [r.skipped for r in ingest_jw_library_backup(store, path)] == [True, True, True]
    # a tag change alone re-ingests that note only
    retagged = [NOTES[0], Note(**{**NOTES[1].__dict__, "tags": ("study", "hope")}), NOTES[2]]
    path2 = write_backup(tmp_path / "b2.jwlibrary", retagged)
    assert [r.skipped for r in ingest_jw_library_backup(store, path2)] == [True, False, True]
    assert store.search("endurance approval", k=1, mode="bm25")[0].chunk.metadata["tags"] == [
        "study",
        "hope",
    ]


def test_bad_backup_leaves_store_unchanged(store: SQLiteStore, tmp_path: Path) -> None:
    ingest_jw_library_backup(store, write_backup(tmp_path / "b.jwlibrary", NOTES))
    stats = store.stats()
    bad = tmp_path / "bad.jwlibrary"
    bad.write_bytes(b"PK\x03\x04 broken")
    with pytest.raises(IngestError, match="bad.jwlibrary"):
        ingest_jw_library_backup(store, bad)
    empty = write_backup(tmp_path / "empty.jwlibrary", [])
    with pytest.raises(IngestError, match="holds no notes"):
        ingest_jw_library_backup(store, empty)
    assert store.stats() == stats
