"""The embedding chunker: cut where the topic changes, as an embedder sees it.

Steps for one document:

1. Split every paragraph into sentences (:func:`jw_core.split_sentences`); a
   sentence longer than ``max_chars`` is split at whitespace first.
2. Embed every sentence once, ``EMBED_BATCH`` (4,096) sentences per ``embed``
   call (one call for most documents): the embedder's own working memory
   stays that of one batch, however long the document.
3. At each sentence boundary, compare the window of the ``window`` sentences
   before it with the window of the ``window`` sentences after it (fewer at
   the ends of the document). A window's vector is the normalised mean of its
   sentences' vectors: windows are never embedded again. The boundary's score
   is the cosine distance between the two windows.
4. Cut at this document's highest-scoring boundaries: those at or above the
   ``100 - top_percent`` percentile of its scores (default ``top_percent=8``),
   never at a boundary tied with the lowest score (no change at all).
5. Hard sizes apply on top: a piece longer than ``max_chars`` (default 1500)
   is split again at its best-scoring inner boundary until it fits; a piece
   shorter than ``min_chars`` (default 200) merges with the neighbour whose
   mean vector is closer, when the result fits in ``max_chars``
   (``merge_reason="small_segment"``).

Boundaries are allowed at every sentence boundary, inside a paragraph or
between two: a paragraph break gets no bonus, because the embedder's view of
the topic is what this chunker adds over the paragraph rules. Chunks may
therefore start or end inside a paragraph; their spans say exactly where.
Each chunk records ``cut_score``: the score of the boundary it starts at
(``None`` for the first chunk).

The embedder is built on the first ``chunk`` call that needs it (never at
construction). ``embed_calls``, ``texts_embedded`` and ``chars_embedded``
count what was sent to it, across calls.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from typing import Any

import numpy as np

from jw_core import split_sentences
from jw_rag.chunkers._options import real, whole
from jw_rag.chunkers._pieces import Piece, split_long
from jw_rag.chunkers.base import ChunkerBase, ChunkInput, check_sizes
from jw_rag.embed.protocol import Embedder
from jw_rag.errors import ConfigError, EmbeddingError
from jw_rag.model import (
    PARAGRAPH_SEPARATOR,
    Paragraph,
    Span,
    content_bounds,
)

__all__ = ["EmbeddingChunker", "sentence_units", "window_scores"]

VERSION = "1"
_SEP = len(PARAGRAPH_SEPARATOR)

#: A sentence (or part of an over-long one): paragraph index, start, end.
Unit = tuple[int, int, int]


def sentence_units(
    paras: list[Paragraph], max_chars: int, language: str | None = None
) -> list[Unit]:
    """Step 1: the sentences of every non-blank paragraph, in order, none over ``max_chars``."""
    units: list[Unit] = []
    for k, p in enumerate(paras):
        text = p.text
        if not text.strip():
            continue
        for a, b in split_sentences(text, language):
            if b - a <= max_chars:
                units.append((k, a, b))
            else:
                units.extend((k, x, y) for x, y in split_long(text, a, b, max_chars, language))
    return units


#: Sentences given to the embedder in one call. A call's working memory
#: (texts, cache look-ups, per-text vectors) grows with it: 200,000 sentences in
#: one call peaked at 4.5 times the size of their vectors.
EMBED_BATCH = 4096

#: Boundaries scored at a time: the float64 sums of one block, not of the whole
#: document, are held beside its vectors.
_BLOCK = 1024


def _prefix_rows(vectors: np.ndarray, carry: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Rows ``lo..hi`` of the running sum of ``vectors`` (row ``j`` sums the first
    ``j`` vectors), given ``carry``, row ``lo``: added in the same order as one
    ``cumsum`` over the whole document, so every row is the same to the last bit."""
    return np.cumsum(np.vstack([carry[None, :], vectors[lo:hi]]), axis=0, dtype=np.float64)


def window_scores(vectors: np.ndarray, window: int) -> np.ndarray:
    """Step 3: for each boundary ``i`` (between sentence ``i`` and ``i + 1``),
    the cosine distance between the mean vectors of the ``window`` sentences
    before and after it. Scored a block of boundaries at a time, in memory
    that does not grow with the document beyond its vectors and scores."""
    n = len(vectors)
    scores = np.zeros(max(n - 1, 0), dtype=np.float64)
    if n < 2:
        return scores
    rows, at = np.zeros((1, vectors.shape[1])), 0  # running sums from row ``at`` on
    for first in range(1, n, _BLOCK):  # boundaries first..end-1
        end = min(first + _BLOCK, n)
        lo, hi = max(first - window, 0), min(end - 1 + window, n)
        rows, at = _prefix_rows(vectors, rows[lo - at], lo, hi), lo
        cut = np.arange(first, end)
        left = rows[cut - at] - rows[np.maximum(cut - window, 0) - at]
        right = rows[np.minimum(cut + window, n) - at] - rows[cut - at]
        left /= np.maximum(np.linalg.norm(left, axis=1, keepdims=True), 1e-12)
        right /= np.maximum(np.linalg.norm(right, axis=1, keepdims=True), 1e-12)
        scores[first - 1 : end - 1] = 1.0 - np.einsum("ij,ij->i", left, right)
    return scores


def _prefix_at(vectors: np.ndarray, wanted: set[int]) -> dict[int, np.ndarray]:
    """The rows of the running sum of ``vectors`` at the indexes ``wanted``
    (as :func:`_prefix_rows` adds them), computed a block at a time."""
    out: dict[int, np.ndarray] = {}
    order = sorted(wanted)
    carry = np.zeros(vectors.shape[1], dtype=np.float64)
    for lo in range(0, len(vectors) + 1, _BLOCK):
        hi = min(lo + _BLOCK, len(vectors))
        rows = _prefix_rows(vectors, carry, lo, hi)
        for i in order[bisect_left(order, lo) : bisect_right(order, hi)]:
            out[i] = rows[i - lo].copy()
        carry = rows[-1]
    return out


class _Lengths:
    """O(1) length of the text a span of units rebuilds to."""

    def __init__(self, paras: list[Paragraph]) -> None:
        self.raw = [len(p.text) for p in paras]
        acc = [0]
        for p in paras:
            lo, hi = content_bounds(p.text)
            acc.append(acc[-1] + (hi - lo + _SEP if hi > lo else 0))
        self.acc = acc

    def of(self, first: Unit, last: Unit) -> int:
        sp, a, _ = first
        ep, _, b = last
        if sp == ep:
            return b - a
        return (self.raw[sp] - a) + (self.acc[ep] - self.acc[sp + 1]) + _SEP + b


class EmbeddingChunker(ChunkerBase):
    """Topic-shift chunking over sentence embeddings (see the module docstring)."""

    name = "embedding"
    version = VERSION
    options = ("embedder", "window", "top_percent", "min_chars", "max_chars")

    def __init__(
        self,
        *,
        embedder: Embedder | str | None = None,
        window: int = 3,
        top_percent: float = 8.0,
        min_chars: int = 200,
        max_chars: int = 1500,
    ) -> None:
        max_chars, min_chars = check_sizes(max_chars, min_chars)
        window = whole("window", window, low=1)
        top_percent = real("top_percent", top_percent, low=0, high=100, include_low=False)
        if embedder is not None and not isinstance(embedder, str | Embedder):
            raise ConfigError(
                f"embedder must be an Embedder or an embedder name, got {type(embedder).__name__}"
            )
        self._embedder_arg = embedder
        self._embedder: Embedder | None = embedder if isinstance(embedder, Embedder) else None
        self.window = window
        self.top_percent = float(top_percent)
        self.min_chars = min_chars
        self.max_chars = max_chars
        self.embed_calls = 0
        self.texts_embedded = 0
        self.chars_embedded = 0

    def _option(self, name: str) -> Any:
        """The embedder counts by its ``model_id`` (creating the default one loads no model)."""
        return self.embedder.model_id if name == "embedder" else super()._option(name)

    def _shown(self, name: str) -> Any:
        """The embedder as given (``repr`` builds none)."""
        return self._embedder_arg if name == "embedder" else super()._shown(name)

    @property
    def embedder(self) -> Embedder:
        """The embedder, built from its name (or the default) on first use."""
        if self._embedder is None:
            from jw_rag.embed import get_embedder

            arg = self._embedder_arg
            self._embedder = get_embedder(arg if isinstance(arg, str) else None)
        return self._embedder

    def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        self.embed_calls += 1
        self.texts_embedded += len(texts)
        self.chars_embedded += sum(len(t) for t in texts)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise EmbeddingError(
                f"embedder {getattr(self.embedder, 'model_id', '?')} returned shape "
                f"{vectors.shape} for {len(texts)} texts"
            )
        return vectors

    def _embed_units(self, paras: list[Paragraph], units: list[Unit]) -> np.ndarray:
        """The vectors of ``units``' texts, ``EMBED_BATCH`` at a time, in one array."""

        def batch(start: int) -> np.ndarray:
            return self._embed(
                [paras[k].text[a:b] for k, a, b in units[start : start + EMBED_BATCH]]
            )

        first = batch(0)
        if len(first) == len(units):
            return first  # one call: its array as it is
        out = np.empty((len(units), first.shape[1]), dtype=np.float32)
        out[: len(first)] = first
        for start in range(EMBED_BATCH, len(units), EMBED_BATCH):
            part = batch(start)
            if part.shape[1] != out.shape[1]:
                raise EmbeddingError(
                    f"embedder {getattr(self.embedder, 'model_id', '?')} returned vectors of "
                    f"{part.shape[1]} dimensions after {out.shape[1]} for the same document"
                )
            out[start : start + len(part)] = part
        return out

    def _pieces_for(self, doc: ChunkInput) -> list[Piece]:
        units = sentence_units(doc.paragraphs, self.max_chars, doc.language)
        return self.pieces(doc.paragraphs, units) if units else []

    def pieces(self, paras: list[Paragraph], units: list[Unit]) -> list[Piece]:
        """Steps 2-5 over the sentence ``units`` of ``paras``."""
        lengths = _Lengths(paras)
        n = len(units)
        if n == 1 or lengths.of(units[0], units[-1]) <= self.min_chars:
            return [self._piece(units, 0, n - 1, None, None)]
        vectors = self._embed_units(paras, units)
        scores = window_scores(vectors, self.window)
        threshold = float(np.percentile(scores, 100.0 - self.top_percent))
        # ties at the lowest score (e.g. identical windows) are never cuts
        chosen = scores > threshold if threshold <= scores.min() else scores >= threshold
        cuts = [i + 1 for i in np.flatnonzero(chosen).tolist()]
        # segments as [first, last] unit indexes
        bounds = [0, *cuts, n]
        segments: list[tuple[int, int]] = []
        for a, b in zip(bounds, bounds[1:], strict=False):
            segments.extend(self._fit(a, b - 1, units, scores, lengths))
        segments, merged = self._merge_small(segments, units, vectors, lengths)
        return [
            self._piece(
                units,
                a,
                b,
                float(scores[a - 1]) if a > 0 else None,
                "small_segment" if (a, b) in merged else None,
            )
            for a, b in segments
        ]

    def _piece(
        self, units: list[Unit], a: int, b: int, score: float | None, reason: str | None
    ) -> Piece:
        first, last = units[a], units[b]
        return Piece(
            Span(first[0], first[1], last[0], last[2]),
            {"merge_reason": reason, "cut_score": score},
        )

    def _fit(
        self, a: int, b: int, units: list[Unit], scores: np.ndarray, lengths: _Lengths
    ) -> list[tuple[int, int]]:
        """Split ``[a, b]`` at its best inner boundary until every part fits."""
        stack = [(a, b)]
        out: list[tuple[int, int]] = []
        while stack:
            lo, hi = stack.pop()
            if lo == hi or lengths.of(units[lo], units[hi]) <= self.max_chars:
                out.append((lo, hi))
                continue
            # boundary i sits before unit i + 1; inner boundaries of [lo, hi] are lo..hi-1
            best = lo + int(np.argmax(scores[lo:hi]))
            stack.append((best + 1, hi))
            stack.append((lo, best))
        return out

    def _merge_small(
        self,
        segments: list[tuple[int, int]],
        units: list[Unit],
        vectors: np.ndarray,
        lengths: _Lengths,
    ) -> tuple[list[tuple[int, int]], set[tuple[int, int]]]:
        """Merge each too-small segment into its more similar neighbour, smallest first
        (the first of equal sizes first). A heap of the small segments and links
        between neighbours keep this O(n log n) in the number of segments: a long
        text of short sentences makes tens of thousands of them."""
        # a segment's sum is the difference of two running sums at segment boundaries:
        # only those rows are kept
        csum = _prefix_at(vectors, {i for a, b in segments for i in (a, b + 1)})

        def mean(seg: tuple[int, int]) -> np.ndarray:
            v = csum[seg[1] + 1] - csum[seg[0]]
            return v / max(float(np.linalg.norm(v)), 1e-12)

        def size(seg: tuple[int, int]) -> int:
            return lengths.of(units[seg[0]], units[seg[1]])

        # segments by their first unit; before/after link neighbours (-1: none)
        end = {a: b for a, b in segments}
        before = {a: (segments[i - 1][0] if i else -1) for i, (a, _) in enumerate(segments)}
        after = {a: -1 for a, _ in segments}
        for a, b in before.items():
            if b >= 0:
                after[b] = a
        small = [(size(s), s[0], s[1]) for s in segments if size(s) < self.min_chars]
        heapq.heapify(small)
        merged: set[tuple[int, int]] = set()
        while small:
            _, a, b = heapq.heappop(small)
            if end.get(a) != b:  # merged away since it was pushed
                continue
            seg = (a, b)
            options = []
            for side, j in enumerate((before[a], after[a])):
                if j >= 0:
                    other = (j, end[j])
                    joined = (min(a, j), max(b, other[1]))
                    if size(joined) <= self.max_chars:
                        options.append((float(mean(seg) @ mean(other)), side, other, joined))
            if not options:  # stays small: no neighbour can take it
                continue
            _, _, other, joined = max(options)
            merged.discard(seg)
            merged.discard(other)
            merged.add(joined)
            first, last = joined
            right = seg if seg[0] > other[0] else other
            del end[right[0]]
            end[first] = last
            nxt = after.pop(right[0])
            del before[right[0]]
            after[first] = nxt
            if nxt >= 0:
                before[nxt] = first
            if size(joined) < self.min_chars:
                heapq.heappush(small, (size(joined), first, last))
        out: list[tuple[int, int]] = []
        at = segments[0][0] if segments else -1
        while at >= 0:
            out.append((at, end[at]))
            at = after[at]
        return out, merged
