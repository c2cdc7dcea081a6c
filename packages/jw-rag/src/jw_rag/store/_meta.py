"""The store's key/value metadata table, checked as it is read.

Both backends keep a few numbers in it (the embedder's ``dim``, SQLite's
``changes`` counter, PostgreSQL's HNSW graph): a value edited by hand is a
one-line :class:`~jw_rag.errors.StoreError` naming the key, never a
``ValueError`` from ``int()`` deep inside a search.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from jw_rag.errors import StoreError, shown_value

__all__ = ["MAX_DIM", "checked_meta"]

#: The widest embedding a store accepts (pgvector's own limit is 16,000).
MAX_DIM = 65_536

#: The whole-number keys every store may hold, with their valid range.
_NUMBERS: dict[str, tuple[int, int | None]] = {"dim": (1, MAX_DIM), "changes": (0, None)}


def checked_meta(
    rows: Iterable[tuple[str, str]],
    table: str,
    where: object,
    *,
    numbers: Mapping[str, tuple[int, int | None]] | None = None,
    required: tuple[str, ...] = (),
    pairs: tuple[tuple[str, str], ...] = (),
) -> dict[str, str]:
    """``rows`` of ``table`` (the store at ``where``) as a dict, once every
    number in it (``dim``, ``changes`` and the backend's own ``numbers``) is a
    whole number in its range, every ``required`` key is there, and the two
    keys of ``dim`` and ``model_id`` (and of each of ``pairs``) are both
    present or both absent."""
    meta = dict(rows)
    ranges = _NUMBERS | dict(numbers or {})
    fix = "restore the store from a copy, or ingest into a new store"
    for key in required:
        if key not in meta:
            raise StoreError(f"{where}: {table} has no {key!r} entry (edited by hand?): {fix}")
    for key, (low, high) in ranges.items():
        value = meta.get(key)
        if value is None:
            continue
        text = value.strip() if isinstance(value, str) else ""
        number = int(text) if text.isascii() and text.isdigit() and len(text) <= 19 else -1
        if not low <= number <= (number if high is None else high):
            span = f"of {low} or more" if high is None else f"from {low} to {high}"
            raise StoreError(
                f"{where}: {table} key {key!r} holds {shown_value(value)}, not a whole number "
                f"{span} (edited by hand?): {fix}"
            )
    for one, other in (("dim", "model_id"), *pairs):
        if (one in meta) != (other in meta):
            have, lacks = (one, other) if one in meta else (other, one)
            raise StoreError(
                f"{where}: {table} has {have!r} but no {lacks!r} entry (edited by hand?): {fix}"
            )
    return meta
