"""Opening SQLite stores: bad files, schema versions, embedder models, locations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from jw_rag.errors import ConfigError, StoreError
from jw_rag.store import SQLiteStore, open_store
from tests.store.store_helpers import CountingEmbedder, make_chunks


def test_not_a_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    content = b"these are my notes, not a database\n" * 200
    path.write_bytes(content)
    with pytest.raises(StoreError, match="not a SQLite database") as info:
        SQLiteStore(path, embedder=CountingEmbedder())
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    assert path.read_bytes() == content


def test_foreign_sqlite_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a jw-rag store"):
        open_store(str(path), embedder=CountingEmbedder())
    assert path.read_bytes() == before


def test_newer_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    SQLiteStore(path, embedder=CountingEmbedder()).close()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (99, 'future')")
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"schema 99 .*upgrade jw-rag"):
        SQLiteStore(path, embedder=CountingEmbedder())
    assert path.read_bytes() == before


def test_directory_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="directory"):
        SQLiteStore(tmp_path, embedder=CountingEmbedder())


def test_reopen_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    chunks = make_chunks("s", 30)
    with SQLiteStore(path, embedder=CountingEmbedder()) as s:
        s.replace_source("s", chunks, content_hash="h")
    with SQLiteStore(path, embedder=CountingEmbedder()) as s:
        assert s.get([c.id for c in chunks]) == chunks
        assert s.replace_source("s", chunks[:1], content_hash="h") is False
        assert s.search(chunks[7].text, k=1)[0].chunk == chunks[7]
        assert s.stats()["schema_version"] == 1


def test_other_embedder_model_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, embedder=CountingEmbedder(model_id="model-a")) as s:
        s.add(make_chunks("s", 3))
    with SQLiteStore(path, embedder=CountingEmbedder(model_id="model-b")) as s:
        with pytest.raises(StoreError, match="'model-a'.*'model-b'"):
            s.search("lamps", mode="dense")
        with pytest.raises(StoreError, match="model-a"):
            s.search("lamps", mode="hybrid")
        with pytest.raises(StoreError, match="model-a"):
            s.add(make_chunks("t", 1))
        assert len(s.search("lamps", mode="bm25")) == 3  # BM25 needs no embedder
        assert s.stats()["chunks"] == 3


def test_dense_cache_sees_writes_from_another_connection(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    reader = SQLiteStore(path, embedder=CountingEmbedder())
    writer = SQLiteStore(path, embedder=CountingEmbedder())
    writer.add(make_chunks("a", 5))
    assert len(reader.search("lamps", k=50)) == 5
    writer.add(make_chunks("b", 4))
    assert len(reader.search("lamps", k=50)) == 9
    writer.delete_source("a")
    assert {h.chunk.source_id for h in reader.search("lamps", k=50)} == {"b"}
    reader.close()
    writer.close()


def test_open_store_routes_locations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nested = tmp_path / "a" / "b" / "store.sqlite"
    s = open_store(str(nested), embedder=CountingEmbedder())
    assert isinstance(s, SQLiteStore) and nested.exists()
    s.close()
    monkeypatch.setenv("JW_STORE", str(tmp_path / "env.sqlite"))
    s = open_store(embedder=CountingEmbedder())
    assert s.stats()["path"] == str(tmp_path / "env.sqlite")
    s.close()
    for dsn in ("postgresql://u@localhost/db", "postgres://localhost/db"):
        try:
            import jw_rag.store.postgres  # noqa: F401
        except ModuleNotFoundError:
            with pytest.raises(ConfigError, match="PostgreSQL support is not installed"):
                open_store(dsn)
    with pytest.raises(ConfigError, match="scheme"):
        open_store("mysql://localhost/db")
    with pytest.raises(ConfigError, match="empty"):
        open_store("  ")


def test_default_store_is_under_jw_home(_isolated_home: Path) -> None:
    s = open_store(embedder=CountingEmbedder())
    assert Path(s.stats()["path"]) == _isolated_home / "store.sqlite"
    s.close()


def test_vectors_of_another_embedder_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, embedder=CountingEmbedder(model_id="model-a")) as s:
        s.add(make_chunks("s", 2))
        assert set(s.vectors(iter(["s:0", "s:1"]))) == {"s:0", "s:1"}
    with SQLiteStore(path, embedder=CountingEmbedder(model_id="model-b")) as s:
        with pytest.raises(StoreError, match="'model-a'.*'model-b'"):
            s.vectors(["s:0"])


def test_open_store_without_create_needs_a_store_there(tmp_path: Path) -> None:
    missing = tmp_path / "sub" / "store.sqlite"
    with pytest.raises(StoreError, match=r"^no store at .*store\.sqlite: check the path"):
        open_store(str(missing), embedder=CountingEmbedder(), create=False)
    assert not missing.parent.exists()  # no folder made either
    open_store(str(missing), embedder=CountingEmbedder()).close()
    with open_store(str(missing), embedder=CountingEmbedder(), create=False) as store:
        assert store.stats()["chunks"] == 0


def test_open_store_without_create_leaves_an_empty_database_empty(tmp_path: Path) -> None:
    """An empty file (or a database with no tables) is a SQLite database that
    holds no store: ``create=False`` (jw rag delete, the MCP delete) refuses
    it in one line, as it refuses a missing file, and writes nothing to it."""
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    no_tables = tmp_path / "no-tables.sqlite"
    sqlite3.connect(no_tables).execute("PRAGMA user_version = 7").connection.close()
    for path in (empty, no_tables):
        size = path.stat().st_size
        with pytest.raises(StoreError) as err:
            open_store(str(path), embedder=CountingEmbedder(), create=False)
        assert str(err.value) == (
            f"{path} holds no jw-rag store (an empty database): ingest a source into it "
            "first, or open another store path"
        )
        assert path.stat().st_size == size
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)


def test_a_read_only_store_refuses_writes_before_embedding(tmp_path: Path) -> None:
    """No model time is spent on a write that cannot happen; an unchanged
    source is still found unchanged (a re-ingest of a library on a read-only
    disk says so instead of failing)."""
    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, CountingEmbedder()) as store:
        assert store.replace_source("a", make_chunks("a", 3), content_hash="v1")
    embedder = CountingEmbedder()
    with SQLiteStore(path, embedder, read_only=True) as store:
        for write in (
            lambda: store.add(make_chunks("b", 3)),
            lambda: store.replace_source("a", make_chunks("a", 4), content_hash="v2"),
        ):
            with pytest.raises(StoreError, match="cannot be written"):
                write()
        assert embedder.calls == 0
        assert store.replace_source("a", make_chunks("a", 3), content_hash="v1") is False
        assert store.stats()["chunks"] == 3


def test_a_libpq_key_value_string_names_a_database_not_a_file(tmp_path: Path) -> None:
    """docs/postgres.md: key=value DSNs work wherever a store path does; a path
    that merely holds ``=`` stays a SQLite file."""
    from jw_rag.config import existing_store, is_postgres_dsn

    dsns = ["host=db dbname=library", "dbname='my lib' user=jw", " host = /run/pg port=5433 "]
    paths = ["store.sqlite", "a=b.sqlite", str(tmp_path / "x=1.sqlite"), "sslmode=require",
             "host=db dbname=lib extra", "mysql://localhost/db".replace("://", "_")]  # fmt: skip
    assert [is_postgres_dsn(d) for d in dsns] == [True] * 3
    assert [is_postgres_dsn(p) for p in paths] == [False] * len(paths)
    assert existing_store(dsns[0]) == dsns[0]  # checked when opened, not as a file
    s = open_store(paths[2], embedder=CountingEmbedder())
    assert isinstance(s, SQLiteStore) and (tmp_path / "x=1.sqlite").exists()
    s.close()
