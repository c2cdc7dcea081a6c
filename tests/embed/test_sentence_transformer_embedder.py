"""SentenceTransformerEmbedder without torch: missing package, missing model, and a
stand-in ``sentence_transformers`` module for the load and encode path."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from jw_rag.embed import SentenceTransformerEmbedder, get_embedder
from jw_rag.errors import EmbeddingError, MissingDependencyError


class _FakeModel:
    loads: list[tuple[str, dict]] = []

    def __init__(self, target: str, **kwargs) -> None:
        if "missing" in target:
            raise OSError(f"We couldn't connect to 'https://huggingface.co' to load {target}")
        _FakeModel.loads.append((target, kwargs))

    def get_sentence_embedding_dimension(self) -> int:
        return 3

    def encode(self, texts, **kwargs):
        return np.array([[len(t) + 1.0, 1.0, 0.0] for t in texts], dtype=np.float64)


@pytest.fixture
def fake_st(monkeypatch):
    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = _FakeModel
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    _FakeModel.loads = []
    return module


def test_missing_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import fails
    emb = get_embedder("st", cache=False)
    with pytest.raises(
        MissingDependencyError,
        match=r"`pip install 'jw-rag\[local-embeddings\]'` "
        r"\(in a checkout: `uv sync --all-packages --extra local-embeddings`\)$",
    ) as info:
        emb.embed(["x"])
    assert info.value.extra == "local-embeddings" and "\n" not in str(info.value)


def test_loads_offline_once_and_normalises(fake_st):
    emb = SentenceTransformerEmbedder("my-model", dim=3)
    assert _FakeModel.loads == []  # nothing loaded by the constructor
    vecs = emb.embed(["ab", "abcd"])
    emb.embed(["more"])
    assert _FakeModel.loads == [
        ("sentence-transformers/my-model", {"device": "cpu", "local_files_only": True})
    ]
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    np.testing.assert_allclose(vecs, [[3, 1, 0], [5, 1, 0]] / np.sqrt([[10], [26]]), rtol=1e-6)
    assert vecs.dtype == np.float32


def test_dim_unknown_until_loaded(fake_st):
    emb = SentenceTransformerEmbedder("org/other-model")
    assert emb.dim == 3
    assert _FakeModel.loads[0][0] == "org/other-model"
    assert emb.embed([]).shape == (0, 3)


def test_known_model_dim_needs_no_load(fake_st):
    assert SentenceTransformerEmbedder().dim == 384
    assert _FakeModel.loads == []


def test_model_not_on_disk_says_how_to_get_it(fake_st):
    emb = SentenceTransformerEmbedder("missing-model", dim=3)
    with pytest.raises(EmbeddingError) as info:
        emb.embed(["x"])
    message = str(info.value)
    assert "huggingface-cli download sentence-transformers/missing-model" in message
    assert "local model directory" in message and "\n" not in message


def test_local_directory(fake_st, tmp_path):
    model_dir = tmp_path / "minilm"
    model_dir.mkdir()
    emb = get_embedder(f"sentence-transformers:{model_dir}", cache=False, dim=3)
    assert emb.model_id == f"st:{model_dir.resolve()}"
    emb.embed(["x"])
    assert _FakeModel.loads[0][0] == str(model_dir.resolve())


def test_wrong_shape_from_model_is_an_error(fake_st):
    emb = SentenceTransformerEmbedder("my-model", dim=4)
    with pytest.raises(EmbeddingError, match="3-dimensional vectors, expected 4"):
        emb.embed(["x"])
