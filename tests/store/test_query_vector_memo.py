"""The store's memo of its last query's vector (``Store.query_vector``, #30) on
SQLite and PostgreSQL: it never answers with another query's vector, another
model's, a vector a caller changed, or a vector that failed to embed."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from jw_rag.embed import FakeEmbedder
from jw_rag.errors import EmbeddingError
from jw_rag.model import Chunk
from jw_rag.store import Store

StoreFactory = Callable[..., Store]
TEXTS = [f"Paragraph {i} about gardens, water and the number {i * 7}." for i in range(12)]


def _filled(make: StoreFactory, embedder: object) -> Store:
    store = make(embedder)
    store.add([Chunk(id=f"c{i}", text=t, source_id="g") for i, t in enumerate(TEXTS)])
    return store


def _ranking(store: Store, query: str) -> list[tuple[str, float]]:
    return [(h.chunk.id, round(h.score, 6)) for h in store.search(query, k=5)]


class BreakingEmbedder(FakeEmbedder):
    """Embeds passages as FakeEmbedder; a query holding ``boom`` raises, one
    holding ``nan`` comes back as NaN."""

    def __init__(self) -> None:
        super().__init__(dim=32)

    def embed_queries(self, texts: Sequence[str]):  # type: ignore[no-untyped-def]
        if any("boom" in t for t in texts):
            raise EmbeddingError("the query embedder is down")
        out = np.array(self.embed(texts))
        out[[i for i, t in enumerate(texts) if "nan" in t]] = np.nan
        return out


def test_changing_the_returned_vector_changes_no_later_search(store_factory: StoreFactory) -> None:
    store = _filled(store_factory, FakeEmbedder(dim=32))
    before = _ranking(store, "gardens")
    vector = store.query_vector("gardens")
    assert vector is not None
    vector *= -1  # the caller's own array
    vector[:] = np.nan
    assert _ranking(store, "gardens") == before
    again = store.query_vector("gardens")
    assert again is not None and np.isfinite(again).all()
    assert np.allclose(again, FakeEmbedder(dim=32).embed(["gardens"])[0])


def test_each_query_gets_its_own_vector_in_turn(store_factory: StoreFactory) -> None:
    embedder = FakeEmbedder(dim=32)
    store = _filled(store_factory, embedder)
    for query in ["gardens", "water", "gardens", "gardens ", "Gardens", ""]:
        got = store.query_vector(query)
        assert got is not None
        assert np.array_equal(got, embedder.embed([query])[0]), query


def test_two_stores_of_two_models_keep_their_own_vectors(store_factory: StoreFactory) -> None:
    small, large = FakeEmbedder(dim=16), FakeEmbedder(dim=48)
    a, b = _filled(store_factory, small), _filled(store_factory, large)
    for _ in range(2):
        va, vb = a.query_vector("water"), b.query_vector("water")
        assert va is not None and vb is not None
        assert va.shape == (16,) and vb.shape == (48,)
        assert np.array_equal(va, small.embed(["water"])[0])
        assert np.array_equal(vb, large.embed(["water"])[0])


def test_threads_searching_one_store_never_get_another_querys_vector(
    store_factory: StoreFactory,
) -> None:
    embedder = FakeEmbedder(dim=32)
    store = _filled(store_factory, embedder)
    queries = [f"question {i} about water number {i}" for i in range(8)]
    expected = {q: embedder.embed([q])[0] for q in queries}
    wrong: list[str] = []

    def ask(query: str) -> None:
        for _ in range(25):
            got = store.query_vector(query)
            if got is None or not np.array_equal(got, expected[query]):
                wrong.append(query)

    threads = [threading.Thread(target=ask, args=(q,)) for q in queries]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def test_a_query_that_fails_to_embed_leaves_no_vector_behind(store_factory: StoreFactory) -> None:
    store = _filled(store_factory, BreakingEmbedder())
    good = store.query_vector("water")
    for bad, message in [("boom water", "down"), ("nan water", "NaN or infinite")]:
        for _ in range(2):  # asking again fails again: nothing was kept
            with pytest.raises(EmbeddingError, match=message):
                store.query_vector(bad)
            with pytest.raises(EmbeddingError, match=message):
                store.search(bad, k=3)
    again = store.query_vector("water")
    assert good is not None and again is not None and np.array_equal(good, again)
