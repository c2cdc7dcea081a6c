"""The schema version check every backend runs before touching a store."""

from __future__ import annotations

from jw_rag.errors import StoreError

__all__ = ["is_current", "recorded_version"]


def is_current(version: int, known: int, where: object) -> bool:
    """Whether a store at schema ``version`` needs no migration to ``known``;
    a store newer than this jw-rag is refused."""
    if version > known:
        raise StoreError(
            f"{where} uses store schema {version} but this jw-rag knows up to "
            f"{known}: upgrade jw-rag to open it"
        )
    return version == known


def recorded_version(value: object, table: str, where: object) -> int:
    """The schema version ``MAX(version)`` of ``table`` gave for a store whose
    tables exist: a missing or garbled one (the table emptied or rewritten by
    hand) is a one-line StoreError, never taken for an empty database (which
    would run the first migration over the existing tables)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    shown = "no row" if value is None else f"{str(value)[:40]!r}"
    raise StoreError(
        f"{where} has jw-rag tables but its {table} table holds {shown} instead of a "
        "schema version (edited by hand?): restore the store from a copy, or use a new one"
    )
