"""One shape for a delivered hit, for agents and scripts.

``jw rag search --json`` and the MCP ``search`` tool both print
:func:`hit_records` of a :class:`~jw_rag.retrieve.Delivery`, so what an agent
reads is the same whichever way it asks. The shape spends its characters on
text: the delivered text once, in reading order, and only the metadata a
reader cites or filters by.

=================  ===========================================================
key                value
=================  ===========================================================
``score``          the store's score, rounded to 4 decimals (null if not finite)
``id``             the hit's chunk id (``get_chunk`` / ``jw rag`` take it)
``source_id``      the stored source's id (never a file path)
``text``           every chunk delivered for the hit, in reading order, joined
                   by a blank line: the hit's own text appears once, inside it
``hit``            ``[start, end]``: where the hit's own chunk stands in
                   ``text``; absent when ``text`` is the hit alone (or when
                   the hit cannot be found in it)
``heading``        where the hit stands: the source's title (on the first hit
                   of each source only: later hits of the same source give
                   the headings alone), then the headings above the hit,
                   joined by ``" > "``
``pages``          page numbers, when known
``para_ids``       paragraph ids, **always strings**: the source's own id
                   (``data-pid``, verse id) as is, a paragraph without one
                   as ``"#N"`` (its position in the source, from 0)
``folded``         ids of other store hits whose text ``text`` already holds
                   (they are not delivered again); absent when none
=================  ===========================================================

The hits come in delivery order (the first is rank 1). Empty values are left
out, and so is what a reader finds elsewhere: a source's language (the
``language`` filter chooses it; ``list_sources`` and ``jw rag stats`` show it)
and the ids of the context chunks (``get_chunk`` with ``before``/``after``). Nothing here is a server path or an internal
window id.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from jw_rag.model import PARAGRAPH_SEPARATOR
from jw_rag.store.protocol import SearchHit

__all__ = ["SCORE_DIGITS", "hit_record", "hit_records", "para_id", "para_ids"]

SCORE_DIGITS = 4


def para_id(value: Any) -> str:
    """A paragraph id as a string: a source id as is, a position as ``#N``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"#{value}"
    return str(value)


def para_ids(values: Iterable[Any] | None) -> list[str]:
    """:func:`para_id` of each value."""
    return [para_id(v) for v in values or ()]


def _hit_range(text_parts: Sequence[str], ids: Sequence[str], hit: Any) -> list[int] | None:
    if hit.id not in ids:  # a parent delivered in the hit's place: find the hit in it
        found = PARAGRAPH_SEPARATOR.join(text_parts).find(hit.text) if hit.text else -1
        return None if found < 0 else [found, found + len(hit.text)]
    at = ids.index(hit.id)
    start = sum(len(t) + len(PARAGRAPH_SEPARATOR) for t in text_parts[:at])
    return [start, start + len(text_parts[at])]


def hit_record(
    hit: SearchHit, folded: Sequence[str] = (), *, with_title: bool = True
) -> dict[str, Any]:
    """One delivered hit as the table in the module docstring describes it
    (``with_title=False``: the heading without the source's title)."""
    chunk = hit.chunk
    meta = chunk.metadata
    delivered = list(hit.expanded) or [chunk]
    parts = [c.text for c in delivered]
    ids = [c.id for c in delivered]  # get_chunk(id, before=, after=) reaches the others
    score = hit.score
    out: dict[str, Any] = {
        "score": round(score, SCORE_DIGITS) if math.isfinite(score) else None,
        "id": chunk.id,
        "source_id": chunk.source_id,
        "text": PARAGRAPH_SEPARATOR.join(parts),
    }
    where = _hit_range(parts, ids, chunk)
    if where is not None and where != [0, len(out["text"])]:
        out["hit"] = where
    title = meta.get("title")
    heading = [str(h) for h in meta.get("heading_path") or ()]
    if heading and heading[0] == title and not with_title:
        heading = heading[1:]
    elif title and with_title and (not heading or heading[0] != title):
        heading.insert(0, str(title))
    optional = {
        "heading": " > ".join(heading),
        "pages": list(meta.get("pages") or ()),
        "para_ids": para_ids(meta.get("para_ids")),
        "folded": [f for f in folded if f != chunk.id],
    }
    out.update((key, value) for key, value in optional.items() if value)
    return out


def hit_records(delivery: Sequence[SearchHit]) -> list[dict[str, Any]]:
    """:func:`hit_record` of every hit of ``delivery`` (a
    :class:`~jw_rag.retrieve.Delivery` says what each hit folded)."""
    folded_into = getattr(delivery, "folded_into", None)
    seen: set[str] = set()
    out = []
    for h in delivery:
        folded = folded_into(h.rank) if callable(folded_into) else ()
        out.append(hit_record(h, folded, with_title=h.chunk.source_id not in seen))
        seen.add(h.chunk.source_id)
    return out
