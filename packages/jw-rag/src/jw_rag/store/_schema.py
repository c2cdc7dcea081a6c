"""The SQLite store's schema, its numbered migrations, and the checks run
before a file is touched.

Version history (one entry per migration, recorded in ``schema_version``):

1. sources, chunks, vectors, parents, the FTS5 index and ``store_meta``
   (embedder ``model_id``/``dim`` and a ``changes`` counter bumped by every
   write, which readers use to invalidate cached vectors).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from jw_rag._sqlite_errors import sqlite_cause
from jw_rag.errors import StoreError
from jw_rag.store._version import is_current, recorded_version

__all__ = ["IN_JSON", "SCHEMA_VERSION", "check_exists", "check_readable", "prepare"]

#: A condition on a column: its value is one of a JSON list's, given as one
#: parameter whatever the list's length (no statement grows with it).
IN_JSON = "IN (SELECT value FROM json_each(?))"

_V1 = """
CREATE TABLE sources (
    source_id    TEXT PRIMARY KEY,
    content_hash TEXT,
    metadata     TEXT NOT NULL DEFAULT '{}',
    ingested_at  TEXT NOT NULL
);
CREATE TABLE chunks (
    rowid           INTEGER PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    source_id       TEXT NOT NULL,
    ord             INTEGER NOT NULL,
    text            TEXT NOT NULL,
    metadata        TEXT NOT NULL,
    language        TEXT,
    chunker         TEXT,
    chunker_version TEXT,
    parent_id       TEXT
);
CREATE INDEX chunks_by_source ON chunks (source_id, ord);
CREATE INDEX chunks_by_language ON chunks (language);
CREATE INDEX chunks_by_chunker ON chunks (chunker, chunker_version);
CREATE TABLE vectors (
    chunk_rowid INTEGER PRIMARY KEY REFERENCES chunks (rowid) ON DELETE CASCADE,
    model_id    TEXT NOT NULL,
    vector      BLOB NOT NULL
);
CREATE TABLE parents (
    id        TEXT PRIMARY KEY,
    source_id TEXT NOT NULL,
    text      TEXT NOT NULL,
    metadata  TEXT NOT NULL
);
CREATE INDEX parents_by_source ON parents (source_id);
CREATE VIRTUAL TABLE chunks_fts USING fts5 (tokens, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO store_meta (key, value) VALUES ('changes', '0');
"""

#: Migration scripts by the version they bring the file to.
_MIGRATIONS: dict[int, str] = {1: _V1}
SCHEMA_VERSION = max(_MIGRATIONS)


def _tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {r[0] for r in rows}


def _current_version(conn: sqlite3.Connection, path: Path) -> int:
    """0 for an empty database; raises when the file is not a store of ours
    (a SQLite error of another cause, such as a file it may not open, is
    raised as it is, for the caller to name)."""
    try:
        tables = _tables(conn)
    except sqlite3.DatabaseError as exc:
        if sqlite_cause(exc) not in ("notadb", "damaged"):
            raise
        raise StoreError(
            f"{path} is not a SQLite database ({exc}): move it away or open another store path"
        ) from None
    if not tables:
        return 0
    if "schema_version" not in tables or "chunks" not in tables:
        raise StoreError(
            f"{path} is a SQLite database but not a jw-rag store: open another store path"
        )
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return recorded_version(row[0], "schema_version", path)


def check_exists(conn: sqlite3.Connection, path: Path) -> int:
    """The schema version of the store in the file, changing nothing; an empty
    database (an empty file, or one without tables) is a one-line StoreError,
    for the opens that must not create a store."""
    version = _current_version(conn, path)
    if version == 0:
        raise StoreError(
            f"{path} holds no jw-rag store (an empty database): ingest a source into it "
            "first, or open another store path"
        )
    return version


def check_readable(conn: sqlite3.Connection, path: Path) -> int:
    """The schema version of a store opened read-only, which is never migrated
    or created: an empty database or an older schema is a one-line StoreError."""
    version = check_exists(conn, path)
    if not is_current(version, SCHEMA_VERSION, path):
        raise StoreError(
            f"{path} uses store schema {version}, older than this jw-rag's {SCHEMA_VERSION}: "
            "ingest into it once (which upgrades it) before reading it read-only"
        )
    return version


def prepare(conn: sqlite3.Connection, path: Path) -> int:
    """Check the file, then apply pending migrations; returns the schema version.

    Nothing is written until the file is known to be an empty database or an
    older (or current) version of this store.
    """
    version = _current_version(conn, path)
    if is_current(version, SCHEMA_VERSION, path):
        return version
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = _current_version(conn, path)  # another process may have migrated meanwhile
        if version == 0:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
        for target in sorted(v for v in _MIGRATIONS if v > version):
            for statement in _MIGRATIONS[target].split(";\n"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                (target, datetime.now(UTC).isoformat(timespec="seconds")),
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return SCHEMA_VERSION
