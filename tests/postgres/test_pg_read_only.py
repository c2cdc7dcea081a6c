"""A PostgreSQL store opened for reading (``open_store(dsn, read_only=True)``,
what ``jw rag search`` and ``jw rag stats`` do): a database without the
store's tables stays untouched and is one line, a store is searched as it
is, and a write is refused in one line with nothing changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from jw_rag.errors import StoreError
from jw_rag.model import Chunk
from jw_rag.store import open_store
from jw_rag.store.postgres import PostgresStore
from jw_rag.store.protocol import SourceWrite
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder, make_chunks


def _tables(dsn: str, schema: str = "public") -> list[str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s "
            "ORDER BY table_name",
            (schema,),
        ).fetchall()
    return [r[0] for r in rows]


def test_reading_a_database_without_a_store_creates_nothing(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (n int)")  # someone else's database
    with pytest.raises(StoreError) as err:
        open_store(dsn, read_only=True)
    assert str(err.value).startswith("no store in ")
    assert str(err.value).endswith(
        "(it has no jw_chunks table): check the database and schema in the DSN, or ingest a "
        "source there first"
    )
    assert _tables(dsn) == ["invoices"]
    with psycopg.connect(dsn) as conn:
        assert (
            conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None
        )


def test_a_reader_searches_and_refuses_writes(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as writer:
        writer.replace_source("book", make_chunks("book", 5), content_hash="v1")
        before = writer.stats()
    with open_store(dsn, embedder=CountingEmbedder(), read_only=True) as reader:
        assert isinstance(reader, PostgresStore) and reader.read_only
        assert [h.chunk.id for h in reader.search("number3", mode="bm25")] == ["book:3"]
        assert len(reader.search("paragraph 2 of book", k=3)) == 3  # dense
        assert len(reader.search("paragraph 2 of book", k=3, mode="hybrid")) == 3
        assert reader.stats()["chunks"] == before["chunks"]
        writes = [
            lambda: reader.add([Chunk("x:0", "new text", "x")]),
            lambda: reader.replace_source("book", make_chunks("book", 1), content_hash="v2"),
            lambda: reader.delete_source("book"),
        ]
        for write in writes:
            with pytest.raises(StoreError, match=r"is opened for reading only: open it without "):
                write()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as writer:
        after = writer.stats()
    assert after["chunks"] == before["chunks"] and after["sources"] == before["sources"]


def test_a_reader_refuses_every_write_in_the_same_line(pg_database: PgDatabase) -> None:
    """The index methods write too: on a reader they say it is read-only, as
    the other writes do (not the server's refusal with "retry"), and change
    nothing; ``build_index`` is refused even when the index exists."""
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as writer:
        writer.replace_source("book", make_chunks("book", 5), content_hash="v1")
        graph, before = writer.hnsw_graph(), writer.stats()
    reader = open_store(dsn, embedder=CountingEmbedder(), read_only=True)
    assert isinstance(reader, PostgresStore)
    writes = {
        "add_parents": lambda: reader.add_parents([Chunk("p:0", "a parent", "book")]),
        "replace_sources": lambda: reader.replace_sources(
            [SourceWrite("b2", make_chunks("b2", 1), "h")]
        ),
        "delete_source of none": lambda: reader.delete_source("nothing"),
        "build_index": reader.build_index,
        "rebuild_index": reader.rebuild_index,
        "rebuild_index by size": lambda: reader.rebuild_index(by_size=True),
        "rebuild_index to a pair": lambda: reader.rebuild_index(m=8, ef_construction=32),
        "deferred_index": lambda: reader.deferred_index().__enter__(),
    }
    with reader:
        for name, write in writes.items():
            with pytest.raises(StoreError) as err:
                write()
            assert str(err.value) == (
                f"the store at {reader.where} is opened for reading only: open it without "
                "read_only to write; searching it works as it is"
            ), name
        assert reader.has_index() and reader.hnsw_graph() == graph
    with PostgresStore(dsn, embedder=CountingEmbedder()) as writer:
        assert writer.stats() == before and writer.has_index()


def test_a_reader_keeps_the_dsn_s_own_search_path(pg_database: PgDatabase) -> None:
    """The read-only setting is added to the DSN's ``options``, not put in
    their place: a store kept in its own schema is found."""
    dsn = pg_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA lib")
    in_lib = f"{dsn}{'&' if '?' in dsn else '?'}options=-csearch_path%3Dlib"
    with PostgresStore(in_lib, embedder=CountingEmbedder()) as writer:
        writer.add(make_chunks("s", 3))
    assert "jw_chunks" in _tables(dsn, "lib") and "jw_chunks" not in _tables(dsn)
    with open_store(in_lib, embedder=CountingEmbedder(), read_only=True) as reader:
        assert [h.chunk.id for h in reader.search("number1", mode="bm25")] == ["s:1"]
    with pytest.raises(StoreError, match="^no store in "):
        open_store(dsn, read_only=True)  # the public schema holds none


def _jw(dsn: str, *argv: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from jw_cli.app import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, "--store", dsn, *argv], capture_output=True, text=True,
        env=os.environ | {"JW_EMBEDDER": "fake"}, timeout=120,
    )  # fmt: skip


def test_jw_rag_search_on_an_empty_database_is_one_line_and_creates_nothing(
    pg_database: PgDatabase, tmp_path: Path
) -> None:
    dsn = pg_database()
    for argv in (["rag", "search", "soul"], ["rag", "stats"]):
        done = _jw(dsn, *argv)
        assert done.returncode == 1, done
        assert done.stderr.count("\n") == 1 and "no store in " in done.stderr, done.stderr
    assert _tables(dsn) == []
    text = tmp_path / "soul.txt"
    text.write_text("The soul is the person.\n\nThe soul can die.\n", "utf-8")
    assert _jw(dsn, "rag", "ingest", "text", str(text)).returncode == 0
    done = _jw(dsn, "rag", "search", "soul", "--json")
    assert done.returncode == 0 and '"source_id":"soul"' in done.stdout, done


def test_commands_that_need_a_store_create_none(pg_database: PgDatabase) -> None:
    """``jw rag delete`` and ``jw rag reindex`` write, but only to a store that
    exists: on an empty database they say so and create nothing."""
    dsn = pg_database()
    for argv in (["rag", "delete", "--source", "alma"], ["rag", "reindex"]):
        done = _jw(dsn, *argv)
        assert done.returncode == 1, done
        assert done.stderr.count("\n") == 1 and "no store in " in done.stderr, done.stderr
    assert _tables(dsn) == []
    with pytest.raises(StoreError, match="^no store in "):
        open_store(dsn, create=False)
    PostgresStore(dsn, embedder=CountingEmbedder()).close()  # a writer makes one
    with open_store(dsn, embedder=CountingEmbedder(), create=False) as store:
        assert store.stats()["chunks"] == 0


def test_a_reader_keeps_the_search_path_of_pgoptions_and_of_a_service_file(
    pg_database: PgDatabase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libpq takes ``options`` from ``$PGOPTIONS`` or a service file when the
    DSN has none: a reader finds the store a writer made there, as the writer
    does (a reader that put its own ``options`` in the DSN lost them)."""
    dsn = pg_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA lib")
    monkeypatch.setenv("PGOPTIONS", "-c search_path=lib")
    with PostgresStore(dsn, embedder=CountingEmbedder()) as writer:
        writer.add(make_chunks("s", 3))
    assert "jw_chunks" in _tables(dsn, "lib") and "jw_chunks" not in _tables(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:  # as a store made before they were
        conn.execute("DELETE FROM lib.jw_meta WHERE key LIKE 'hnsw%'")
    with open_store(dsn, embedder=CountingEmbedder(), read_only=True) as reader:
        assert [h.chunk.id for h in reader.search("number1", mode="bm25")] == ["s:1"]
    with psycopg.connect(dsn) as conn:  # the reader recorded no graph
        assert conn.execute(
            "SELECT count(*) FROM lib.jw_meta WHERE key LIKE 'hnsw%'"
        ).fetchone() == (0,)
    monkeypatch.delenv("PGOPTIONS")
    parts = psycopg.conninfo.conninfo_to_dict(dsn)
    services = tmp_path / "pg_service.conf"
    services.write_text(
        f"[lib]\nhost={parts['host']}\ndbname={parts['dbname']}\nuser={parts['user']}\n"
        "options=-c search_path=lib\n",
        "utf-8",
    )
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    with open_store(
        "postgresql:///?service=lib", embedder=CountingEmbedder(), read_only=True
    ) as reader:
        assert [h.chunk.id for h in reader.search("number2", mode="bm25")] == ["s:2"]
        with pytest.raises(StoreError, match="is opened for reading only"):
            reader.delete_source("s")
    with pytest.raises(StoreError, match="^no store in "):
        open_store(dsn, read_only=True)  # the public schema holds none
    assert _tables(dsn, "lib").count("jw_chunks") == 1 and _tables(dsn) == []


def test_a_key_value_dsn_opens_the_database_from_the_command_line(
    pg_database: PgDatabase, tmp_path: Path
) -> None:
    """``--store "host=... dbname=..."`` is the database, as docs/postgres.md
    says; it used to be taken for a SQLite file name and a file made."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    dsn = make_conninfo(**conninfo_to_dict(pg_database()))
    assert "://" not in dsn and "dbname=" in dsn
    text = tmp_path / "soul.txt"
    text.write_text("The soul is the person.\n", "utf-8")
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from jw_cli.app import main; sys.exit(main())",
         "--store", dsn, "rag", "ingest", "text", str(text)],
        capture_output=True, text=True, env=os.environ | {"JW_EMBEDDER": "fake"}, timeout=120,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "jw_chunks" in _tables(dsn)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["soul.txt"]  # no file named like the DSN
