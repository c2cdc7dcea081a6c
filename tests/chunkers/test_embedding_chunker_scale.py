"""The embedding chunker's merge of small pieces stays near-linear on long texts of
short sentences (a transcript without paragraphs), and merges exactly as the rule says."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jw_rag.chunkers import EmbeddingChunker
from jw_rag.chunkers.embedding_chunker import _Lengths
from jw_rag.chunkers.validate import check_chunks
from jw_rag.embed import FakeEmbedder
from jw_rag.model import Paragraph


def _merge_one_at_a_time(chunker, segments, units, vectors, lengths):
    """The rule, written plainly: the smallest small piece (the first of equal
    sizes) merges with its more similar neighbour when the result fits, until
    none can."""

    def mean(seg):
        v = vectors[seg[0] : seg[1] + 1].astype(np.float64).sum(axis=0)
        return v / max(float(np.linalg.norm(v)), 1e-12)

    def size(seg):
        return lengths.of(units[seg[0]], units[seg[1]])

    segs, merged, stuck = list(segments), set(), set()
    while True:
        small = [(size(s), i) for i, s in enumerate(segs) if size(s) < chunker.min_chars]
        small = [(n, i) for n, i in small if segs[i] not in stuck]
        if not small:
            return segs, merged
        _, i = min(small)
        options = []
        for j in (i - 1, i + 1):
            if 0 <= j < len(segs):
                joined = (min(segs[i][0], segs[j][0]), max(segs[i][1], segs[j][1]))
                if size(joined) <= chunker.max_chars:
                    options.append((float(mean(segs[i]) @ mean(segs[j])), j, joined))
        if not options:
            stuck.add(segs[i])
            continue
        _, j, joined = max(options)
        merged -= {segs[i], segs[j]}
        merged.add(joined)
        segs[min(i, j) : min(i, j) + 2] = [joined]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lengths_=st.lists(st.integers(1, 40), min_size=1, max_size=40),
    cuts=st.sets(st.integers(1, 39)),
    topics=st.lists(st.integers(0, 2), min_size=40, max_size=40),
    min_chars=st.integers(0, 60),
    extra=st.integers(0, 80),
)
def test_small_pieces_merge_as_the_rule_says(lengths_, cuts, topics, min_chars, extra) -> None:
    text = " ".join("x" * n for n in lengths_)
    paras = [Paragraph(text=text, id="0")]
    units, at = [], 0
    for n in lengths_:
        units.append((0, at, at + n))
        at += n + 1
    bounds = [0, *sorted(c for c in cuts if c < len(units)), len(units)]
    segments = [(a, b - 1) for a, b in zip(bounds, bounds[1:], strict=False)]
    vectors = np.eye(3, dtype=np.float32)[topics[: len(units)]]
    chunker = EmbeddingChunker(
        embedder=FakeEmbedder(), min_chars=min_chars, max_chars=min_chars + extra + 1
    )
    lengths = _Lengths(paras)
    got = chunker._merge_small(segments, units, vectors, lengths)
    assert got == _merge_one_at_a_time(chunker, segments, units, vectors, lengths)


class _CountedLengths(_Lengths):
    calls = 0

    def of(self, first, last):  # type: ignore[no-untyped-def]
        type(self).calls += 1
        return super().of(first, last)


def test_a_long_text_of_short_sentences_merges_in_near_linear_work(monkeypatch) -> None:
    # 20,000 identical sentences: every boundary ties, so every sentence starts as a
    # piece of its own and merges up; the merge once rescanned every piece per merge
    # (400 million size checks here, minutes for a 1 MB transcript)
    monkeypatch.setattr("jw_rag.chunkers.embedding_chunker._Lengths", _CountedLengths)
    text = "This is a sentence of words. " * 20_000
    chunker = EmbeddingChunker(embedder=FakeEmbedder())
    chunks = chunker.chunk([text], "d", metadata={"language": "en"})
    check_chunks([text], chunks, max_len=1500)
    assert len(chunks) == 2494
    assert _CountedLengths.calls < 40 * 20_000


def _scores_whole(vectors: np.ndarray, window: int) -> np.ndarray:
    """Step 3 over the whole document at once (the running sums of every sentence)."""
    n = len(vectors)
    csum = np.vstack([np.zeros((1, vectors.shape[1])), np.cumsum(vectors, 0, dtype=np.float64)])
    cut = np.arange(1, n)
    left = csum[cut] - csum[np.maximum(cut - window, 0)]
    right = csum[np.minimum(cut + window, n)] - csum[cut]
    left /= np.maximum(np.linalg.norm(left, axis=1, keepdims=True), 1e-12)
    right /= np.maximum(np.linalg.norm(right, axis=1, keepdims=True), 1e-12)
    return 1.0 - np.einsum("ij,ij->i", left, right)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 60), window=st.integers(1, 70), block=st.integers(1, 9))
def test_scores_by_blocks_are_the_whole_documents_to_the_bit(n, window, block) -> None:
    import jw_rag.chunkers.embedding_chunker as module

    vectors = np.random.default_rng(n * 97 + window).standard_normal((n, 8)).astype(np.float32)
    vectors[n // 3 : n // 2] = vectors[n // 3]  # a run of identical sentences: tied scores
    saved = module._BLOCK
    module._BLOCK = block
    try:
        assert np.array_equal(module.window_scores(vectors, window), _scores_whole(vectors, window))
    finally:
        module._BLOCK = saved


class _Given:
    """An embedder that answers with vectors made beforehand, the next rows for
    each call, in an array of its own as a model gives (the chunker's own memory
    is measured)."""

    model_id = "given"
    dim = 512

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors
        self.at = 0

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.at += len(texts)
        return self.vectors[self.at - len(texts) : self.at].copy()


def test_chunking_holds_less_than_the_sentence_vectors_beside_them() -> None:
    import tracemalloc

    # 20,000 sentences at 512 dimensions: 41 MB of vectors; scoring every boundary at
    # once held eight float64 copies of them (330 MB; 3.3 GB for 200,000 sentences)
    n = 20_000
    vectors = np.random.default_rng(0).standard_normal((n, 512)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    paras = [f"p{i} ok." for i in range(n)]
    chunker = EmbeddingChunker(embedder=_Given(vectors))
    tracemalloc.start()
    try:
        chunks = chunker.chunk(paras, "d", metadata={"language": "en"})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    check_chunks(paras, chunks, max_len=1500)
    # the vectors, held once (the embedder's answer, or the array its batches
    # fill), and less than as much again beside them
    assert peak < 2 * vectors.nbytes
