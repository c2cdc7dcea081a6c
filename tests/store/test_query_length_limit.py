"""A search query is at most MAX_QUERY_CHARS characters, at every entry point:
a query of 10 MB held a PostgreSQL read for minutes (and an MCP read worker
past its deadline). At the limit a search works; one character over is
refused in one line naming the limit and the fix, before anything is
embedded; the store is unchanged."""

from __future__ import annotations

import time

import pytest

from jw_rag.errors import ConfigError
from jw_rag.limits import MAX_QUERY_CHARS
from jw_rag.retrieve import retrieve
from jw_rag.store import check_search
from tests.store.conftest import StoreFactory
from tests.store.store_helpers import CountingEmbedder, make_chunks


def _at_limit(word: str = "lamps and oil ") -> str:
    return (word * (MAX_QUERY_CHARS // len(word) + 1))[:MAX_QUERY_CHARS]


def test_the_limit_is_a_few_thousand_characters() -> None:
    # longer than any real question (the public sets' longest is 295) and a
    # pasted window unit (2,000 by default); far below what held a worker
    assert 2_000 <= MAX_QUERY_CHARS <= 10_000


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_a_query_at_the_limit_is_searched_and_one_over_is_refused(
    store_factory: StoreFactory, mode: str
) -> None:
    embedder = CountingEmbedder()
    store = store_factory(embedder)
    store.add(make_chunks("book", 5))
    before = store.stats()
    hits = store.search(_at_limit(), k=3, mode=mode)  # type: ignore[arg-type]
    assert len(hits) == 3
    embedded = embedder.calls
    with pytest.raises(ConfigError) as caught:
        store.search(_at_limit() + "x", k=3, mode=mode)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message
    assert f"{MAX_QUERY_CHARS + 1:,} characters" in message
    assert f"limit of {MAX_QUERY_CHARS:,}" in message and "MAX_QUERY_CHARS" in message
    assert embedder.calls == embedded  # refused before the query was embedded
    assert store.stats() == before


def test_retrieve_refuses_a_huge_query_at_once(store_factory: StoreFactory) -> None:
    store = store_factory()
    store.add(make_chunks("book", 5))
    huge = "a " * 5_000_000  # 10 MB
    start = time.perf_counter()
    with pytest.raises(ConfigError, match="over the limit"):
        retrieve(store, huge, 3, mode="hybrid")
    assert time.perf_counter() - start < 1.0
    assert store.stats()["chunks"] == 5


def test_the_limit_counts_characters_not_bytes() -> None:
    # 4 bytes each in UTF-8: a query at the limit in characters is searched
    check_search("\U0001f600" * MAX_QUERY_CHARS, 3)
    with pytest.raises(ConfigError, match="over the limit"):
        check_search("é" * (MAX_QUERY_CHARS + 1), 3)


def test_hostile_distinct_words_at_the_limit_search_in_reasonable_time(
    store_factory: StoreFactory,
) -> None:
    # the most distinct words a query at the limit can hold: two letters each
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = [a + b for a in letters for b in letters]
    query = " ".join(words * 3)[:MAX_QUERY_CHARS]
    store = store_factory()
    store.add(make_chunks("book", 20))
    start = time.perf_counter()
    store.search(query, k=5, mode="bm25")
    assert time.perf_counter() - start < 10.0


def test_concurrent_searches_of_huge_queries_are_all_refused(store_factory: StoreFactory) -> None:
    from tests.threads import run_at_once

    store = store_factory()
    store.add(make_chunks("book", 3))
    huge = "word " * 400_000
    errors = run_at_once(lambda: store.search(huge, k=3, mode="bm25"), 8)
    assert len(errors) == 8 and all(isinstance(e, ConfigError) for e in errors)
    assert [h.chunk.source_id for h in store.search("lamps", k=1, mode="bm25")] == ["book"]


def test_the_other_ways_a_query_is_embedded_keep_the_limit(store_factory: StoreFactory) -> None:
    from jw_rag.retrieve import expand_hits

    embedder = CountingEmbedder()
    store = store_factory(embedder)
    store.add(make_chunks("book", 5))
    hits = store.search("lamps", k=2)
    embedded = embedder.calls
    huge = "lamps " * 1_000_000
    with pytest.raises(ConfigError, match="over the limit"):
        store.query_vector(huge)
    with pytest.raises(ConfigError, match="over the limit"):
        expand_hits(store, hits, expand="segment", query=huge)
    assert embedder.calls == embedded
    assert store.query_vector(_at_limit()) is not None
    assert len(expand_hits(store, hits, expand="relevant", query=_at_limit())) == 2
