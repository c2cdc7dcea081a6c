"""The embedding chunker embeds a document's sentences in bounded batches: one
call for all of them handed the embedder the whole document at once (200,000
sentences through the cached fake embedder peaked at 4.5 times the vectors'
size inside that call). The vectors, and so the chunks, are the same."""

from __future__ import annotations

from collections.abc import Sequence
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jw_rag.chunkers.embedding_chunker as module
from jw_rag.chunkers import EmbeddingChunker
from jw_rag.chunkers.embedding_chunker import sentence_units
from jw_rag.chunkers.validate import check_chunks
from jw_rag.embed import FakeEmbedder
from jw_rag.model import Chunk, Paragraph

EN = {"language": "en"}
WORDS = ["Cats", "purr", "stocks", "fell", "rain", "soil", "roots", "drink", "light", "stone"]


class _Counting(FakeEmbedder):
    """The fake embedder, remembering how many texts each call was given."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.sizes: list[int] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.sizes.append(len(texts))
        return super().embed(texts)


def _chunks(paras: list[str], batch: int, **options: object) -> tuple[list[Chunk], list[int]]:
    embedder = _Counting()
    with mock.patch.object(module, "EMBED_BATCH", batch):
        chunks = EmbeddingChunker(embedder=embedder, **options).chunk(paras, "d", metadata=EN)
    return chunks, embedder.sizes


def _same(a: list[Chunk], b: list[Chunk]) -> bool:
    return [(c.id, c.text, c.metadata) for c in a] == [(c.id, c.text, c.metadata) for c in b]


def test_a_long_document_goes_to_the_embedder_a_bounded_batch_at_a_time() -> None:
    paras = [
        " ".join(
            f"{WORDS[(i * 7 + j) % 10].capitalize()} {WORDS[(i + j * 3) % 10]} {i} {j}."
            for j in range(9)
        )
        for i in range(1_000)
    ]
    n = len(sentence_units([Paragraph(p) for p in paras], 1500, "en"))
    assert n > module.EMBED_BATCH  # 9,000 sentences
    chunker = EmbeddingChunker(embedder=_Counting())
    chunks = chunker.chunk(paras, "d", metadata=EN)
    sizes = chunker.embedder.sizes  # type: ignore[attr-defined]
    assert sum(sizes) == n and max(sizes) == module.EMBED_BATCH
    assert (chunker.embed_calls, chunker.texts_embedded) == (len(sizes), n)
    check_chunks(paras, chunks, max_len=1500)
    whole, calls = _chunks(paras, n)  # one call for every sentence, as before
    assert calls == [n] and _same(chunks, whole)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    paras=st.lists(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(
            lambda ws: " ".join(ws).capitalize() + "."
        ),
        min_size=1,
        max_size=30,
    ).map(lambda sents: [" ".join(sents[i : i + 3]) for i in range(0, len(sents), 3)]),
    batch=st.integers(1, 7),
    window=st.integers(1, 4),
    min_chars=st.integers(0, 80),
)
def test_batched_and_unbatched_embedding_cut_the_same_chunks(
    paras: list[str], batch: int, window: int, min_chars: int
) -> None:
    options = {"window": window, "min_chars": min_chars, "max_chars": 160, "top_percent": 20}
    batched, sizes = _chunks(paras, batch, **options)
    whole, calls = _chunks(paras, 10**6, **options)
    assert _same(batched, whole)
    assert sum(sizes) == sum(calls) and all(size <= batch for size in sizes)
    assert len(calls) <= 1
