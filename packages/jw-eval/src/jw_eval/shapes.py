"""Reshape a benchmark dataset into another layout, answers carried exactly.

:func:`reshape` turns a loaded :class:`~jw_eval.datasets.model.Dataset` into
the same text laid out as another kind of source would lay it out, so the
bench can measure a chunker on shapes a dataset does not have:

``joined``
    No blank line inside a document: the document is one paragraph whose old
    paragraphs follow each other on their own line (a single ``"\\n"``
    between them; a blank line inside a paragraph becomes one ``"\\n"``), as
    in chat exports and text extracted without paragraph breaks.
``sentences``
    One sentence per paragraph (:func:`jw_core.split_sentences`), as in
    subtitle files and some e-texts.
``wrapped``
    Hard line breaks within each paragraph: the space before a word that
    would pass column 72 becomes ``"\\n"``; paragraphs stay separated by a
    blank line, as in Project Gutenberg texts and PDF extraction.
``long``
    Every 2–3 consecutive paragraphs merged into one, joined by a space
    (groups of 2, 3, 2, 3, ... in reading order; a last paragraph left alone
    joins the group before it, a group of 4 that would make is cut 2 + 2).
``rows``
    Each paragraph cut at word boundaries into one-line pieces of at most 60,
    90, 120, 75, 105, 60, ... characters in turn (a longer single word is a
    piece of its own), each piece its own paragraph, as in tables, filings
    and list-like exports; a line break inside a piece becomes a space.

Every shape keeps the words: it only changes the whitespace *between* two
non-whitespace characters (keeps it, or puts a space, a line break or a
paragraph break there instead; whitespace at a paragraph's edges is
dropped), so ``new_text.split() == old_text.split()`` for each document.
An :class:`OffsetMap` records, per document, where every copied character
went (old document offset -> new document offset); every non-whitespace
character is copied. An answer span ``[start, end)`` maps to the new range
from its first to its last non-whitespace character
(:meth:`OffsetMap.span`), and then, precisely:

* ``new_text[a:b].split() == old_text[start:end].split()``: the same
  characters in the same order, with whitespace wherever there was
  whitespace and nowhere else; only which whitespace differs (the shape's);
* ``new_text[a]`` and ``new_text[b - 1]`` are the span's first and last
  non-whitespace characters.

A document without any non-whitespace character is left as it is. An
answer span without one cannot be carried: the question loses that span
(a question with no span left is dropped), counted in the dataset's stats as
``shape_spans_without_text`` and ``shape_questions_dropped``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from jw_core import split_sentences
from jw_eval.datasets.model import BenchDocument, BenchQuery, Dataset
from jw_eval.spans import ExpectedSpan
from jw_rag.errors import ConfigError
from jw_rag.model import PARAGRAPH_SEPARATOR, Paragraph

__all__ = [
    "SHAPES",
    "OffsetMap",
    "check_shape",
    "reshape",
    "reshape_document",
]

SHAPES: tuple[str, ...] = ("joined", "sentences", "wrapped", "long", "rows")

#: Column a ``wrapped`` line does not pass (unless one word is longer).
WRAP_COLUMN = 72
#: The ``rows`` pieces' maximum lengths, used in turn.
ROW_WIDTHS: tuple[int, ...] = (60, 90, 120, 75, 105)
#: The ``long`` shape's group sizes, used in turn.
LONG_GROUPS: tuple[int, ...] = (2, 3)

_WORD = re.compile(r"\S+")

# What a shape puts in the gap between two consecutive words: the old
# whitespace as it was, or one of these.
_KEEP = 0
_SPACE = 1
_NEWLINE = 2
_BREAK = 3  # a paragraph break
_INSERTED = {_SPACE: " ", _NEWLINE: "\n"}


def check_shape(shape: str) -> str:
    """``shape`` if it is one of :data:`SHAPES`, else a one-line :class:`ConfigError`."""
    if shape not in SHAPES:
        raise ConfigError(f"unknown shape {shape!r}: use one of {', '.join(SHAPES)}")
    return shape


@dataclass(frozen=True, slots=True)
class OffsetMap:
    """Where the characters of one document went: old offset -> new offset.

    ``runs`` are ``(old_start, new_start, length)``, sorted and disjoint: the
    old text's ``[old_start, old_start + length)`` is the new text's
    ``[new_start, new_start + length)``. Characters in no run (whitespace a
    shape replaced or dropped) have no image.
    """

    old_text: str
    new_text: str
    runs: tuple[tuple[int, int, int], ...]

    def __call__(self, old: int) -> int | None:
        """The new offset of the old text's character at ``old`` (``None``:
        whitespace the shape replaced or dropped)."""
        i = bisect_right(self.runs, (old, float("inf"), 0)) - 1
        if i < 0:
            return None
        o, n, length = self.runs[i]
        return n + old - o if old < o + length else None

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """``[start, end)`` of the old text as a new range, from its first to
        its last non-whitespace character; ``None`` when it has none."""
        text = self.old_text
        start, end = max(0, start), min(len(text), end)
        first = next((i for i in range(start, end) if not text[i].isspace()), None)
        if first is None:
            return None
        last = next(i for i in range(end - 1, first - 1, -1) if not text[i].isspace())
        a, b = self(first), self(last)
        if a is None or b is None:  # every non-whitespace character is copied
            raise AssertionError(f"characters {first}/{last} were not carried over")
        return a, b + 1


@dataclass(frozen=True, slots=True)
class _Word:
    start: int  # in the old document text
    end: int
    para: int  # old paragraph index


def _words(doc: BenchDocument) -> list[_Word]:
    out: list[_Word] = []
    for index, (p, base) in enumerate(zip(doc.paragraphs, doc.offsets, strict=True)):
        out.extend(_Word(base + m.start(), base + m.end(), index) for m in _WORD.finditer(p.text))
    return out


def _gaps_joined(doc: BenchDocument, words: list[_Word]) -> list[int]:
    text = doc.text
    gaps = []
    for w, nxt in zip(words, words[1:], strict=False):
        if w.para != nxt.para:
            gaps.append(_NEWLINE)
        else:
            gaps.append(_NEWLINE if text.count("\n", w.end, nxt.start) > 1 else _KEEP)
    return gaps


def _gaps_sentences(doc: BenchDocument, words: list[_Word]) -> list[int]:
    starts: set[int] = set()
    for p, base in zip(doc.paragraphs, doc.offsets, strict=True):
        starts.update(base + s for s, _ in split_sentences(p.text, doc.language)[1:])
    return [
        _BREAK if w.para != nxt.para or nxt.start in starts else _KEEP
        for w, nxt in zip(words, words[1:], strict=False)
    ]


def _gaps_wrapped(doc: BenchDocument, words: list[_Word]) -> list[int]:
    text = doc.text
    gaps = []
    column = words[0].end - words[0].start if words else 0
    for w, nxt in zip(words, words[1:], strict=False):
        size = nxt.end - nxt.start
        if w.para != nxt.para:
            gaps.append(_BREAK)
            column = size
            continue
        gap = text[w.end : nxt.start]
        if "\n" in gap:  # a line break the paragraph already has
            gaps.append(_KEEP)
            column = len(gap) - gap.rindex("\n") - 1 + size
        elif column + len(gap) + size > WRAP_COLUMN:
            gaps.append(_NEWLINE)
            column = size
        else:
            gaps.append(_KEEP)
            column += len(gap) + size
    return gaps


def _long_groups(n: int) -> list[int]:
    """Group sizes covering ``n`` paragraphs: 2, 3, 2, 3, ..., every group of
    2 or 3 (a single paragraph stays alone)."""
    sizes: list[int] = []
    left = n
    turn = 0
    while left > 0:
        size = min(LONG_GROUPS[turn % len(LONG_GROUPS)], left)
        sizes.append(size)
        left -= size
        turn += 1
    if len(sizes) > 1 and sizes[-1] == 1:
        sizes.pop()
        if sizes[-1] == 2:
            sizes[-1] = 3
        else:  # 3 + 1: two groups of 2
            sizes[-1] = 2
            sizes.append(2)
    return sizes


def _gaps_long(doc: BenchDocument, words: list[_Word]) -> list[int]:
    group_of: list[int] = []
    for g, size in enumerate(_long_groups(len(doc.paragraphs))):
        group_of.extend([g] * size)
    gaps = []
    for w, nxt in zip(words, words[1:], strict=False):
        if w.para == nxt.para:
            gaps.append(_KEEP)
        else:
            gaps.append(_SPACE if group_of[w.para] == group_of[nxt.para] else _BREAK)
    return gaps


def _gaps_rows(doc: BenchDocument, words: list[_Word]) -> list[int]:
    text = doc.text
    gaps = []
    turn = 0
    length = words[0].end - words[0].start if words else 0
    for w, nxt in zip(words, words[1:], strict=False):
        size = nxt.end - nxt.start
        gap = text[w.end : nxt.start]
        kind = _SPACE if "\n" in gap else _KEEP
        gap_len = 1 if kind == _SPACE else len(gap)
        if w.para != nxt.para or length + gap_len + size > ROW_WIDTHS[turn % len(ROW_WIDTHS)]:
            gaps.append(_BREAK)
            turn += 1
            length = size
        else:
            gaps.append(kind)
            length += gap_len + size
    return gaps


_GAPS: dict[str, Callable[[BenchDocument, list[_Word]], list[int]]] = {
    "joined": _gaps_joined,
    "sentences": _gaps_sentences,
    "wrapped": _gaps_wrapped,
    "long": _gaps_long,
    "rows": _gaps_rows,
}


def _pieces(words: list[_Word], gaps: list[int]) -> Iterator[tuple[int, int]]:
    """``(first, last)`` word indexes of each new paragraph."""
    first = 0
    for i, gap in enumerate(gaps):
        if gap == _BREAK:
            yield first, i
            first = i + 1
    yield first, len(words) - 1


def _paragraph(doc: BenchDocument, sources: Sequence[int], number: int, shape: str) -> Paragraph:
    """The new paragraph's source fields, from the old paragraphs it holds."""
    olds = [doc.paragraphs[i] for i in sources]
    first = olds[0]
    ids = [p.id if p.id is not None else str(i) for p, i in zip(olds, sources, strict=True)]
    if shape in ("sentences", "rows"):
        pid = f"{ids[0]}.{number}"
    elif len(ids) == 1:
        pid = ids[0]
    else:
        pid = f"{ids[0]}-{ids[-1]}"
    kinds = {p.kind for p in olds}
    return Paragraph(
        "",
        id=pid,
        page=first.page,
        heading_path=first.heading_path,
        kind=first.kind if len(kinds) == 1 else "p",
    )


def reshape_document(doc: BenchDocument, shape: str) -> tuple[BenchDocument, OffsetMap]:
    """``doc`` in ``shape`` and the map of its characters (see the module docstring)."""
    check_shape(shape)
    old = doc.text
    words = _words(doc)
    if not words:
        return doc, OffsetMap(old, old, ((0, 0, len(old)),) if old else ())
    gaps = _GAPS[shape](doc, words)
    texts: list[str] = []
    paragraphs: list[Paragraph] = []
    runs: list[tuple[int, int, int]] = []
    pos = 0  # where the next new paragraph starts in the new document text
    part_of: Counter[int] = Counter()
    for first, last in _pieces(words, gaps):
        parts: list[str] = []
        length = 0
        run_old, run_len = words[first].start, 0
        for i in range(first, last + 1):
            w = words[i]
            if i > first:
                gap = gaps[i - 1]
                if gap == _KEEP:  # the run goes on through the old whitespace
                    parts.append(old[words[i - 1].end : w.start])
                    length += w.start - words[i - 1].end
                else:
                    runs.append((run_old, pos + length - run_len, run_len))
                    parts.append(_INSERTED[gap])
                    length += 1
                    run_old, run_len = w.start, 0
            parts.append(old[w.start : w.end])
            length += w.end - w.start
            run_len = w.end - run_old
        runs.append((run_old, pos + length - run_len, run_len))
        sources = sorted({words[i].para for i in range(first, last + 1)})
        number = part_of[sources[0]] + 1
        part_of[sources[0]] += 1
        text = "".join(parts)
        paragraphs.append(replace(_paragraph(doc, sources, number, shape), text=text))
        texts.append(text)
        pos += length + len(PARAGRAPH_SEPARATOR)
    new = BenchDocument(doc.doc_id, paragraphs, doc.language, doc.title)
    return new, OffsetMap(old, new.text, tuple(runs))


def _carry(query: BenchQuery, maps: dict[str, OffsetMap], stats: Counter[str]) -> BenchQuery | None:
    spans: list[ExpectedSpan] = []
    for e in query.expected:
        mapped = maps[e.doc_id].span(e.start, e.end) if e.doc_id in maps else None
        if mapped is None:
            stats["shape_spans_without_text"] += 1
            continue
        spans.append(ExpectedSpan(e.doc_id, mapped[0], mapped[1], e.gain))
    if not spans:
        stats["shape_questions_dropped"] += 1
        return None
    return replace(query, expected=tuple(spans))


def reshape(dataset: Dataset, shape: str) -> Dataset:
    """``dataset`` with every document in ``shape`` (one of :data:`SHAPES`) and
    every answer span carried to the same words (see the module docstring).

    The questions, their order, ids and gains are kept; the dataset's stats
    gain ``shape_spans_without_text`` and ``shape_questions_dropped``."""
    check_shape(shape)
    documents: dict[str, BenchDocument] = {}
    maps: dict[str, OffsetMap] = {}
    for doc_id, doc in dataset.documents.items():
        documents[doc_id], maps[doc_id] = reshape_document(doc, shape)
    stats: Counter[str] = Counter(shape_spans_without_text=0, shape_questions_dropped=0)
    queries = [q for q in (_carry(q, maps, stats) for q in dataset.queries) if q is not None]
    return Dataset(dataset.name, dataset.format, documents, queries, {**dataset.stats, **stats})
