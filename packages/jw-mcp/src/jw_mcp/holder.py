"""One store, and with it one embedder, per server process.

The store is opened on the first call that needs it and shared by every later
call and client connection: read-only while only reads came (nothing is
created or changed by them), for writing from the first write on. Opening is serialised by a lock (the SDK runs
synchronous tools on worker threads). A failed open raises on that call and
leaves nothing behind, so the next call tries again. The embedder is wrapped
in :class:`~jw_mcp.watched.WatchedEmbedder` (batches checked against the
call's deadline, progress reported).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from jw_mcp.watched import WatchedEmbedder
from jw_rag.config import default_store, existing_store
from jw_rag.embed import get_embedder
from jw_rag.store import Store, open_store

__all__ = ["StoreHolder"]


def recorded_embedder(location: str) -> str | None:
    """The embedder the store at ``location`` was built with (see
    :meth:`jw_rag.store._base.StoreCore.recorded_embedder`); None when there is
    no store yet, or ``$JW_EMBEDDER`` chooses."""
    try:
        existing_store(location)
        with open_store(location, read_only=True) as store:
            return store.recorded_embedder()
    except Exception:  # noqa: BLE001 - no store yet: the default embedder
        return None


class StoreHolder:
    """The server's store, opened once on first use; ``opens`` counts successful opens."""

    def __init__(self, location: Callable[[], str] = default_store) -> None:
        self._location = location
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._writable = False  # opened for writing (a read-only file stays read-only)
        self._retired: list[Store] = []
        self._embedder: WatchedEmbedder | None = None
        self.opens = 0

    def get(self, *, existing: bool = False, write: bool = True) -> Store:
        """The open store; ``existing=True`` refuses to create one. A read
        (``write=False``) before any write opens the store read-only, so it
        creates or changes nothing; the first write opens it for writing, and
        every later call shares that one."""
        with self._lock:
            held = self._store
            if held is not None and (self._writable or not write):
                return held
            location = self._location()
            if existing or not write:
                existing_store(location)
            if self._embedder is None:  # one model for both stores
                self._embedder = WatchedEmbedder(get_embedder(recorded_embedder(location)))
            store = open_store(
                location, embedder=self._embedder, read_only=not write, create=not existing
            )
            if held is not None:
                self._retired.append(held)  # reads may still use it; closed with the holder
            self._store = store
            self._writable = write
            self.opens += 1
            return store

    def close(self) -> None:
        with self._lock:
            for store in [*self._retired, *([self._store] if self._store else [])]:
                store.close()
            self._retired.clear()
            self._store = None
            self._writable = False
