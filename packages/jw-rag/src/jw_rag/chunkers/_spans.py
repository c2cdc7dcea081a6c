"""The loops that decide where chunks start and end.

Each takes a document's paragraph texts and returns raw pieces
(:data:`~jw_rag.chunkers._pieces.RawPiece`): the paragraph rules
(:func:`paragraph_spans`, behind ``chunk_paragraphs``) and the semantic
chunker's marker rules and packing mode (:func:`marker_spans`,
:func:`packed_spans`; the rules are in ``semantic_chunker``'s docstring).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jw_core import ends_sentence
from jw_rag.chunkers._pieces import RawPiece, split_long
from jw_rag.chunkers.markers import MarkerSet
from jw_rag.model import PARAGRAPH_SEPARATOR

__all__ = ["marker_spans", "packed_spans", "paragraph_spans"]

_SEP = len(PARAGRAPH_SEPARATOR)

_SINGLE: Mapping[str, Any] = {"merge_reason": None}
_MERGED: Mapping[str, Any] = {"merge_reason": "short_paragraph"}


def _contents(texts: Sequence[str]) -> list[tuple[int, str, str, int, int]]:
    """``(index, text, stripped, lo, hi)`` for each paragraph with content:
    ``text[lo:hi]`` is its stripped text."""
    out: list[tuple[int, str, str, int, int]] = []
    append = out.append
    for i, text in enumerate(texts):
        stripped = text.strip()
        if stripped:
            lo = text.find(stripped[0])
            append((i, text, stripped, lo, lo + len(stripped)))
    return out


def paragraph_spans(
    texts: Sequence[str],
    *,
    max_chars: int,
    min_chars: int,
    language: str | None = None,
    single: Mapping[str, Any] = _SINGLE,
    merged: Mapping[str, Any] = _MERGED,
) -> list[RawPiece]:
    """:func:`paragraph_pieces` over plain texts, as raw pieces whose extra is
    ``merged`` for several paragraphs merged, else ``single`` (both shared)."""
    pieces: list[RawPiece] = []
    append = pieces.append
    sp = sc = ep = ec = 0
    open_ = False
    length = count = 0
    for i, text in enumerate(texts):  # the loop of _contents, inlined: the hottest path
        stripped = text.strip()
        if not stripped:
            continue
        lo = text.find(stripped[0])
        size = len(stripped)
        hi = lo + size
        if size > max_chars:
            if open_:
                append((sp, sc, ep, ec, merged if count > 1 else single))
                open_ = False
            for a, b in split_long(text, lo, hi, max_chars, language):
                append((i, a, i, b, single))
            continue
        if open_ and length + _SEP + size > max_chars:
            append((sp, sc, ep, ec, merged if count > 1 else single))
            open_ = False
        if open_:
            length += _SEP + size
            count += 1
        else:
            open_, sp, sc, length, count = True, i, lo, size, 1
        ep, ec = i, hi
        if length >= min_chars and ends_sentence(stripped[-8:]):
            append((sp, sc, ep, ec, merged if count > 1 else single))
            open_ = False
    if open_:
        append((sp, sc, ep, ec, merged if count > 1 else single))
    return pieces


def marker_spans(
    texts: Sequence[str],
    markers: MarkerSet,
    language: str | None,
    *,
    cap: int,
    max_chars: int,
    min_chars: int,
    max_continuations: int,
) -> list[RawPiece]:
    """The semantic chunker's marker rules over ``texts``."""
    pieces: list[RawPiece] = []
    append = pieces.append
    open_ = False
    sp = sc = ep = ec = 0
    length = count = 0
    streak = 0  # consecutive marker merges into the open chunk
    reason: str | None = None
    last_text = ""
    for i, text, stripped, lo, hi in _contents(texts):
        size = hi - lo
        if size > max_chars:
            if open_:
                append((sp, sc, ep, ec, _marker_extra(count, reason, None)))
                open_, streak, reason = False, 0, None
            pieces.extend(_over_long(i, text, lo, hi, max_chars, language))
            continue
        found = markers.opener(text)
        closure, continuation = _NO_MARKERS if found is None else _by_kind(found)
        joined = False
        if open_:
            fits = length + _SEP + size
            if fits <= cap and ((continuation and streak < max_continuations) or closure):
                streak += 1
                reason = "continuation_marker"
                joined = True
            elif fits <= max_chars and (length < min_chars or not ends_sentence(last_text[-8:])):
                streak = 0
                reason = reason or "short_paragraph"
                joined = True
            else:
                append((sp, sc, ep, ec, _marker_extra(count, reason, None)))
                streak, reason = 0, None
        if joined:
            length += _SEP + size
            count += 1
        else:
            open_, sp, sc, length, count = True, i, lo, size, 1
        ep, ec = i, hi
        last_text = stripped
        if closure and length >= min_chars:
            append((sp, sc, ep, ec, _marker_extra(count, reason, closure)))
            open_, streak, reason = False, 0, None
    if open_:
        append((sp, sc, ep, ec, _marker_extra(count, reason, None)))
    return pieces


def packed_spans(
    texts: Sequence[str],
    kinds: Sequence[str] | None,
    markers: MarkerSet | None,
    language: str | None,
    *,
    target: int,
    cap: int,
    max_chars: int,
    min_chars: int,
) -> list[RawPiece]:
    """The semantic chunker's packing mode over ``texts`` (``kinds`` marks headings)."""
    half = target // 2
    pieces: list[RawPiece] = []
    append = pieces.append
    sp = sc = ep = ec = 0
    open_ = False
    length = count = 0
    linked = False
    closed_by: str | None = None
    for i, text, _, lo, hi in _contents(texts):
        size = hi - lo
        if size > max_chars:
            if open_:
                append((sp, sc, ep, ec, _packed_extra(count, linked, closed_by)))
                open_ = False
            pieces.extend(_over_long(i, text, lo, hi, max_chars, language))
            continue
        found = markers.opener(text) if markers is not None else None
        closure = found[1] if found is not None and found[0] == "closure" else None
        links = found is not None
        if open_:
            fits = length + _SEP + size
            join = False
            if links and fits <= cap and not closed_by:
                join = linked = True
            elif length < min_chars and fits <= max_chars:
                join = True  # a heading or a stub never stands alone
            elif fits <= target and not (
                length >= half and (closed_by or (kinds is not None and kinds[i] == "heading"))
            ):
                join = True
            if join:
                length, count, ep, ec = fits, count + 1, i, hi
            else:
                append((sp, sc, ep, ec, _packed_extra(count, linked, closed_by)))
                open_ = False
        if not open_:
            open_, sp, sc, ep, ec, length, count, linked = True, i, lo, i, hi, size, 1, False
            closed_by = None
        if closure and length >= min_chars:
            closed_by = closure
    if open_:
        append((sp, sc, ep, ec, _packed_extra(count, linked, closed_by)))
    return pieces


#: ``(closure, continuation)`` of a paragraph that opens with no marker.
_NO_MARKERS: tuple[str | None, str | None] = (None, None)


def _by_kind(found: tuple[str, str]) -> tuple[str | None, str | None]:
    """``(closure, continuation)`` for the opener :meth:`MarkerSet.opener`
    found: the marker in the place of its kind (a back-reference is neither)."""
    kind, marker = found
    return (marker if kind == "closure" else None, marker if kind == "continuation" else None)


def _over_long(
    i: int, text: str, lo: int, hi: int, max_chars: int, language: str | None
) -> list[RawPiece]:
    """The pieces of paragraph ``i``, whose content ``text[lo:hi]`` is longer
    than ``max_chars``: each alone, split at sentence ends."""
    single = _UNCLOSED[None]
    return [(i, a, i, b, single) for a, b in split_long(text, lo, hi, max_chars, language)]


#: The extras of pieces no closure marker closed, shared (extras are read only).
_UNCLOSED: dict[str | None, Mapping[str, Any]] = {
    reason: {"merge_reason": reason, "closure_marker": None}
    for reason in (None, "short_paragraph", "continuation_marker", "packed")
}


def _extra(reason: str | None, closure: str | None) -> Mapping[str, Any]:
    if closure is None:
        return _UNCLOSED[reason]
    return {"merge_reason": reason, "closure_marker": closure}


def _marker_extra(count: int, reason: str | None, closure: str | None) -> Mapping[str, Any]:
    return _extra(reason if count > 1 else None, closure)


def _packed_extra(count: int, linked: bool, closed_by: str | None) -> Mapping[str, Any]:
    reason = None if count == 1 else ("continuation_marker" if linked else "packed")
    return _extra(reason, closed_by)
