"""FakeEmbedder: deterministic hashed bag of words."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jw_rag.embed import Embedder, FakeEmbedder
from jw_rag.errors import ConfigError


def test_shape_dtype_and_id():
    emb = FakeEmbedder(dim=32)
    assert isinstance(emb, Embedder)
    assert emb.model_id == "fake-32" and FakeEmbedder().dim == 64
    vecs = emb.embed(["one", "two words"])
    assert vecs.shape == (2, 32) and vecs.dtype == np.float32
    assert emb.embed([]).shape == (0, 32)


def test_same_words_same_vector_regardless_of_case_and_punctuation():
    emb = FakeEmbedder()
    a, b = emb.embed(["The cat sat.", "the CAT, sat!"])
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_shared_words_make_texts_closer():
    emb = FakeEmbedder(dim=256)
    q, near, far = emb.embed(
        ["the kingdom of god", "god's kingdom will come", "stock prices fell sharply"]
    )
    assert q @ near > 0.3 > 0.2 > abs(q @ far)


def test_stable_across_processes():
    code = (
        "from jw_rag.embed import FakeEmbedder; import sys;"
        "sys.stdout.write(FakeEmbedder(8).embed(['hello world']).tobytes().hex())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert bytes.fromhex(out.stdout) == FakeEmbedder(8).embed(["hello world"]).tobytes()


def test_rejects_bad_input():
    with pytest.raises(ConfigError, match="not a single string"):
        FakeEmbedder().embed("hello")
    with pytest.raises(ConfigError, match="got a int at position 1"):
        FakeEmbedder().embed(["a", 3])
    with pytest.raises(ConfigError, match="dim"):
        FakeEmbedder(dim=1)


@given(st.lists(st.text(max_size=40), max_size=8), st.integers(2, 48))
def test_unit_length_and_deterministic(texts, dim):
    emb = FakeEmbedder(dim)
    vecs = emb.embed(texts)
    assert vecs.shape == (len(texts), dim)
    if texts:
        np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(vecs, FakeEmbedder(dim).embed(texts))
