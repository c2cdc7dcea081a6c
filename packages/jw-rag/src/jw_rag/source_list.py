"""What sources a store holds, a page at a time, for tools that browse a store."""

from __future__ import annotations

from dataclasses import dataclass

from jw_rag.store.protocol import Store

__all__ = ["SourceEntry", "SourcePage", "list_sources"]


@dataclass(frozen=True, slots=True)
class SourceEntry:
    """One stored source: its id, what its last ingest recorded, and its chunk
    count. ``languages`` are those its chunks record (given at ingest, else
    detected; sorted), ``language`` the one among them, or ``None`` when they
    are several or none (then the language the ingest was given, if any)."""

    source_id: str
    title: str | None
    language: str | None
    chunker: str | None
    chunks: int
    ingested_at: str | None
    languages: tuple[str, ...] = ()


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
        languages = _languages(store, source_id, meta.get("language"))
        entries.append(
            SourceEntry(
                source_id=source_id,
                title=meta.get("title") or None,
                language=languages[0] if len(languages) == 1 else meta.get("language"),
                languages=languages,
                chunker=meta.get("chunker"),
                chunks=counts[source_id],
                ingested_at=row.get("ingested_at"),
            )
        )
    return SourcePage(entries, offset, len(ids))


def _languages(store: Store, source_id: str, given: object) -> tuple[str, ...]:
    """What the store's chunks record for the source; a store that cannot say
    gives the language the ingest recorded for the source, if any."""
    read = getattr(store, "source_languages", None)
    if read is not None:
        return tuple(read(source_id))
    return (given,) if isinstance(given, str) and given else ()
