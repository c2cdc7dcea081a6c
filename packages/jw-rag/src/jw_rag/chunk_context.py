"""One stored chunk with the chunks before and after it in its source.

Neighbours follow each chunk's ``prev_id`` / ``next_id`` metadata, the links
the chunkers record, so they come in reading order and never cross sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jw_rag.errors import StoreError
from jw_rag.model import Chunk
from jw_rag.store.protocol import Store

__all__ = ["ChunkContext", "chunk_with_neighbours"]


@dataclass(frozen=True, slots=True)
class ChunkContext:
    """``chunk`` with up to the asked number of ``before`` and ``after`` chunks, in reading order."""

    chunk: Chunk
    before: list[Chunk] = field(default_factory=list)
    after: list[Chunk] = field(default_factory=list)


def _walk(store: Store, start: Chunk, link: str, steps: int) -> list[Chunk]:
    out: list[Chunk] = []
    current = start
    for _ in range(steps):
        next_id = current.metadata.get(link)
        found = store.get([next_id]) if next_id else []
        if not found:
            break
        current = found[0]
        out.append(current)
    return out


def chunk_with_neighbours(
    store: Store, chunk_id: str, *, before: int = 0, after: int = 0
) -> ChunkContext:
    """The chunk ``chunk_id`` with up to ``before`` and ``after`` neighbours;
    an id not in the store raises :class:`~jw_rag.errors.StoreError`."""
    found = store.get([chunk_id])
    if not found:
        raise StoreError(f"no chunk {chunk_id!r} in the store: use an id a search returned")
    chunk = found[0]
    previous = _walk(store, chunk, "prev_id", before)
    return ChunkContext(chunk, previous[::-1], _walk(store, chunk, "next_id", after))
