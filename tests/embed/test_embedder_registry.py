"""get_embedder: names, the environment variable, caching wrapper, errors."""

from __future__ import annotations

import pytest

from jw_rag.embed import (
    CachedEmbedder,
    Embedder,
    FakeEmbedder,
    OllamaEmbedder,
    SentenceTransformerEmbedder,
    USEEmbedder,
    available_embedders,
    get_embedder,
)
from jw_rag.errors import ConfigError


def test_default_is_cached_use():
    emb = get_embedder()
    assert isinstance(emb, CachedEmbedder) and isinstance(emb.inner, USEEmbedder)
    assert isinstance(emb, Embedder) and emb.model_id == "use-multilingual-v3"
    assert isinstance(get_embedder(cache=False), USEEmbedder)


def test_env_var_chooses(monkeypatch):
    monkeypatch.setenv("JW_EMBEDDER", "fake:16")
    emb = get_embedder(cache=False)
    assert isinstance(emb, FakeEmbedder) and emb.dim == 16
    assert isinstance(get_embedder("use", cache=False), USEEmbedder)  # argument wins


@pytest.mark.parametrize(
    ("name", "cls", "model_id"),
    [
        ("fake", FakeEmbedder, "fake-64"),
        (" FAKE:8 ", FakeEmbedder, "fake-8"),
        ("st", SentenceTransformerEmbedder, "st:paraphrase-multilingual-MiniLM-L12-v2"),
        (
            "sentence-transformers",
            SentenceTransformerEmbedder,
            "st:paraphrase-multilingual-MiniLM-L12-v2",
        ),
        (
            "st:intfloat/multilingual-e5-small",
            SentenceTransformerEmbedder,
            "st:intfloat/multilingual-e5-small",
        ),
        ("ollama", OllamaEmbedder, "ollama:nomic-embed-text"),
        ("ollama:mxbai-embed-large", OllamaEmbedder, "ollama:mxbai-embed-large"),
    ],
)
def test_names(name, cls, model_id):
    emb = get_embedder(name, cache=False)
    assert isinstance(emb, cls) and emb.model_id == model_id


def test_kwargs_reach_the_constructor():
    assert get_embedder("fake", cache=False, dim=12).dim == 12
    assert get_embedder("use", cache=False, threads=1).threads == 1
    with pytest.raises(ConfigError, match="bad options for embedder 'fake'"):
        get_embedder("fake", nonsense=1)


def test_unknown_names_list_valid_ones(monkeypatch):
    with pytest.raises(
        ValueError, match=r"unknown embedder 'bert'; valid names: use, e5\[:enpt\], fake"
    ):
        get_embedder("bert")
    monkeypatch.setenv("JW_EMBEDDER", "nope")
    with pytest.raises(ConfigError, match=r"'nope' \(from \$JW_EMBEDDER\)"):
        get_embedder()
    with pytest.raises(ConfigError, match="takes no model name"):
        get_embedder("use:large")
    with pytest.raises(ConfigError, match="dimension"):
        get_embedder("fake:big")
    assert "use" in available_embedders()


def test_cached_wrapper_uses_default_cache_path(tmp_path):
    emb = get_embedder("fake")
    emb.embed(["hello"])
    assert emb.cache.path.exists()
    again = get_embedder("fake")
    again.embed(["hello"])
    assert (again.hits, again.misses) == (1, 0)


def test_stored_model_ids_map_back_to_names():
    from jw_rag.embed.registry import embedder_name

    for name in ("use", "e5", "e5:enpt", "fake:12"):
        assert embedder_name(get_embedder(name, cache=False).model_id) == name
    assert embedder_name("text-embedding-3-small") is None
    assert embedder_name("fake-x") is None
