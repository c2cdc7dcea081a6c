"""Switching an SQLite file to WAL while other processes use it.

SQLite answers ``PRAGMA journal_mode = WAL`` with "database is locked" at once,
without calling the busy handler, when another connection holds a lock on a
file still in rollback mode (two processes opening a new file together). So
the switch is retried here until ``timeout`` runs out.
"""

from __future__ import annotations

import sqlite3
import time

__all__ = ["enable_wal"]


def enable_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """Put ``conn``'s database in WAL mode, waiting up to ``timeout`` seconds
    for other connections' locks; other errors are raised at once."""
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchall()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
