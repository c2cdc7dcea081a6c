"""Embedders and chunk builders shared by the store tests and the child
processes they start (imported by path, so keep it dependency-free)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from jw_rag.embed import FakeEmbedder
from jw_rag.model import Chunk


class CountingEmbedder(FakeEmbedder):
    """The toolkit's deterministic fake embedder, counting calls, with a settable model id."""

    def __init__(self, dim: int = 32, model_id: str | None = None) -> None:
        super().__init__(dim)
        if model_id:
            self.model_id = model_id
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        return super().embed(texts)


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
