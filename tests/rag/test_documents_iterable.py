"""``ingest_documents`` and ``chunk_documents`` take any iterable of documents
(annotated ``Iterable[Document]``): a generator is read once and gives what
the same list gives, and a generator that raises midway stores nothing, not
even the documents it gave before (all stored or none, as documented)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import get_type_hints

import pytest

from jw_rag import Document, Paragraph
from jw_rag.embed import FakeEmbedder
from jw_rag.ingest import SkippedFile
from jw_rag.ingest.pipeline import chunk_documents, ingest_documents
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore

TEXTS = {
    "garden": ["Gardens need water every morning.", "Soil keeps the water for the roots."],
    "river": ["The river runs to the sea.", "Fish swim against the current."],
    "bread": ["Bread rises in a warm kitchen."],
}


def _docs() -> list[Document]:
    return [
        Document(source_id=sid, paragraphs=[Paragraph(t) for t in texts], title=sid.title())
        for sid, texts in TEXTS.items()
    ]


def _stored(store: SQLiteStore) -> dict[str, list[str]]:
    """Each stored source's chunk texts (window units aside), in order."""
    with sqlite3.connect(store.stats()["path"]) as conn:
        rows = conn.execute("SELECT source_id, text FROM chunks ORDER BY source_id, ord").fetchall()
    out: dict[str, list[str]] = {}
    for sid, text in rows:
        out.setdefault(sid, []).append(text)
    return out


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    with SQLiteStore(tmp_path / "s.sqlite", embedder=FakeEmbedder()) as s:
        yield s


def test_the_annotations_say_any_iterable_of_documents() -> None:
    for func in (ingest_documents, chunk_documents):
        assert get_type_hints(func)["docs"] == Iterable[Document]


def test_a_generator_is_ingested_as_the_list_is(store: SQLiteStore, tmp_path: Path) -> None:
    results = ingest_documents(store, (d for d in _docs()))
    assert [(r.source_id, r.chunks, r.skipped) for r in results] == [
        ("garden", 1, False),
        ("river", 1, False),
        ("bread", 1, False),
    ]
    with SQLiteStore(tmp_path / "list.sqlite", embedder=FakeEmbedder()) as other:
        ingest_documents(other, _docs())
        assert _stored(store) == _stored(other)
    assert _stored(store)["river"] == [
        "The river runs to the sea.\n\nFish swim against the current."
    ]
    assert retrieve(store, "river sea fish", k=1)[0].chunk.source_id == "river"
    # read again from a new generator: every source is unchanged
    assert [r.skipped for r in ingest_documents(store, iter(_docs()))] == [True, True, True]


def test_chunk_documents_reads_a_generator_once_with_or_without_a_skipped_list() -> None:
    def ids(pairs: list[tuple[Document, list]]) -> list[tuple[str, list[str]]]:
        return [(d.source_id, [c.text for c in chunks]) for d, chunks in pairs]

    expected = ids(chunk_documents(_docs()))
    assert [sid for sid, _ in expected] == ["garden", "river", "bread"]
    assert ids(chunk_documents(d for d in _docs())) == expected
    skipped: list[SkippedFile] = []
    assert ids(chunk_documents((d for d in _docs()), skipped=skipped)) == expected
    assert skipped == []
    empty = Document(source_id="empty", paragraphs=[Paragraph("   ")])
    got = chunk_documents((d for d in [*_docs(), empty]), skipped=skipped)
    assert ids(got) == expected
    assert [(s.path, s.reason) for s in skipped] == [("empty", "the document has no text to index")]


class SourceGone(OSError):
    pass


def _raising_after(docs: list[Document], n: int) -> Iterator[Document]:
    yield from docs[:n]
    raise SourceGone("the third source could not be read")


@pytest.mark.parametrize("given_before", [0, 1, 2])
def test_a_generator_that_raises_midway_stores_nothing(
    store: SQLiteStore, given_before: int
) -> None:
    kept = Document(source_id="garden", paragraphs=[Paragraph("Old garden notes.")])
    ingest_documents(store, [kept])
    before = _stored(store)
    changed = [
        Document(source_id=d.source_id, paragraphs=[Paragraph("New text for " + d.source_id)])
        for d in _docs()
    ]
    with pytest.raises(SourceGone, match="the third source could not be read"):
        ingest_documents(store, _raising_after(changed, given_before))
    assert _stored(store) == before == {"garden": ["Old garden notes."]}
    # the store still takes the next ingest
    assert [r.source_id for r in ingest_documents(store, iter(changed))] == [
        "garden",
        "river",
        "bread",
    ]
    assert _stored(store)["garden"] == ["New text for garden"]


def test_chunk_documents_lets_a_generators_error_through() -> None:
    with pytest.raises(SourceGone):
        chunk_documents(_raising_after(_docs(), 1), skipped=[])
