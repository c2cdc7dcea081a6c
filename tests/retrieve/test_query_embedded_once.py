"""An uncached search embeds the query once: the store's search and segment
delivery share the vector (#30), and a new question is embedded again."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from jw_rag.embed import FakeEmbedder
from jw_rag.ingest import ingest_documents
from jw_rag.model import Document, Paragraph
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore


class CountingEmbedder(FakeEmbedder):
    """A two-sided embedder without any cache that counts query embeddings."""

    def __init__(self) -> None:
        super().__init__(dim=32)
        self.queries: list[str] = []

    def embed_queries(self, texts: Sequence[str]):  # type: ignore[no-untyped-def]
        self.queries.extend(texts)
        return self.embed(texts)


@pytest.mark.parametrize("expand", ["segment", "relevant", "none"])
def test_an_uncached_search_embeds_the_query_once(tmp_path: Path, expand: str) -> None:
    embedder = CountingEmbedder()
    store = SQLiteStore(tmp_path / "s.sqlite", embedder)
    try:
        paras = [Paragraph(f"Paragraph {i} on gardens and water, and why they matter. " * 4)
                 for i in range(12)]  # fmt: skip
        ingest_documents(store, [Document("g", paras, title="Gardens", language="en")])
        embedder.queries.clear()
        delivery = retrieve(store, "why do gardens need water", expand=expand)
        assert delivery and embedder.queries == ["why do gardens need water"]
        retrieve(store, "another question about water", expand=expand)
        assert embedder.queries[1:] == ["another question about water"]
        assert store.query_vector("another question about water") is not None
        assert len(embedder.queries) == 2  # asking the store again embeds nothing
    finally:
        store.close()


def test_an_empty_store_has_no_query_vector(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", CountingEmbedder())
    try:
        assert store.query_vector("anything") is None
        with pytest.raises(TypeError, match="query must be a str"):
            store.query_vector(None)  # type: ignore[arg-type]
    finally:
        store.close()
