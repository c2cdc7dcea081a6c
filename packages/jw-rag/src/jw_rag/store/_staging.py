"""Rows staged for one write: validated, encoded and embedded a batch at a time
before the write transaction starts, and kept on disk past the first batch.

A write of any size (one source, or every source of a folder) then costs the
memory of one batch (its chunks, their JSON, embedding inputs and vectors)
instead of all of them at once, and the embedder still runs before any lock
is taken. The write's first batch stays in memory; every later one, of any
source, is pickled into one anonymous temporary file
(``tempfile.TemporaryFile``: it has no name, so nothing else can open or
change it, and it vanishes when closed), then read back one at a time inside
the transaction, source by source in whatever order the writer takes them.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING

from jw_rag.errors import StoreError
from jw_rag.model import Chunk
from jw_rag.store._rows import ChunkRow, encode_chunks

if TYPE_CHECKING:
    from jw_rag.embed.protocol import Vectors

__all__ = ["STAGE_BATCH", "Staged", "batched"]

#: Chunks validated, embedded and written together.
STAGE_BATCH = 256

Batch = tuple[list[ChunkRow], "Vectors"]
_IN_MEMORY = -1  # where the write's first batch is kept, instead of a file offset


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
    """The encoded and embedded rows of one write, in batches, by part (a
    source id, or ``""`` for :meth:`StoreCore.add`); see the module docstring.
    Close it (or use ``with``): that deletes the spill."""

    def __init__(self) -> None:
        self._first: Batch | None = None
        self._spill: IO[bytes] | None = None
        self._places: dict[str, list[int]] = {}
        self._rows: dict[str, int] = {}

    def stage(
        self,
        part: str,
        chunks: Iterable[Chunk],
        embed: Callable[[list[ChunkRow]], Vectors],
        check: Callable[[Chunk], None] = lambda _c: None,
    ) -> int:
        """Stage the rows of ``chunks`` (each passed to ``check`` first) as
        ``part``: ids unique across its batches, each batch embedded with
        ``embed``; returns how many rows it holds. Each part is staged once.
        An exception leaves the caller to close the whole write."""
        places = self._places[part] = []
        seen: set[str] = set()
        count = 0
        for batch in batched(chunks):
            for chunk in batch:
                check(chunk)
            rows = encode_chunks(batch, seen=seen, first=count)
            places.append(self._keep((rows, embed(rows))))
            count += len(rows)
        self._rows[part] = count
        return count

    def _keep(self, batch: Batch) -> int:
        if self._first is None:
            self._first = batch
            return _IN_MEMORY
        with _spill_errors():
            if self._spill is None:
                self._spill = tempfile.TemporaryFile(prefix="jw-stage-")  # noqa: SIM115 - closed in close()
            self._spill.seek(0, 2)
            where = self._spill.tell()
            pickle.dump(batch, self._spill, protocol=pickle.HIGHEST_PROTOCOL)
        return where

    def rows(self, part: str) -> int:
        """How many rows ``part`` holds (0 when it was never staged)."""
        return self._rows.get(part, 0)

    def batches(self, part: str) -> Iterator[Batch]:
        """Every batch of ``part`` in order, the spilled ones read back one at a time."""
        for where in self._places.get(part, ()):
            if where == _IN_MEMORY:
                assert self._first is not None
                yield self._first
            else:
                assert self._spill is not None
                with _spill_errors():
                    self._spill.seek(where)  # flushes what is still buffered
                    batch = pickle.load(self._spill)  # noqa: S301 - our own anonymous file
                yield batch

    def close(self) -> None:
        self._first = None
        self._places.clear()
        if self._spill is not None:
            spill, self._spill = self._spill, None
            try:
                spill.close()
            except OSError:  # bytes it could not flush: an anonymous file, never read again
                pass

    def __enter__(self) -> Staged:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def _spill_errors() -> Iterator[None]:
    """A temporary folder that is full or cannot be written fails the write in
    one line naming it (the write has not begun, or is rolled back)."""
    try:
        yield
    except OSError as exc:
        raise StoreError(
            f"the temporary folder {tempfile.gettempdir()} cannot hold this write's staged "
            f"batches ({exc.strerror or exc}); nothing was stored: free space there or set "
            "TMPDIR to a folder with room"
        ) from None
