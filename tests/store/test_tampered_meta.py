"""A store whose metadata table or schema version was edited by hand opens
with a one-line StoreError naming the key and the fix, on both backends,
never a ValueError, KeyError or MemoryError from deep inside a search."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from jw_rag.errors import StoreError
from jw_rag.store import SQLiteStore
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder, make_chunks

#: (what is done to the metadata table, the key the error must name)
SQLITE_CASES = [
    ("UPDATE store_meta SET value = 'abc' WHERE key = 'dim'", "'dim'"),
    ("UPDATE store_meta SET value = '-3' WHERE key = 'dim'", "'dim'"),
    ("UPDATE store_meta SET value = '99999999999' WHERE key = 'dim'", "'dim'"),
    ("UPDATE store_meta SET value = '' WHERE key = 'dim'", "'dim'"),
    ("UPDATE store_meta SET value = printf('%.*c', 100000, '9') WHERE key = 'dim'", "'dim'"),
    ("DELETE FROM store_meta WHERE key = 'dim'", "'dim'"),
    ("DELETE FROM store_meta WHERE key = 'model_id'", "'model_id'"),
    ("UPDATE store_meta SET value = 'x' WHERE key = 'changes'", "'changes'"),
    ("DELETE FROM store_meta WHERE key = 'changes'", "'changes'"),
    ("DELETE FROM schema_version", "schema_version"),
    (
        "DROP TABLE schema_version; CREATE TABLE schema_version (version, applied_at); "
        "INSERT INTO schema_version VALUES ('abc', 'x')",
        "schema_version",
    ),
]


def _sqlite_store(path: Path) -> None:
    with SQLiteStore(path, embedder=CountingEmbedder()) as s:
        s.add(make_chunks("book", 3))


@pytest.mark.parametrize("read_only", [False, True])
@pytest.mark.parametrize(("edit", "key"), SQLITE_CASES)
def test_a_hand_edited_sqlite_store_is_one_line_naming_the_key(
    tmp_path: Path, edit: str, key: str, read_only: bool
) -> None:
    path = tmp_path / "s.sqlite"
    _sqlite_store(path)
    with sqlite3.connect(path) as conn:
        conn.executescript(edit)
    conn.close()
    with pytest.raises(StoreError) as caught:
        with SQLiteStore(path, embedder=CountingEmbedder(), read_only=read_only) as s:
            s.search("lamps", k=2, mode="hybrid")
    message = str(caught.value)
    assert key in message and "\n" not in message and len(message) < 400
    assert "restore the store from a copy" in message


def test_an_untouched_sqlite_store_still_opens(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    _sqlite_store(path)
    with SQLiteStore(path, embedder=CountingEmbedder(), read_only=True) as s:
        assert len(s.search("lamps", k=2, mode="hybrid")) == 2


# The HNSW graph's keys: tests/postgres/test_pg_hnsw_graph.py (their error says how to re-record them).
PG_CASES = [
    ("UPDATE jw_meta SET value = 'abc' WHERE key = 'dim'", "'dim'"),
    ("DELETE FROM jw_meta WHERE key = 'model_id'", "'model_id'"),
    ("DELETE FROM jw_schema_version", "jw_schema_version"),
]


def test_a_hand_edited_postgres_store_is_one_line_naming_the_key(
    pg_database: PgDatabase,
) -> None:
    import psycopg

    from jw_rag.store.postgres import PostgresStore

    for edit, key in PG_CASES:
        dsn = pg_database()
        with PostgresStore(dsn, CountingEmbedder()) as s:
            s.add(make_chunks("book", 3))
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(edit)  # type: ignore[arg-type]
        with pytest.raises(StoreError) as caught:
            with PostgresStore(dsn, CountingEmbedder()) as s:
                s.search("lamps", k=2, mode="hybrid")
        message = str(caught.value)
        assert key in message and "\n" not in message, (edit, message)
        assert "restore the store from a copy" in message, (edit, message)
