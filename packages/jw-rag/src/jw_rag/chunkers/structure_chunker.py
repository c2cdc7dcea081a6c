"""The structure chunker: one chunk per section of a document with headings.

A section is a heading and everything up to the next heading of the same or a
higher level, as told by ``Paragraph.heading_path`` (HTML ``h1``-``h6``,
Markdown, EPUB chapters all set it; a heading's own path ends with its own
text). Input that has ``kind="heading"`` paragraphs but no heading paths is
read as one flat level of sections, each heading opening the next one.

Rules, from the whole document down:

1. A section of at most ``max_chars`` (default 1500) is one chunk, its
   heading paragraph included (so every character is covered once).
2. A longer section descends one level: its own lead (the heading and the
   paragraphs before its first sub-section) and each sub-section are chunked
   by these same rules.
3. A leaf section still longer than ``max_chars`` is split by the paragraph
   rules (:func:`~jw_rag.chunkers.paragraph_chunker.paragraph_pieces`).
4. Under one parent, a whole section (or lead) shorter than ``min_chars``
   (default 200: a heading and a sentence or two) joins the chunk after it,
   and a whole section shorter than ``min_chars`` joins the whole section
   before it, while the result stays within ``max_chars``
   (``merge_reason="short_section"``).

Every chunk carries ``heading_path``: the longest heading path its paragraphs
share (a chunk grouping two sub-sections carries their parent's path), and
``embed_prefix`` = ``separator.join(heading_path)`` unless
``prefix_headings=False``. The chunk text is exactly the source text; a store
embeds ``embed_prefix + "\\n" + text``.

A document without headings is chunked by the paragraph rules with this
chunker's sizes, with ``fallback="no_headings"``.
"""

from __future__ import annotations

from jw_rag.chunkers._options import flag, text
from jw_rag.chunkers._pieces import Piece, split_long
from jw_rag.chunkers.base import ChunkerBase, ChunkInput, check_sizes
from jw_rag.chunkers.paragraph_chunker import paragraph_pieces
from jw_rag.model import PARAGRAPH_SEPARATOR, Paragraph, Span, content_bounds, rebuild_text

__all__ = ["StructureChunker", "heading_paths"]

_SEP = len(PARAGRAPH_SEPARATOR)


def _shift(span: Span, offset: int) -> Span:
    return Span(span.start_para + offset, span.start_char, span.end_para + offset, span.end_char)


VERSION = "1"


def heading_paths(paras: list[Paragraph]) -> list[tuple[str, ...]] | None:
    """The heading path of each paragraph, or ``None`` when the input has no headings.

    Paths given by the source are used as they are; without any, each
    ``kind="heading"`` paragraph opens a flat top-level section.
    """
    if any(p.heading_path for p in paras):
        return [tuple(p.heading_path) for p in paras]
    if not any(p.kind == "heading" and p.text.strip() for p in paras):
        return None
    out: list[tuple[str, ...]] = []
    current: tuple[str, ...] = ()
    for p in paras:
        if p.kind == "heading" and p.text.strip():
            current = (p.text.strip(),)
        out.append(current)
    return out


def _common_prefix(paths: list[tuple[str, ...]]) -> tuple[str, ...]:
    first = paths[0]
    n = len(first)
    for path in paths[1:]:
        n = min(n, len(path))
        for k in range(n):
            if path[k] != first[k]:
                n = k
                break
    return first[:n]


class StructureChunker(ChunkerBase):
    """Section-by-section chunking along the document's headings."""

    name = "structure"
    version = VERSION
    options = ("max_chars", "min_chars", "prefix_headings", "separator")

    def __init__(
        self,
        *,
        max_chars: int = 1500,
        min_chars: int = 200,
        prefix_headings: bool = True,
        separator: str = " > ",
    ) -> None:
        self.max_chars, self.min_chars = check_sizes(max_chars, min_chars)
        self.prefix_headings = flag("prefix_headings", prefix_headings)
        self.separator = text("separator", separator)

    def _pieces_for(self, doc: ChunkInput) -> list[Piece]:
        paras, language = doc.paragraphs, doc.language
        paths = heading_paths(paras)
        if paths is None:
            pieces = paragraph_pieces(
                paras, max_chars=self.max_chars, min_chars=self.min_chars, language=language
            )
            for piece in pieces:
                piece.extra["fallback"] = "no_headings"
                self._label(piece, [])
        else:
            pieces = [
                p for p, _ in _Sections(self, paras, paths, language).pieces(0, len(paras), 0)
            ]
            for piece in pieces:
                s = piece.span
                span_paths = [
                    paths[k] for k in range(s.start_para, s.end_para + 1) if paras[k].text.strip()
                ]
                self._label(piece, list(_common_prefix(span_paths)))
        return pieces

    def _label(self, piece: Piece, path: list[str]) -> None:
        piece.extra["heading_path"] = path
        if self.prefix_headings:
            piece.extra["embed_prefix"] = self.separator.join(path)


class _Sections:
    """The recursive descent over one document's sections."""

    def __init__(
        self,
        chunker: StructureChunker,
        paras: list[Paragraph],
        paths: list[tuple[str, ...]],
        language: str | None,
    ) -> None:
        self.max_chars = chunker.max_chars
        self.min_chars = chunker.min_chars
        self.paras = paras
        self.texts = [p.text for p in paras]
        self.paths = paths
        self.language = language
        self.bounds = [content_bounds(t) for t in self.texts]

    def _whole(self, lo: int, hi: int) -> Span | None:
        """The span of every non-blank paragraph in ``[lo, hi)``."""
        nonblank = [k for k in range(lo, hi) if self.bounds[k][1] > self.bounds[k][0]]
        if not nonblank:
            return None
        first, last = nonblank[0], nonblank[-1]
        return Span(first, self.bounds[first][0], last, self.bounds[last][1])

    def _len(self, span: Span) -> int:
        return len(rebuild_text(self.texts, span))

    def pieces(self, lo: int, hi: int, depth: int) -> list[tuple[Piece, bool]]:
        """Pieces for paragraphs ``[lo, hi)`` sharing a path prefix of ``depth``
        headings, each with whether it is one whole section (or lead)."""
        span = self._whole(lo, hi)
        if span is None:
            return []
        if self._len(span) <= self.max_chars:
            return [(Piece(span, {"merge_reason": None}), True)]
        runs: list[tuple[int, int, str | None]] = []
        for k in range(lo, hi):
            path = self.paths[k]
            key = path[depth] if len(path) > depth else None
            if runs and runs[-1][2] == key:
                runs[-1] = (runs[-1][0], k + 1, key)
            else:
                runs.append((k, k + 1, key))
        if len(runs) == 1:
            if runs[0][2] is None:  # a leaf section: the paragraph rules
                return [(piece, False) for piece in self._leaf(lo, hi)]
            return self.pieces(lo, hi, depth + 1)
        out: list[tuple[Piece, bool]] = []
        for a, b, key in runs:
            sub = self.pieces(a, b, depth if key is None else depth + 1)
            if len(sub) == 1:
                out.append(sub[0])
            else:
                out.extend((piece, False) for piece, _ in sub)
        return [(piece, False) for piece, _ in self._group(out)]

    def _leaf(self, lo: int, hi: int) -> list[Piece]:
        """Rule 3, keeping a heading with the text under it: when the paragraph
        rules leave the heading alone before an over-long paragraph, that
        paragraph is cut a heading's length shorter and its first part joins
        the heading."""
        sub = [
            Piece(_shift(p.span, lo), p.extra)
            for p in paragraph_pieces(
                self.paras[lo:hi],
                max_chars=self.max_chars,
                min_chars=self.min_chars,
                language=self.language,
            )
        ]
        sub = [q for piece in sub for q in self._fit(piece)]
        if len(sub) < 2:
            return sub
        head, nxt = sub[0].span, sub[1].span
        k = nxt.start_para
        if nxt.end_para != k or not all(
            self.paras[j].kind == "heading" or not self.texts[j].strip()
            for j in range(head.start_para, head.end_para + 1)
        ):
            return sub
        text = self.texts[k]
        a, b = content_bounds(text)
        # the joined span rebuilds paragraph k from its start, leading whitespace included
        budget = self.max_chars - self._len(head) - _SEP - a
        if nxt.start_char != a or budget < max(1, self.max_chars // 4):
            return sub
        parts = split_long(text, a, b, budget, self.language)
        rest = [p for p in sub[1:] if p.span.start_para != k]
        first = Piece(
            Span(head.start_para, head.start_char, k, parts[0][1]), {"merge_reason": None}
        )
        return [
            first,
            *(Piece(Span(k, x, k, y), {"merge_reason": None}) for x, y in parts[1:]),
            *rest,
        ]

    def _fit(self, piece: Piece) -> list[Piece]:
        """A merged piece over ``max_chars`` once rebuilt (the paragraph rules count
        trimmed sizes, a rebuilt span keeps the last paragraph's leading
        whitespace) goes back to one piece per paragraph."""
        s = piece.span
        if s.start_para == s.end_para or self._len(s) <= self.max_chars:
            return [piece]
        out = []
        for k in range(s.start_para, s.end_para + 1):
            a, b = self.bounds[k]
            if b > a:
                lo = s.start_char if k == s.start_para else a
                hi = s.end_char if k == s.end_para else b
                out.append(Piece(Span(k, lo, k, hi), {"merge_reason": None}))
        return out

    def _group(self, items: list[tuple[Piece, bool]]) -> list[tuple[Piece, bool]]:
        """Rule 4: short whole sections join their neighbours under one parent."""
        out: list[tuple[Piece, bool]] = []
        for piece, whole in items:
            if out:
                prev, prev_whole = out[-1]
                joined = Span(
                    prev.span.start_para,
                    prev.span.start_char,
                    piece.span.end_para,
                    piece.span.end_char,
                )
                short_prev = prev_whole and self._len(prev.span) < self.min_chars
                short_next = whole and prev_whole and self._len(piece.span) < self.min_chars
                if (short_prev or short_next) and self._len(joined) <= self.max_chars:
                    out[-1] = (Piece(joined, {"merge_reason": "short_section"}), whole)
                    continue
            out.append((piece, whole))
        return out
