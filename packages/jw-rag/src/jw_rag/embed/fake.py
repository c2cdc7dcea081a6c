"""A deterministic embedder for tests and offline demos: a bag of hashed words."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from jw_rag.embed._vectors import as_texts, empty, normalise_rows
from jw_rag.embed.protocol import Vectors
from jw_rag.errors import ConfigError

__all__ = ["FakeEmbedder"]

_WORD = re.compile(r"\w+")


#: Words whose vectors are kept: a text of 500,000 distinct numbers filled 65,536 entries
#: (about 45 MB at 64 dimensions); 8,192 hold a corpus's common words.
@lru_cache(maxsize=8192)
def _word_vector(word: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "big")
    return np.random.default_rng(seed).standard_normal(dim).astype(np.float32)


class FakeEmbedder:
    """Each lower-cased word maps to a fixed pseudo-random vector; a text's vector is
    the normalised sum of its words' vectors, so texts sharing words are close.

    The same text gives the same vector in every process and on every machine.
    A text without any word characters is hashed whole.
    """

    def __init__(self, dim: int = 64) -> None:
        if not isinstance(dim, int) or dim < 2:
            raise ConfigError(f"FakeEmbedder dim must be an integer of at least 2, got {dim!r}")
        self.dim = dim
        self.model_id = f"fake-{dim}"

    def _vector(self, text: str) -> np.ndarray:
        words = _WORD.findall(text.lower()) or [f"\x00{text}"]
        total = np.zeros(self.dim, dtype=np.float32)
        for word in words:
            total += _word_vector(word, self.dim)
        return total

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = as_texts(texts)
        if not items:
            return empty(self.dim)
        raw = np.stack([self._vector(t) for t in items])
        return normalise_rows(raw, len(items), self.dim, self.model_id)

    def __repr__(self) -> str:
        return f"FakeEmbedder(dim={self.dim})"
