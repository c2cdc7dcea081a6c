"""Models that embed queries and passages differently (e5) get each kind right:
stored text through ``embed``, searches through ``embed_queries``, cached apart."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from jw_rag.chunkers import ParagraphChunker
from jw_rag.embed import CachedEmbedder, EmbeddingCache, FakeEmbedder, embed_queries
from jw_rag.embed.protocol import QueryEmbedder
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore

PARAGRAPHS = [
    "The soul is the person himself, not an immortal part inside him.",
    "However, the soul who sins is the one who will die.",
    "Gardens need water every morning during the hot summer months.",
]


class TwoSided:
    """A fake model with a query side: queries get the vector of ``"asked " + text``."""

    def __init__(self) -> None:
        self.fake = FakeEmbedder(32)
        self.model_id = "two-sided-32"
        self.dim = 32
        self.passages: list[str] = []
        self.queries: list[str] = []

    def embed(self, texts):
        self.passages.extend(texts)
        return self.fake.embed(list(texts))

    def embed_queries(self, texts):
        self.queries.extend(texts)
        return self.fake.embed([f"asked {t}" for t in texts])


def test_protocol_and_fallback():
    two = TwoSided()
    assert isinstance(two, QueryEmbedder)
    assert not isinstance(FakeEmbedder(8), QueryEmbedder)
    plain = FakeEmbedder(8)
    np.testing.assert_array_equal(embed_queries(plain, ["a b"]), plain.embed(["a b"]))
    np.testing.assert_array_equal(embed_queries(two, ["a b"]), two.fake.embed(["asked a b"]))


def test_cache_keeps_query_vectors_apart(tmp_path: Path):
    two = TwoSided()
    cached = CachedEmbedder(two, EmbeddingCache(tmp_path / "c.sqlite"))
    q1 = cached.embed_queries(["soul"])
    p1 = cached.embed(["soul"])
    assert two.queries == ["soul"] and two.passages == ["soul"]
    assert float(q1[0] @ p1[0]) < 0.999
    q2 = cached.embed_queries(["soul"])  # answered from the cache
    assert two.queries == ["soul"]
    np.testing.assert_array_equal(q1, q2)
    assert (cached.hits, cached.misses) == (1, 2)


def test_cache_of_a_one_sided_model_shares_entries(tmp_path: Path):
    fake = FakeEmbedder(8)
    cached = CachedEmbedder(fake, EmbeddingCache(tmp_path / "c.sqlite"))
    p = cached.embed(["soul"])
    q = cached.embed_queries(["soul"])
    np.testing.assert_array_equal(p, q)
    assert (cached.hits, cached.misses) == (1, 1)


def test_store_and_retrieve_embed_the_query_as_a_query(tmp_path: Path):
    two = TwoSided()
    store = SQLiteStore(tmp_path / "s.sqlite", two)
    chunks = ParagraphChunker(min_chars=10).chunk(PARAGRAPHS, "art", metadata={"language": "en"})
    store.replace_source("art", chunks)
    stored = list(two.passages)
    assert len(stored) == len(PARAGRAPHS) and not two.queries
    assert len(store.search("does the soul die", 2, mode="dense")) == 2
    assert two.queries == ["does the soul die"] and two.passages == stored
    delivery = retrieve(store, "does the soul die", 2, mode="hybrid", expand="segment")
    # segment delivery compares stored vectors with the query: nothing else is embedded
    assert set(two.queries) == {"does the soul die"} and two.passages == stored
    assert len(delivery) >= 1
