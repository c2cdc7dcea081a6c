"""The page chunker: for paged sources (PDF), the page is the unit.

Rules:

1. All paragraphs of a page form one chunk. A paragraph without a page number
   belongs to the page before it (or, at the start, to the first page seen).
2. A page longer than ``max_chars`` (default 1500) is split by the paragraph
   rules within the page, so no chunk mixes two pages' own text.
3. With ``overlap=True`` (the default) the first chunk of every page but the
   first starts with the previous page's last sentence, when that sentence
   is at most ``overlap_chars`` (default 300) long. A chunk's text is one
   contiguous span of the source, so the span starts at that sentence and
   ``metadata["overlap"]`` (``start_para``, ``start_char``, ``end_para``,
   ``end_char``) marks the carried range, which
   :func:`~jw_rag.chunkers.validate.check_chunks` leaves out of coverage. A
   chunk is therefore at most ``max_chars + overlap_chars + 2`` characters.

Every chunk carries ``page`` (the page it belongs to, not the overlap's) and
``pages`` (every page its text touches). Sources without page numbers are
chunked by the paragraph rules with ``fallback="no_pages"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jw_core import split_sentences
from jw_rag.chunkers._options import flag, whole
from jw_rag.chunkers._pieces import Piece, RawPiece
from jw_rag.chunkers.base import ChunkerBase, ChunkInput, check_sizes
from jw_rag.chunkers.paragraph_chunker import paragraph_pieces
from jw_rag.model import Chunk, Paragraph, Span, content_bounds, rebuild_text

__all__ = ["PageChunker", "page_runs"]

VERSION = "1"


def page_runs(paras: list[Paragraph]) -> list[tuple[int, int, int]]:
    """``(first, end, page)`` for each run of consecutive paragraphs of one page
    (rule 1); empty when no paragraph has a page number."""
    pages = [p.page for p in paras]
    known = [pg for pg in pages if pg is not None]
    if not known:
        return []
    current = known[0]
    runs: list[tuple[int, int, int]] = []
    for k, pg in enumerate(pages):
        if pg is not None:
            current = pg
        if runs and runs[-1][2] == current:
            runs[-1] = (runs[-1][0], k + 1, current)
        else:
            runs.append((k, k + 1, current))
    return runs


class PageChunker(ChunkerBase):
    """One chunk per page, over-long pages split, the last sentence carried over."""

    name = "page"
    version = VERSION
    options = ("max_chars", "min_chars", "overlap", "overlap_chars")

    def __init__(
        self,
        *,
        max_chars: int = 1500,
        min_chars: int = 80,
        overlap: bool = True,
        overlap_chars: int = 300,
    ) -> None:
        max_chars, min_chars = check_sizes(max_chars, min_chars)
        overlap = flag("overlap", overlap)
        overlap_chars = whole("overlap_chars", overlap_chars, low=1)
        self.max_chars = max_chars
        self.min_chars = min_chars
        self.overlap = overlap
        self.overlap_chars = overlap_chars

    def _pieces_for(self, doc: ChunkInput) -> list[Piece]:
        paras, language = doc.paragraphs, doc.language
        runs = page_runs(paras)
        if runs:
            return self._page_pieces(paras, runs, language)
        pieces = paragraph_pieces(
            paras, max_chars=self.max_chars, min_chars=self.min_chars, language=language
        )
        for piece in pieces:
            piece.extra["fallback"] = "no_pages"
        return pieces

    def _build(self, doc: ChunkInput, pieces: Sequence[Piece] | Sequence[RawPiece]) -> list[Chunk]:
        chunks = super()._build(doc, pieces)
        for c in chunks:  # sorted, and with the page an unpaged paragraph belongs to
            pages = set(c.metadata.get("pages", []))
            if c.metadata.get("page") is not None:
                pages.add(c.metadata["page"])
            if pages:
                c.metadata["pages"] = sorted(pages)
        return chunks

    def _page_pieces(
        self, paras: list[Paragraph], runs: list[tuple[int, int, int]], language: str | None
    ) -> list[Piece]:
        pieces: list[Piece] = []
        carry: tuple[int, int, int] | None = None  # (para, start, end) of the last sentence
        for lo, hi, page in runs:
            whole = _whole_span(paras, lo, hi)
            if whole is None:
                continue
            if len(rebuild_text(paras, whole)) <= self.max_chars:
                sub = [Piece(whole, {"merge_reason": None})]
            else:
                sub = [
                    Piece(_shift(p.span, lo), p.extra)
                    for p in paragraph_pieces(
                        paras[lo:hi],
                        max_chars=self.max_chars,
                        min_chars=self.min_chars,
                        language=language,
                    )
                ]
            for n, piece in enumerate(sub):
                span = piece.span
                extra: dict[str, Any] = {
                    "merge_reason": piece.extra.get("merge_reason"),
                    "page": page,
                }
                if n == 0 and carry is not None:
                    para, a, b = carry
                    extra["overlap"] = {
                        "start_para": para,
                        "start_char": a,
                        "end_para": para,
                        "end_char": b,
                    }
                    span = Span(para, a, span.end_para, span.end_char)
                pieces.append(Piece(span, extra))
            carry = self._last_sentence(paras, lo, hi, language) if self.overlap else None
        return pieces

    def _last_sentence(
        self, paras: list[Paragraph], lo: int, hi: int, language: str | None
    ) -> tuple[int, int, int] | None:
        for k in range(hi - 1, lo - 1, -1):
            text = paras[k].text
            a, b = content_bounds(text)
            if b > a:
                spans = split_sentences(text, language)
                start, end = spans[-1] if spans else (a, b)
                return (k, start, end) if end - start <= self.overlap_chars else None
        return None


def _whole_span(paras: list[Paragraph], lo: int, hi: int) -> Span | None:
    nonblank = [k for k in range(lo, hi) if paras[k].text.strip()]
    if not nonblank:
        return None
    first, last = nonblank[0], nonblank[-1]
    return Span(
        first, content_bounds(paras[first].text)[0], last, content_bounds(paras[last].text)[1]
    )


def _shift(span: Span, offset: int) -> Span:
    return Span(span.start_para + offset, span.start_char, span.end_para + offset, span.end_char)
