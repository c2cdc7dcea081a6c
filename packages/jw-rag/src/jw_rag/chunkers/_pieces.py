"""Shared machinery: turn spans ("pieces") into chunks with full provenance,
and split over-long text at sentence boundaries, never mid-word."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jw_core import detect_language, normalize_language, split_sentences
from jw_rag.model import Chunk, Paragraph, Span, rebuild_text

__all__ = ["Piece", "build_chunks", "resolve_language", "split_long"]


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
    word longer than ``max_chars`` is the only thing ever cut."""
    if hi - lo <= max_chars:
        return [(lo, hi)]
    sentences = [(lo + a, lo + b) for a, b in split_sentences(text[lo:hi], language)]
    units: list[tuple[int, int]] = []
    for a, b in sentences:
        if b - a <= max_chars:
            units.append((a, b))
        else:
            units.extend(_split_words(text, a, b, max_chars))
    # Balanced greedy packing: aim at an even size so the last piece is not a stub.
    n_target = -(-(hi - lo) // max_chars)
    target = max(1, min(max_chars, -(-(hi - lo) // n_target)))
    out: list[tuple[int, int]] = []
    cur_a, cur_b = units[0]
    for a, b in units[1:]:
        if b - cur_a <= max_chars and (cur_b - cur_a) < target:
            cur_b = b
        else:
            out.append((cur_a, cur_b))
            cur_a, cur_b = a, b
    out.append((cur_a, cur_b))
    return out


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


def resolve_language(
    paragraphs: Sequence[Paragraph], metadata: Mapping[str, Any] | None
) -> str | None:
    """``metadata["language"]`` when given, else detection over a sample of the text."""
    if metadata and metadata.get("language"):
        return normalize_language(str(metadata["language"]))
    sample: list[str] = []
    size = 0
    for p in paragraphs:
        if p.kind == "heading":
            continue
        sample.append(p.text)
        size += len(p.text)
        if size > 800:
            break
    return detect_language(" ".join(sample)[:1000]) if sample else None


def _chunk_id(source_id: str, chunker: str, span: Span) -> str:
    key = f"{source_id}\x1f{chunker}\x1f{span.start_para}.{span.start_char}-{span.end_para}.{span.end_char}"
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]
    return f"{source_id}:{digest}" if source_id else digest


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
    base = dict(metadata or {})
    texts = [p.text for p in paragraphs]
    has_pages = any(p.page is not None for p in paragraphs)
    chunks: list[Chunk] = []
    for index, piece in enumerate(pieces):
        span = piece.span
        sp, ep = span.start_para, span.end_para
        first = paragraphs[sp]
        if sp == ep:
            text = texts[sp][span.start_char : span.end_char]
            para_ids: list[str | int] = [first.id if first.id is not None else sp]
            pages = [first.page] if first.page is not None else []
        else:
            text = rebuild_text(texts, span)
            para_ids = []
            pages = []
            for k in range(sp, ep + 1):
                p = paragraphs[k]
                if sp < k < ep and not texts[k].strip():
                    continue
                para_ids.append(p.id if p.id is not None else k)
                if has_pages and p.page is not None and p.page not in pages:
                    pages.append(p.page)
        meta: dict[str, Any] = dict(base)
        meta["chunker"] = chunker
        meta["chunker_version"] = version
        meta["language"] = language
        meta["para_ids"] = para_ids
        meta["span"] = {
            "start_para": sp,
            "start_char": span.start_char,
            "end_para": ep,
            "end_char": span.end_char,
        }
        meta["merge_reason"] = None
        meta["closure_marker"] = None
        meta["chunk_index"] = index
        if pages:
            meta["pages"] = pages
        if first.heading_path:
            meta["heading_path"] = list(first.heading_path)
        if piece.extra:
            meta.update(piece.extra)
        chunks.append(Chunk(_chunk_id(source_id, chunker, span), text, source_id, meta))
    prev: Chunk | None = None
    for c in chunks:
        c.metadata["prev_id"] = prev.id if prev is not None else None
        if prev is not None:
            prev.metadata["next_id"] = c.id
        prev = c
    if prev is not None:
        prev.metadata["next_id"] = None
    return chunks
