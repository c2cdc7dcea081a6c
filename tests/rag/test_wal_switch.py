"""Opening an SQLite file that another process is writing in rollback mode:
SQLite refuses the switch to WAL at once ("database is locked") without its
busy handler, so the embedding cache (and the store) must wait, not fail."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from jw_rag._wal import enable_wal
from jw_rag.embed import EmbeddingCache, FakeEmbedder


@contextmanager
def _held_write_lock(
    path: Path,
    seconds: float,
    table: tuple[str, str] = (
        "CREATE TABLE IF NOT EXISTS other (x)",
        "INSERT INTO other VALUES (1)",
    ),
) -> Iterator[None]:
    """Another connection holds a write lock on ``path`` (rollback journal),
    writing into ``table`` (its creation and an insert), and releases it after
    ``seconds``."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute(table[0])
    holder.execute("BEGIN IMMEDIATE")
    holder.execute(table[1])
    timer = threading.Timer(seconds, lambda: holder.execute("COMMIT"))
    timer.start()
    try:
        yield
    finally:
        timer.join()
        holder.close()


def test_sqlite_refuses_the_switch_at_once_without_the_retry(tmp_path: Path) -> None:
    path = tmp_path / "plain.sqlite"
    with _held_write_lock(path, 0.3):
        conn = sqlite3.connect(path, isolation_level=None, timeout=5)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            conn.execute("PRAGMA journal_mode = WAL")
        conn.close()


def test_enable_wal_waits_for_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "wait.sqlite"
    with _held_write_lock(path, 0.3):
        conn = sqlite3.connect(path, isolation_level=None, timeout=5)
        enable_wal(conn, 5)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        conn.close()


def test_enable_wal_gives_up_after_its_timeout(tmp_path: Path) -> None:
    path = tmp_path / "late.sqlite"
    with _held_write_lock(path, 0.5):
        conn = sqlite3.connect(path, isolation_level=None, timeout=5)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            enable_wal(conn, 0.05)
        conn.close()


def test_embedding_cache_opens_while_another_process_writes(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    fake = FakeEmbedder(dim=8)
    other_cache = (  # another process writing the cache's own table
        "CREATE TABLE IF NOT EXISTS embeddings (model_id TEXT NOT NULL, text_sha256 BLOB NOT "
        "NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model_id, text_sha256)) "
        "WITHOUT ROWID",
        "INSERT INTO embeddings VALUES ('other-model', x'00', 1, x'0000803f')",
    )
    with _held_write_lock(path, 0.3, other_cache):
        cache = EmbeddingCache(path)
        cache.put_many(fake.model_id, ["a", "b"], fake.embed(["a", "b"]))
    got = cache.get_many(fake.model_id, ["a", "b"])
    assert set(got) == {0, 1}
    np.testing.assert_allclose(got[0], fake.embed(["a"])[0])
