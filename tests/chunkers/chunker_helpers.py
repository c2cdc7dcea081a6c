"""Small shared pieces of the chunker tests: a hand-checkable embedder, a chunk summary."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jw_rag.model import Chunk


class TopicEmbedder:
    """A text's vector counts its topic words (normalised): hand-checkable distances."""

    model_id = "topic-test"

    def __init__(self, topics: Sequence[str] = ("cat", "stock", "rain")) -> None:
        self.topics = list(topics)
        self.dim = len(self.topics) + 1
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            low = text.lower()
            for k, topic in enumerate(self.topics):
                out[i, k] = low.count(topic)
            if not out[i].any():
                out[i, -1] = 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def summary(chunks: Sequence[Chunk], *keys: str) -> list[tuple[object, ...]]:
    """(text, span as a tuple, then the asked metadata) for each chunk."""
    out = []
    for c in chunks:
        s = c.metadata["span"]
        span = (s["start_para"], s["start_char"], s["end_para"], s["end_char"])
        out.append((c.text, span, *(c.metadata.get(k) for k in keys)))
    return out
