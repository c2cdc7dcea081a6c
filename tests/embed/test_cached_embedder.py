"""CachedEmbedder: each text embedded once per model, counters, persistence."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.embed import CachedEmbedder, EmbeddingCache, FakeEmbedder


class CountingEmbedder:
    def __init__(self, dim: int = 8) -> None:
        self.fake = FakeEmbedder(dim)
        self.model_id = self.fake.model_id
        self.dim = dim
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return self.fake.embed(texts) * 3.0  # not unit length: the wrapper normalises


def test_each_text_embedded_once_across_calls_and_within_a_batch(tmp_path):
    inner = CountingEmbedder()
    emb = CachedEmbedder(inner, EmbeddingCache(tmp_path / "c.sqlite"))
    first = emb.embed(["a b", "c", "a b", "c", "d"])
    assert inner.calls == [["a b", "c", "d"]]
    assert (emb.hits, emb.misses) == (0, 3)
    second = emb.embed(["d", "e", "a b"])
    assert inner.calls[1] == ["e"]
    assert (emb.hits, emb.misses) == (2, 4)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(second[0], first[4])
    np.testing.assert_array_equal(second[2], first[0])
    assert emb.model_id == "fake-8" and emb.dim == 8


def test_cache_survives_a_new_process_object(tmp_path):
    path = tmp_path / "c.sqlite"
    CachedEmbedder(CountingEmbedder(), EmbeddingCache(path)).embed(["x", "y"])
    inner = CountingEmbedder()
    emb = CachedEmbedder(inner, EmbeddingCache(path))
    emb.embed(["y", "x"])
    assert inner.calls == [] and emb.hits == 2


def test_models_do_not_share_entries(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    CachedEmbedder(CountingEmbedder(8), cache).embed(["x"])
    inner = CountingEmbedder(16)
    out = CachedEmbedder(inner, cache).embed(["x"])
    assert inner.calls == [["x"]] and out.shape == (1, 16)


def test_empty_input(tmp_path):
    inner = CountingEmbedder()
    out = CachedEmbedder(inner, EmbeddingCache(tmp_path / "c.sqlite")).embed([])
    assert out.shape == (0, 8) and out.dtype == np.float32 and inner.calls == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "", "ü ñ", "alpha beta"]), max_size=12))
def test_cached_equals_uncached(tmp_path_factory, texts):
    cache = EmbeddingCache(tmp_path_factory.mktemp("c") / "c.sqlite")
    emb = CachedEmbedder(FakeEmbedder(8), cache)
    once, twice = emb.embed(texts), emb.embed(texts)
    expected = FakeEmbedder(8).embed(texts)
    np.testing.assert_allclose(once, expected, atol=1e-6)
    np.testing.assert_array_equal(once, twice)
    assert emb.misses == len(set(texts)) and emb.hits == len(set(texts))


def test_cached_vectors_of_another_size_are_not_mixed_in(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    cache.put_many("fake-8", ["stale"], np.ones((1, 4), dtype=np.float32))  # wrong size
    inner = CountingEmbedder(8)
    out = CachedEmbedder(inner, cache).embed(["stale", "fresh"])
    assert out.shape == (2, 8)
    np.testing.assert_allclose(out, FakeEmbedder(8).embed(["stale", "fresh"]), atol=1e-6)
