"""Character ranges in document-text coordinates, and set operations on them.

A document's text is its paragraphs joined by ``"\\n\\n"``; every judgement
and every retrieved chunk is a :class:`DocRange` (document id plus a
half-open ``[start, end)`` character range) in that text. An
:class:`ExpectedSpan` is a range that answers (part of) a question, with a
gain used by graded metrics.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jw_rag.model import PARAGRAPH_SEPARATOR, Paragraph, Span

__all__ = [
    "DocRange",
    "ExpectedSpan",
    "Ranges",
    "covered_length",
    "doc_range_to_span",
    "paragraph_offsets",
    "span_to_doc_range",
    "subtract",
    "union",
]

#: Merged, sorted, non-overlapping ranges of one document: ``[(start, end), ...]``.
Ranges = list[tuple[int, int]]


@dataclass(frozen=True, slots=True)
class DocRange:
    """``[start, end)`` in the text of document ``doc_id``."""

    doc_id: str
    start: int
    end: int

    def __len__(self) -> int:
        return max(0, self.end - self.start)

    def overlaps(self, other: DocRange) -> bool:
        return self.doc_id == other.doc_id and self.start < other.end and other.start < self.end

    def contains(self, other: DocRange) -> bool:
        return self.doc_id == other.doc_id and self.start <= other.start and other.end <= self.end


@dataclass(frozen=True, slots=True)
class ExpectedSpan:
    """One piece of evidence a question needs; ``gain`` > 0 (1 for binary judgements)."""

    doc_id: str
    start: int
    end: int
    gain: float = 1.0

    @property
    def range(self) -> DocRange:
        return DocRange(self.doc_id, self.start, self.end)


def paragraph_offsets(paragraphs: Sequence[str | Paragraph]) -> list[int]:
    """Where each paragraph starts in the joined document text."""
    offsets: list[int] = []
    pos = 0
    for p in paragraphs:
        offsets.append(pos)
        pos += len(p.text if isinstance(p, Paragraph) else p) + len(PARAGRAPH_SEPARATOR)
    return offsets


def span_to_doc_range(
    doc_id: str, offsets: Sequence[int], span: Span | Mapping[str, Any]
) -> DocRange:
    """A chunk's paragraph-coordinate span as a range of the document text."""
    if not isinstance(span, Span):
        span = Span.from_dict(span)
    if not (0 <= span.start_para <= span.end_para < len(offsets)):
        raise ValueError(f"span {span} is outside the {len(offsets)} paragraphs of {doc_id!r}")
    return DocRange(
        doc_id, offsets[span.start_para] + span.start_char, offsets[span.end_para] + span.end_char
    )


def doc_range_to_span(offsets: Sequence[int], lengths: Sequence[int], start: int, end: int) -> Span:
    """The paragraph-coordinate span of ``[start, end)`` of the document text.

    A boundary that falls inside a paragraph separator moves to the nearest
    paragraph edge inside the range.
    """
    if end <= start:
        raise ValueError(f"empty range [{start}, {end})")
    sp = max(0, bisect_right(offsets, start) - 1)
    if start >= offsets[sp] + lengths[sp] and sp + 1 < len(offsets):  # in a separator
        sp, sc = sp + 1, 0
    else:
        sc = start - offsets[sp]
    ep = max(0, bisect_right(offsets, end - 1) - 1)
    ec = min(end - offsets[ep], lengths[ep])
    if ep < sp:
        ep, ec = sp, sc
    return Span(sp, sc, ep, ec)


def union(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sorted, merged, non-empty ranges."""
    out: Ranges = []
    for a, b in sorted(r for r in ranges if r[1] > r[0]):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def covered_length(a: Ranges, b: Ranges) -> int:
    """Length of the intersection of two merged range lists."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def subtract(start: int, end: int, taken: Ranges) -> Ranges:
    """The parts of ``[start, end)`` not in ``taken`` (merged ranges)."""
    out: Ranges = []
    pos = start
    for a, b in taken:
        if b <= pos:
            continue
        if a >= end:
            break
        if a > pos:
            out.append((pos, a))
        pos = max(pos, b)
        if pos >= end:
            break
    if pos < end:
        out.append((pos, end))
    return out
