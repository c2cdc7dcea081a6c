"""Embedders and chunk builders shared by the store tests and the child
processes they start (imported by path, so keep it dependency-free)."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from jw_rag.model import Chunk

_WORD = re.compile(r"\w+")


@lru_cache(maxsize=100_000)
def _word_vector(word: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
    return np.random.default_rng(seed).standard_normal(dim)


class WordEmbedder:
    """Deterministic bag of hashed words: texts sharing words get close vectors."""

    def __init__(self, dim: int = 32, model_id: str | None = None, delay: float = 0.0) -> None:
        self.dim = dim
        self.model_id = model_id or f"test-words-{dim}"
        self.delay = delay
        self.calls = 0

    def _word(self, word: str) -> np.ndarray:
        return _word_vector(word, self.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        out = np.zeros((len(texts), self.dim))
        for i, t in enumerate(texts):
            for w in _WORD.findall(t.lower()) or [t]:
                out[i] += self._word(w)
        out /= np.linalg.norm(out, axis=1, keepdims=True) + 1e-12
        return out.astype(np.float32)


class TableEmbedder:
    """Looks each text up in a table of vectors (normalised), for exact rankings."""

    def __init__(self, table: Mapping[str, Sequence[float]], model_id: str = "table") -> None:
        first = next(iter(table.values()))
        self.dim = len(first)
        self.model_id = model_id
        self.table = {
            k: np.asarray(v, dtype=np.float32) / np.linalg.norm(v) for k, v in table.items()
        }

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.table[t] for t in texts]).astype(np.float32)


def make_chunks(source_id: str, n: int, tag: str = "", language: str = "en") -> list[Chunk]:
    """``n`` small chunks of ``source_id`` with the provenance keys chunkers set."""
    return [
        Chunk(
            id=f"{source_id}:{i}",
            text=f"{tag} paragraph {i} of {source_id} about lamps and oil number{i % 97}",
            source_id=source_id,
            metadata={
                "chunker": "paragraph",
                "chunker_version": "1",
                "language": language,
                "chunk_index": i,
                "pages": [1 + i // 10],
                "para_ids": [i],
            },
        )
        for i in range(n)
    ]
