"""The server's embedder: the configured one, called in batches under the current call.

Before each batch the call is checked (a call that timed out stops there,
before anything is written); after each batch its progress is reported
(``embedded 128 of 256 chunks``, counted within the store's batch). The
store marks the start of its write itself (:func:`jw_rag.store.before_writes`,
set up by :mod:`jw_mcp.workers`), once every batch of the write is embedded.
Outside a tool call (no current call) the texts go to the embedder in one call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jw_mcp import workers
from jw_rag.embed.protocol import Embedder, Vectors

__all__ = ["BATCH", "WatchedEmbedder"]

#: Texts embedded between two checks of the call.
BATCH = 64


class WatchedEmbedder:
    """``inner`` with the checks and progress of the module docstring."""

    def __init__(self, inner: Embedder, batch: int = BATCH) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._batch = batch

    def embed(self, texts: Sequence[str]) -> Vectors:
        call = workers.current()
        if call is None or not texts:
            return self.inner.embed(texts)
        parts = []
        for start in range(0, len(texts), self._batch):
            call.checkpoint()
            batch = texts[start : start + self._batch]
            parts.append(np.asarray(self.inner.embed(batch), dtype=np.float32))
            end = start + len(batch)
            call.report(len(batch), len(texts) - end, f"embedded {end} of {len(texts)} chunks")
        return np.concatenate(parts)
