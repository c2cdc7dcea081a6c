"""Rows staged for one write: validated, encoded and embedded a batch at a time
before the write transaction starts, and kept on disk past the first batch.

A source of any size then costs the memory of one batch (its chunks, their
JSON, embedding inputs and vectors) instead of all of them at once, and the
embedder still runs before any lock is taken. Batches past the first are
pickled into an anonymous temporary file (``tempfile.TemporaryFile``: it has
no name, so nothing else can open or change it, and it vanishes when closed),
then read back one at a time inside the transaction.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING

from jw_rag.model import Chunk
from jw_rag.store._rows import ChunkRow, encode_chunks

if TYPE_CHECKING:
    from jw_rag.embed.protocol import Vectors

__all__ = ["STAGE_BATCH", "Staged", "batched"]

#: Chunks validated, embedded and written together.
STAGE_BATCH = 256

Batch = tuple[list[ChunkRow], "Vectors"]


def batched(chunks: Iterable[Chunk], size: int = STAGE_BATCH) -> Iterator[list[Chunk]]:
    """``chunks`` in lists of at most ``size``."""
    batch: list[Chunk] = []
    for chunk in chunks:
        batch.append(chunk)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class Staged:
    """The encoded and embedded rows of one write, in batches (see the module
    docstring); ``rows`` is how many there are. Close it (or use ``with``)."""

    def __init__(self) -> None:
        self.rows = 0
        self._first: Batch | None = None
        self._spill: IO[bytes] | None = None
        self._spilled = 0

    @classmethod
    def build(
        cls,
        chunks: Iterable[Chunk],
        embed: Callable[[list[ChunkRow]], Vectors],
        check: Callable[[Chunk], None] = lambda _c: None,
    ) -> Staged:
        """Rows of ``chunks`` (each passed to ``check`` first), ids unique
        across every batch, embedded with ``embed`` a batch at a time."""
        staged = cls()
        seen: set[str] = set()
        try:
            for batch in batched(chunks):
                for chunk in batch:
                    check(chunk)
                rows = encode_chunks(batch, seen=seen, first=staged.rows)
                staged._add((rows, embed(rows)))
        except BaseException:
            staged.close()
            raise
        return staged

    def _add(self, batch: Batch) -> None:
        self.rows += len(batch[0])
        if self._first is None:
            self._first = batch
            return
        if self._spill is None:
            self._spill = tempfile.TemporaryFile(prefix="jw-stage-")  # noqa: SIM115 - closed in close()
        pickle.dump(batch, self._spill, protocol=pickle.HIGHEST_PROTOCOL)
        self._spilled += 1

    def first_rows(self) -> list[ChunkRow]:
        """The first batch's rows (empty when there are none)."""
        return [] if self._first is None else self._first[0]

    def batches(self) -> Iterator[Batch]:
        """Every batch in order, the spilled ones read back one at a time."""
        if self._first is None:
            return
        yield self._first
        if self._spill is None:
            return
        self._spill.seek(0)
        for _ in range(self._spilled):
            yield pickle.load(self._spill)  # noqa: S301 - our own anonymous file

    def close(self) -> None:
        self._first = None
        if self._spill is not None:
            self._spill.close()
            self._spill = None

    def __enter__(self) -> Staged:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
