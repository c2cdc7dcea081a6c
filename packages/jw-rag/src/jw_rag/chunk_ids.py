"""Chunk ids and reading-order links, made in one place.

Every unit a source is indexed as (a chunker's chunk, a retrieval passage, a
window, a benchmark peer's chunk) gets its id from :func:`unit_id`: the source
id, a tag naming the kind of unit (``""`` for chunks, ``"u"`` for passages and
groups, ``"w"`` for windows), then the first 12 hex digits of the SHA-1 of a
key that says what the unit is. A chunk's key is its source, its chunker and
its span (:func:`span_id`), so re-chunking unchanged text gives the same ids.

:func:`link_in_order` numbers one source's units (``chunk_index``) and links
them in reading order (``prev_id`` / ``next_id``), which neighbour expansion
(:mod:`jw_rag.chunk_context`, :mod:`jw_rag.retrieve`) follows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence

from jw_rag.model import Chunk, Span

__all__ = ["KEY_SEPARATOR", "link_in_order", "linked_in_order", "span_id", "unit_id"]

#: Joins the parts of an id's key (a character no source id or name holds).
KEY_SEPARATOR = "\x1f"


def unit_id(source_id: str, *key: object, tag: str = "") -> str:
    """``"<source_id>:<tag><digest>"``, the digest being the first 12 hex digits
    of the SHA-1 of the ``key`` parts joined by :data:`KEY_SEPARATOR`.

    An untagged id of a source without an id (``""``) is the bare digest.

    >>> unit_id("doc", "peer", "0-120")
    'doc:c1d7d63bc0b8'
    """
    digest = hashlib.sha1(
        KEY_SEPARATOR.join(map(str, key)).encode("utf-8", "surrogatepass")
    ).hexdigest()[:12]
    return f"{source_id}:{tag}{digest}" if source_id or tag else digest


def span_id(source_id: str, maker: str, span: Span, *, tag: str = "") -> str:
    """The id of a unit of ``source_id`` that ``maker`` (a chunker's name, a unit
    kind) made over ``span``: its key is the source, the maker and the span
    (``"<start_para>.<start_char>-<end_para>.<end_char>"``).

    >>> span_id("doc", "paragraph", Span(0, 0, 0, 5))
    'doc:01df1259321f'
    """
    where = f"{span.start_para}.{span.start_char}-{span.end_para}.{span.end_char}"
    return unit_id(source_id, source_id, maker, where, tag=tag)


def link_in_order(units: Sequence[Chunk], *, number: bool = True) -> None:
    """Link ``units`` (one source's, in reading order) in place: each one's
    ``prev_id`` and ``next_id`` name its neighbours (``None`` at the ends) and,
    with ``number``, ``chunk_index`` is its position."""
    last = len(units) - 1
    for index, unit in enumerate(units):
        meta = unit.metadata
        if number:
            meta["chunk_index"] = index
        meta["prev_id"] = units[index - 1].id if index else None
        meta["next_id"] = units[index + 1].id if index < last else None


def linked_in_order(units: Iterable[Chunk], *, number: bool = True) -> Iterator[Chunk]:
    """:func:`link_in_order` as the units come: each one is given once the next
    is known (its ``next_id``), so one unit is held ahead, never the list."""
    previous: Chunk | None = None
    for index, unit in enumerate(units):
        meta = unit.metadata
        if number:
            meta["chunk_index"] = index
        meta["prev_id"] = previous.id if previous is not None else None
        if previous is not None:
            previous.metadata["next_id"] = unit.id
            yield previous
        meta["next_id"] = None
        previous = unit
    if previous is not None:
        yield previous
