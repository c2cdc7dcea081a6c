"""Shared machinery: turn spans ("pieces") into chunks with full provenance,
and split over-long text at sentence boundaries, never mid-word."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from jw_core import SentenceCursor, detect_language, normalize_language
from jw_rag.chunk_ids import linked_in_order, span_id
from jw_rag.model import (
    PARAGRAPH_SEPARATOR,
    Chunk,
    Paragraph,
    Span,
    as_paragraphs,
    paragraph_items,
)

__all__ = [
    "Piece",
    "RawPiece",
    "as_pieces",
    "build_chunks",
    "build_raw_chunks",
    "iter_raw_chunks",
    "paragraph_texts",
    "raw_pieces",
    "resolve_language",
    "resolve_text_language",
    "split_long",
]


@dataclass(slots=True)
class Piece:
    """A chunk-to-be: a span plus the metadata its chunker decided."""

    span: Span
    extra: dict[str, Any] = field(default_factory=dict)


_SPACE = re.compile(r"\s")


def split_long(
    text: str, lo: int, hi: int, max_chars: int, language: str | None = None
) -> list[tuple[int, int]]:
    """Split ``text[lo:hi]`` into whitespace-trimmed ranges of at most
    ``max_chars``: at sentence ends when possible, else at whitespace; a single
    word longer than ``max_chars`` is the only thing ever cut.

    The units are the sentences of the text (those longer than ``max_chars``
    split at whitespace), packed greedily towards an even size so that the
    last piece is not a stub: a piece takes units until it reaches that size
    or the next unit would not fit. Only the units where a piece reaches the
    size decide anything, so only the sentences there are looked for
    (:class:`~jw_core.SentenceCursor`)."""
    if hi - lo <= max_chars:
        return [(lo, hi)]
    n_target = -(-(hi - lo) // max_chars)
    target = max(1, min(max_chars, -(-(hi - lo) // n_target)))
    sub = text[lo:hi]
    cursor = SentenceCursor(sub)
    last_end = cursor.tail_end
    out: list[tuple[int, int]] = []
    # the long sentence split last: its start, its word runs and their ends
    words: tuple[int, list[tuple[int, int]], list[int]] = (-1, [], [])
    cur = cursor.first_start
    while True:
        reach = cur + target  # the piece ends with the first unit ending here or later
        if reach > last_end:
            out.append((cur + lo, last_end + lo))
            return out
        prev_end, a, b, after = cursor.sentence_at(reach)
        if b - a > max_chars:
            if words[0] != a:
                runs = _split_words(sub, a, b, max_chars)
                words = (a, runs, [end for _, end in runs])
            units = words[1]
            k = bisect_left(words[2], reach)  # the first run ending at ``reach`` or later
            if k:
                prev_end = units[k - 1][1]
            if k + 1 < len(units):
                after = units[k + 1][0]
            a, b = units[k]
        if a <= cur or b - cur <= max_chars:
            out.append((cur + lo, b + lo))
            if after is None:
                return out
            cur = after
        else:  # that unit does not fit: the piece ends with the one before
            assert prev_end is not None  # a unit after ``cur`` has one before it
            out.append((cur + lo, prev_end + lo))
            cur = a


def _split_words(text: str, a: int, b: int, max_chars: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = a
    while b - start > max_chars:
        cut = -1
        for m in _SPACE.finditer(text, start + 1, start + max_chars + 1):
            cut = m.start()
        if cut <= start:  # one word longer than max_chars: nothing else to do
            cut = start + max_chars
            out.append((start, cut))
            start = cut
        else:
            end = cut
            while end > start and text[end - 1].isspace():
                end -= 1
            out.append((start, end))
            start = cut
        while start < b and text[start].isspace():
            start += 1
    if b > start:
        out.append((start, b))
    return out


def paragraph_texts(
    paragraphs: Iterable[str | Paragraph] | str,
) -> tuple[list[str], list[Paragraph] | None]:
    """Chunker input as its texts, plus the :class:`Paragraph` list (as
    :func:`~jw_rag.model.as_paragraphs` builds it) when any item is one.

    ``None`` for the paragraphs means every item is a plain string: no ids,
    pages, headings or kinds, so no ``Paragraph`` objects need to be built."""
    items: list[Any] = paragraph_items(paragraphs)  # type: ignore[arg-type]
    for p in items:
        if not isinstance(p, str):
            break
    else:
        return items, None
    paras = as_paragraphs(items)
    return [p.text for p in paras], paras


def resolve_language(
    paragraphs: Sequence[Paragraph], metadata: Mapping[str, Any] | None
) -> str | None:
    """``metadata["language"]`` when given, else detection over a sample of the text."""
    paras = paragraphs if isinstance(paragraphs, list) else list(paragraphs)
    return resolve_text_language([p.text for p in paras], paras, metadata)


def resolve_text_language(
    texts: Sequence[str],
    paragraphs: Sequence[Paragraph] | None,
    metadata: Mapping[str, Any] | None,
) -> str | None:
    """:func:`resolve_language` over ``texts`` (``paragraphs`` gives their
    kinds; ``None`` means none is a heading)."""
    if metadata and metadata.get("language"):
        return normalize_language(str(metadata["language"]))
    sample: list[str] = []
    size = 0
    for k, text in enumerate(texts):
        if paragraphs is not None and paragraphs[k].kind == "heading":
            continue
        sample.append(text)
        size += len(text)
        if size > 800:
            break
    return detect_language(" ".join(sample)[:1000]) if sample else None


#: A chunk-to-be without object overhead: ``(start_para, start_char,
#: end_para, end_char, extra)``, ``extra`` being merged into the metadata
#: (read only: chunkers may share one dict between several spans).
RawPiece = tuple[int, int, int, int, Mapping[str, Any] | None]


def as_pieces(raw: Iterable[RawPiece]) -> list[Piece]:
    """``raw`` as :class:`Piece` objects, each with its own copy of the extra."""
    return [Piece(Span(sp, sc, ep, ec), dict(extra or {})) for sp, sc, ep, ec, extra in raw]


def raw_pieces(pieces: Sequence[Piece] | Sequence[RawPiece]) -> Sequence[RawPiece]:
    """``pieces`` as :data:`RawPiece` tuples (each extra shared, not copied)."""
    if not pieces or not isinstance(pieces[0], Piece):
        return cast("Sequence[RawPiece]", pieces)
    raw: list[RawPiece] = []
    for piece in cast("Sequence[Piece]", pieces):
        span = piece.span
        raw.append((span.start_para, span.start_char, span.end_para, span.end_char, piece.extra))
    return raw


def build_chunks(
    paragraphs: Sequence[Paragraph],
    pieces: Sequence[Piece],
    source_id: str,
    *,
    chunker: str,
    version: str,
    language: str | None,
    metadata: Mapping[str, Any] | None,
) -> list[Chunk]:
    """Chunks for ``pieces`` with the metadata every chunker promises."""
    return build_raw_chunks(
        [p.text for p in paragraphs],
        paragraphs,
        raw_pieces(pieces),
        source_id,
        chunker=chunker,
        version=version,
        language=language,
        metadata=metadata,
    )


def build_raw_chunks(
    texts: Sequence[str],
    paragraphs: Sequence[Paragraph] | None,
    pieces: Sequence[RawPiece],
    source_id: str,
    *,
    chunker: str,
    version: str,
    language: str | None,
    metadata: Mapping[str, Any] | None,
) -> list[Chunk]:
    """:func:`build_chunks` over ``texts`` and raw pieces; ``paragraphs``
    ``None`` means plain strings (positions are the ids, no pages or headings)."""
    return list(iter_raw_chunks(texts, paragraphs, pieces, source_id, chunker=chunker,
                                version=version, language=language, metadata=metadata))  # fmt: skip


def iter_raw_chunks(
    texts: Sequence[str],
    paragraphs: Sequence[Paragraph] | None,
    pieces: Iterable[RawPiece],
    source_id: str,
    *,
    chunker: str,
    version: str,
    language: str | None,
    metadata: Mapping[str, Any] | None,
) -> Iterator[Chunk]:
    """:func:`build_raw_chunks` one chunk at a time, linked in reading order
    as they come (:func:`~jw_rag.chunk_ids.linked_in_order`)."""
    return linked_in_order(
        _raw_chunks(texts, paragraphs, pieces, source_id, chunker, version, language, metadata),
        number=False,
    )


def _raw_chunks(
    texts: Sequence[str],
    paragraphs: Sequence[Paragraph] | None,
    pieces: Iterable[RawPiece],
    source_id: str,
    chunker: str,
    version: str,
    language: str | None,
    metadata: Mapping[str, Any] | None,
) -> Iterator[Chunk]:
    template = _metadata_template(metadata, chunker, version, language)
    bases = _ExtraBases(template)
    reader = _SpanReader(texts, paragraphs)
    within, across = reader.within, reader.across
    last_extra: Mapping[str, Any] | None = None
    base: dict[str, Any] | None = template
    for index, (sp, sc, ep, ec, extra) in enumerate(pieces):
        if extra is not last_extra:
            last_extra = extra
            base = bases.get(extra)
        if sp == ep:  # the common case, inlined for plain strings
            text = texts[sp][sc:ec]
            para_ids, pages, heading_path = ([sp], None, ()) if paragraphs is None else within(sp)
        else:
            text, para_ids, pages, heading_path = across(sp, sc, ep, ec)
        meta = (template if base is None else base).copy()
        meta["para_ids"] = para_ids
        meta["span"] = {"start_para": sp, "start_char": sc, "end_para": ep, "end_char": ec}
        meta["chunk_index"] = index
        if pages:
            meta["pages"] = pages
        if heading_path:
            meta["heading_path"] = list(heading_path)
        if base is None:
            meta.update(extra or {})
        yield Chunk(span_id(source_id, chunker, Span(sp, sc, ep, ec)), text, source_id, meta)


def _metadata_template(
    metadata: Mapping[str, Any] | None, chunker: str, version: str, language: str | None
) -> dict[str, Any]:
    """The metadata every chunk starts from: the caller's, then the keys every
    chunk has, in the same order (the per-chunk ones ``None`` until set), so
    that a chunk's metadata is a copy of it with values set in place."""
    template: dict[str, Any] = dict(metadata or {})
    template["chunker"] = chunker
    template["chunker_version"] = version
    template["language"] = language
    template["para_ids"] = None
    template["span"] = None
    template["merge_reason"] = None
    template["closure_marker"] = None
    template["chunk_index"] = None
    return template


class _ExtraBases:
    """The template with each piece's extra merged once (see :func:`_with_extra`):
    pieces mostly share a few extras, and a merged copy saves an update per
    chunk. Keyed by the extra's id, kept with the extra so that the id cannot
    be reused meanwhile."""

    __slots__ = ("_by_id", "_template")

    def __init__(self, template: dict[str, Any]) -> None:
        self._template = template
        self._by_id: dict[int, tuple[Mapping[str, Any] | None, dict[str, Any] | None]] = {}

    def get(self, extra: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """The base for ``extra``'s chunks; ``None`` means merge it per chunk."""
        cached = self._by_id.get(id(extra))
        if cached is not None and cached[0] is extra:
            return cached[1]
        base = _with_extra(self._template, extra)
        self._by_id[id(extra)] = (extra, base)
        return base


#: A span's paragraph ids, pages (``None`` or empty when unknown) and heading path.
_Provenance = tuple[list[str | int], list[Any] | None, tuple[str, ...]]


class _SpanReader:
    """The provenance (and text) of spans over one document's paragraphs."""

    __slots__ = ("_has_pages", "_paragraphs", "_texts")

    def __init__(self, texts: Sequence[str], paragraphs: Sequence[Paragraph] | None) -> None:
        self._texts = texts
        self._paragraphs = paragraphs
        self._has_pages = paragraphs is not None and any(p.page is not None for p in paragraphs)

    def within(self, k: int) -> _Provenance:
        """A span inside paragraph ``k`` (given as a :class:`Paragraph`)."""
        assert self._paragraphs is not None
        para = self._paragraphs[k]
        pages = [para.page] if para.page is not None else None
        return [para.id if para.id is not None else k], pages, para.heading_path

    def across(
        self, sp: int, sc: int, ep: int, ec: int
    ) -> tuple[str, list[str | int], list[Any] | None, tuple[str, ...]]:
        """A span over several paragraphs: :func:`~jw_rag.model.rebuild_text`,
        inlined (the middle paragraphs whole and trimmed, blank ones left out,
        as they are from the paragraph ids)."""
        texts = self._texts
        n_paras = len(texts)
        head = texts[sp]  # an IndexError first, as for a single paragraph
        if not 0 <= sp <= ep < n_paras:
            raise ValueError(
                f"span {Span(sp, sc, ep, ec)} is outside the {n_paras} paragraphs given"
            )
        parts = [head[sc:].rstrip()]
        indexes = [sp]
        for k in range(sp + 1, ep):
            middle = texts[k].strip()
            if middle:
                parts.append(middle)
                indexes.append(k)
        parts.append(texts[ep][:ec].lstrip())
        indexes.append(ep)
        text = PARAGRAPH_SEPARATOR.join(parts)
        paragraphs = self._paragraphs
        if paragraphs is None:
            return text, list(indexes), None, ()
        pages: list[Any] | None = None
        if self._has_pages:  # each page once, in order: a dict, linear however many
            pages = list(
                dict.fromkeys(p for p in (paragraphs[k].page for k in indexes) if p is not None)
            )
        para_ids: list[str | int] = []
        for k in indexes:
            pid = paragraphs[k].id
            para_ids.append(pid if pid is not None else k)
        return text, para_ids, pages, paragraphs[sp].heading_path


#: Metadata keys build_raw_chunks sets per chunk before merging the extra.
_PER_CHUNK = frozenset({"para_ids", "span", "chunk_index", "pages", "heading_path"})


def _with_extra(template: dict[str, Any], extra: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``template`` with ``extra`` merged, when merging it before the per-chunk
    keys gives what merging it after them does: ``extra`` adds no key (so no
    key moves) and sets none of them. ``None`` means merge per chunk."""
    if not extra:
        return template
    keys = extra.keys()
    if not keys <= template.keys() or not _PER_CHUNK.isdisjoint(keys):
        return None
    merged = template.copy()
    merged.update(extra)
    return merged
