"""What sources a store holds, a page at a time, for tools that browse a store."""

from __future__ import annotations

from dataclasses import dataclass

from jw_rag.store.protocol import Store

__all__ = ["SourceEntry", "SourcePage", "list_sources"]


@dataclass(frozen=True, slots=True)
class SourceEntry:
    """One stored source: its id, what its last ingest recorded, and its chunk count."""

    source_id: str
    title: str | None
    language: str | None
    chunker: str | None
    chunks: int
    ingested_at: str | None


@dataclass(frozen=True, slots=True)
class SourcePage:
    """``sources`` ordered by id, from ``offset``; ``total`` sources in the store."""

    sources: list[SourceEntry]
    offset: int
    total: int


def list_sources(store: Store, *, offset: int = 0, limit: int = 50) -> SourcePage:
    """The sources with chunks in ``store``, ordered by id, ``limit`` from ``offset``."""
    counts: dict[str, int] = store.stats()["per_source"]
    ids = sorted(counts)
    entries = []
    for source_id in ids[offset : offset + limit]:
        row = store.get_source(source_id) or {}
        meta = row.get("metadata") or {}
        entries.append(
            SourceEntry(
                source_id=source_id,
                title=meta.get("title") or None,
                language=meta.get("language"),
                chunker=meta.get("chunker"),
                chunks=counts[source_id],
                ingested_at=row.get("ingested_at"),
            )
        )
    return SourcePage(entries, offset, len(ids))
