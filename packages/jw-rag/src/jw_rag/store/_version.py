"""The schema version check every backend runs before touching a store."""

from __future__ import annotations

from jw_rag.errors import StoreError

__all__ = ["is_current"]


def is_current(version: int, known: int, where: object) -> bool:
    """Whether a store at schema ``version`` needs no migration to ``known``;
    a store newer than this jw-rag is refused."""
    if version > known:
        raise StoreError(
            f"{where} uses store schema {version} but this jw-rag knows up to "
            f"{known}: upgrade jw-rag to open it"
        )
    return version == known
