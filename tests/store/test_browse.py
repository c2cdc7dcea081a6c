"""Browsing a store: sources a page at a time, one chunk with its neighbours."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_rag.chunk_context import chunk_with_neighbours
from jw_rag.chunkers import get_chunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import StoreError
from jw_rag.ingest import ingest_markdown
from jw_rag.source_list import list_sources
from jw_rag.store import open_store

# 200 to 1,000 characters each: the default units keep every paragraph a unit of its own
PARAGRAPHS = [
    f"Paragraph number {i} says something different. " + "It argues its point at length. " * 6
    for i in range(5)
]


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = open_store(tmp_path / "s.sqlite", embedder=FakeEmbedder())
    one_each = get_chunker("paragraph", min_chars=0)
    for name in ("b", "a", "c"):
        path = tmp_path / f"{name}.md"
        path.write_text(f"# Title {name}\n\n" + "\n\n".join(PARAGRAPHS) + "\n", "utf-8")
        ingest_markdown(s, path, chunker=one_each, language="en")
    yield s
    s.close()


def test_sources_come_by_id_a_page_at_a_time(store) -> None:  # type: ignore[no-untyped-def]
    page = list_sources(store, offset=1, limit=1)
    assert page.total == 3 and page.offset == 1
    [entry] = page.sources
    assert (entry.source_id, entry.title, entry.language, entry.chunker, entry.chunks) == (
        "b", "Title b", "en", "paragraph", 5)  # fmt: skip
    assert entry.ingested_at
    assert [e.source_id for e in list_sources(store).sources] == ["a", "b", "c"]
    assert list_sources(store, offset=3).sources == []


def test_a_chunk_comes_with_its_neighbours_in_reading_order(store) -> None:  # type: ignore[no-untyped-def]
    ordered = sorted(
        (c for c in store.get([h.chunk.id for h in store.search("number", 50, mode="bm25")])
         if c.source_id == "b" and "chunk_index" in c.metadata),
        key=lambda c: c.metadata["chunk_index"],
    )  # fmt: skip
    assert len(ordered) == 5
    middle = chunk_with_neighbours(store, ordered[2].id, before=1, after=5)
    assert middle.chunk.id == ordered[2].id
    assert [c.id for c in middle.before] == [ordered[1].id]
    assert [c.id for c in middle.after] == [c.id for c in ordered[3:]]
    first = chunk_with_neighbours(store, ordered[0].id, before=3)
    assert first.before == [] and first.after == []
    with pytest.raises(StoreError, match="no chunk 'x' in the store"):
        chunk_with_neighbours(store, "x")
