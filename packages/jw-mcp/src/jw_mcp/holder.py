"""One store, and with it one embedder, per server process.

The store is opened on the first call that needs it and shared by every later
call and client connection. Opening is serialised by a lock (the SDK runs
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


class StoreHolder:
    """The server's store, opened once on first use; ``opens`` counts successful opens."""

    def __init__(self, location: Callable[[], str] = default_store) -> None:
        self._location = location
        self._lock = threading.Lock()
        self._store: Store | None = None
        self.opens = 0

    def get(self, *, existing: bool = False) -> Store:
        """The open store; ``existing=True`` (read-only tools) refuses to create one."""
        with self._lock:
            if self._store is None:
                location = self._location()
                if existing:
                    existing_store(location)
                self._store = open_store(location, embedder=WatchedEmbedder(get_embedder()))
                self.opens += 1
            return self._store

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
