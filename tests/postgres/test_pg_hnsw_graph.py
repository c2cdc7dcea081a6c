"""The HNSW graph's build parameters: checked, recorded in the store, used for
every later build of its index, changed only by ``rebuild_index``."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from jw_rag.errors import ConfigError, StoreError
from jw_rag.store.postgres import (
    DEFAULT_HNSW_EF_CONSTRUCTION,
    DEFAULT_HNSW_M,
    PostgresStore,
)
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder, make_chunks


def _index(dsn: str) -> tuple[str | None, list[str] | None]:
    """The HNSW index's definition and storage options (``None`` without one)."""
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT pg_get_indexdef(oid), reloptions FROM pg_class "
            "WHERE oid = to_regclass('jw_chunks_hnsw')"
        ).fetchone()
        return (row[0], row[1]) if row else (None, None)


def _meta(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        return dict(
            conn.execute(
                "SELECT key, value FROM jw_meta WHERE key IN ('hnsw_m', 'hnsw_ef_construction')"
            ).fetchall()
        )


@pytest.mark.parametrize(
    ("m", "efc", "message"),
    [
        (1, None, "hnsw_m must be None .* an integer from 2 to 100, got 1"),
        (101, None, "hnsw_m must be None .* from 2 to 100, got 101"),
        (True, None, "hnsw_m must be .* got True"),
        ("16", None, "hnsw_m must be .* got '16'"),
        (None, 3, "hnsw_ef_construction must be None .* from 4 to 1000, got 3"),
        (None, 1001, "hnsw_ef_construction must be .* got 1001"),
        (None, 64.0, "hnsw_ef_construction must be .* got 64.0"),
        (40, 64, "at least twice hnsw_m .* m=40, ef_construction=64: raise ef_construction to 80"),
    ],
)
def test_bad_graph_parameters_are_one_line_errors(
    pg_database: PgDatabase, m: object, efc: object, message: str
) -> None:
    dsn = pg_database()
    with pytest.raises(ConfigError, match=message) as err:
        PostgresStore(dsn, CountingEmbedder(), hnsw_m=m, hnsw_ef_construction=efc)  # type: ignore[arg-type]
    assert "\n" not in str(err.value)
    with PostgresStore(dsn, CountingEmbedder()) as s:  # nothing was recorded by the failed open
        assert s.hnsw_graph() == (DEFAULT_HNSW_M, DEFAULT_HNSW_EF_CONSTRUCTION)


def test_a_new_store_defaults_to_pgvectors_graph(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", 5))
        assert s.hnsw_graph() == (16, 64)
    indexdef, options = _index(dsn)
    assert indexdef and "hnsw (embedding vector_cosine_ops)" in indexdef
    assert options == ["m=16", "ef_construction=64"]


def test_the_asked_graph_is_recorded_and_kept_by_later_opens(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder(), hnsw_m=24, hnsw_ef_construction=128) as s:
        assert _meta(dsn) == {"hnsw_m": "24", "hnsw_ef_construction": "128"}
        s.add(make_chunks("a", 50))  # the first write creates the index
    assert _index(dsn)[1] == ["m=24", "ef_construction=128"]
    with PostgresStore(dsn, CountingEmbedder()) as s:  # None: the store's own
        assert s.hnsw_graph() == (24, 128)
        stats = s.stats()
        assert (stats["hnsw_m"], stats["hnsw_ef_construction"]) == (24, 128)
        with s.deferred_index(memory="64MB") as bulk:  # drops and rebuilds with the recorded pair
            bulk.replace_source("b", make_chunks("b", 30))
        assert s.stats()["chunks"] == 80
    assert _index(dsn)[1] == ["m=24", "ef_construction=128"]
    with PostgresStore(dsn, CountingEmbedder(), hnsw_m=24, hnsw_ef_construction=128) as s:
        assert s.hnsw_graph() == (24, 128)  # the same values are fine
    with pytest.raises(
        ConfigError, match=r"hnsw_m=16 differs from this store's 24 .*rebuild_index"
    ):
        PostgresStore(dsn, CountingEmbedder(), hnsw_m=16)


def _unrecorded_store(dsn: str, chunks: int) -> list[str]:
    """A store as an older version left it (its graph not recorded), and the
    ids of the top five hits for one query."""
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("old", chunks))
        before = [h.chunk.id for h in s.search("paragraph 7 of old", k=5)]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DELETE FROM jw_meta WHERE key IN ('hnsw_m', 'hnsw_ef_construction')")
    return before


@pytest.mark.parametrize(
    ("with_clause", "graph"),
    [("", (16, 64)), (" WITH (m = 12, ef_construction = 40)", (12, 40))],
)
def test_a_store_made_before_the_graph_was_recorded_keeps_its_index(
    pg_database: PgDatabase, with_clause: str, graph: tuple[int, int]
) -> None:
    dsn = pg_database()
    before = _unrecorded_store(dsn, 40)
    with psycopg.connect(dsn, autocommit=True) as conn:  # an index made by hand
        conn.execute("DROP INDEX jw_chunks_hnsw")
        conn.execute(
            "CREATE INDEX jw_chunks_hnsw ON jw_chunks USING hnsw (embedding vector_cosine_ops)"
            + with_clause
        )
        oid = conn.execute("SELECT to_regclass('jw_chunks_hnsw')::oid").fetchone()
    # Opening with other parameters neither rebuilds nor relabels the old index.
    with pytest.raises(ConfigError, match="differs from this store's"):
        PostgresStore(dsn, CountingEmbedder(), hnsw_m=32, hnsw_ef_construction=200)
    with PostgresStore(dsn, CountingEmbedder()) as s:
        assert s.hnsw_graph() == graph
        assert [h.chunk.id for h in s.search("paragraph 7 of old", k=5)] == before
        assert s.stats()["chunks"] == 40
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT to_regclass('jw_chunks_hnsw')::oid").fetchone() == oid


def test_rebuild_index_changes_the_graph_and_keeps_every_row(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", 300, "lamps"))
        queries = [f"paragraph {i} of a" for i in range(0, 300, 37)]
        exact = [[h.chunk.id for h in s.search(q, k=1001)][:5] for q in queries]
        assert s.rebuild_index(ef_construction=100, memory="64MB") is True
        assert s.hnsw_graph() == (16, 100)
        assert _index(dsn)[1] == ["m=16", "ef_construction=100"]
        assert s.rebuild_index(m=8) is True  # None keeps the other parameter
        assert _index(dsn)[1] == ["m=8", "ef_construction=100"]
        assert s.stats()["chunks"] == 300
        found = [[h.chunk.id for h in s.search(q, k=5)] for q in queries]
        assert sum(
            len(set(f) & set(e)) for f, e in zip(found, exact, strict=True)
        ) >= 0.9 * 5 * len(queries)
        # A bad value or pair is refused before anything changes, named as the call names it.
        with pytest.raises(ConfigError, match=r"^m must be None .* from 2 to 100, got -1$"):
            s.rebuild_index(m=-1)
        with pytest.raises(ConfigError, match=r"^ef_construction must be None .* got '64'$"):
            s.rebuild_index(ef_construction="64")  # type: ignore[arg-type]
        with pytest.raises(
            ConfigError,
            match="^ef_construction must be at least twice m .* m=60, ef_construction=100",
        ):
            s.rebuild_index(m=60)
        with pytest.raises(ConfigError, match="memory must be"):  # the server refuses it
            s.rebuild_index(m=12, memory="lots")
        assert s.hnsw_graph() == (8, 100) and _index(dsn)[1] == ["m=8", "ef_construction=100"]
    with PostgresStore(dsn, CountingEmbedder()) as s:
        assert s.hnsw_graph() == (8, 100)


def test_rebuild_index_on_an_empty_store_records_the_graph_for_the_first_build(
    pg_database: PgDatabase,
) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        assert s.rebuild_index(m=10, ef_construction=50) is False  # no vectors: nothing to build
        assert _index(dsn) == (None, None)
        s.add(make_chunks("a", 3))
    assert _index(dsn)[1] == ["m=10", "ef_construction=50"]


def test_searches_and_writes_during_a_rebuild_lose_nothing(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder(), pool_size=4) as s:
        s.add(make_chunks("a", 800, "lamps"))
        errors: list[BaseException] = []
        hits: list[list[str]] = []

        def search() -> None:
            try:
                for i in range(20):
                    hits.append([h.chunk.id for h in s.search(f"paragraph {i} of a", k=3)])
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        def write() -> None:
            try:
                s.replace_source("b", make_chunks("b", 50))
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=search), threading.Thread(target=write)]
        for t in threads:
            t.start()
        assert s.rebuild_index(m=12, ef_construction=48, memory="64MB") is True
        for t in threads:
            t.join()
        assert errors == []
        assert len(hits) == 20 and all(len(h) == 3 for h in hits)
        assert s.stats()["chunks"] == 850
        assert _index(dsn)[1] == ["m=12", "ef_construction=48"]


def test_concurrent_first_opens_agree_on_the_graph(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    graphs: list[tuple[int, int]] = []
    errors: list[BaseException] = []

    def open_one(m: int) -> None:
        try:
            with PostgresStore(dsn, CountingEmbedder(), hnsw_m=m, hnsw_ef_construction=64) as s:
                graphs.append(s.hnsw_graph())
        except ConfigError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_one, args=(m,)) for m in (8, 16, 24, 32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    recorded = (int(_meta(dsn)["hnsw_m"]), int(_meta(dsn)["hnsw_ef_construction"]))
    assert set(graphs) == {recorded}  # every open that succeeded saw the one recorded pair
    assert len(graphs) + len(errors) == 4 and len(graphs) >= 1
    assert all("differs from this store's" in str(e) for e in errors)


def _rollbacks(dsn: str) -> int:
    """The database's count of failed transactions (every refused statement
    of an autocommit connection is one), once closed connections reported theirs."""
    time.sleep(1.0)
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT xact_rollback FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


@pytest.mark.parametrize("reader", ["read-only transactions", "a role that may only read"])
def test_a_reader_opens_a_store_made_before_the_graph_was_recorded(
    pg_database: PgDatabase, reader: str
) -> None:
    """Opening recorded the graph of a store made before it was recorded, so a
    reader (a hot standby, a SELECT-only role) could no longer open such a
    store to search it ("cannot execute INSERT in a read-only transaction",
    "permission denied for table jw_meta"). It opens and searches; the first
    open that may write records the graph."""
    dsn = pg_database()
    before = _unrecorded_store(dsn, 20)
    with psycopg.connect(dsn, autocommit=True) as conn:
        if reader == "read-only transactions":
            where = "-c default_transaction_read_only=on"
            read_dsn = psycopg.conninfo.make_conninfo(dsn, options=where)
        else:
            role = "reader_" + conn.info.dbname
            conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'r'")
            conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
            read_dsn = psycopg.conninfo.make_conninfo(dsn, user=role, password="r")
    try:
        failed = _rollbacks(dsn)
        with PostgresStore(read_dsn, CountingEmbedder()) as s:
            assert [h.chunk.id for h in s.search("paragraph 7 of old", k=5)] == before
            assert s.hnsw_graph() == (DEFAULT_HNSW_M, DEFAULT_HNSW_EF_CONSTRUCTION)
        assert _meta(dsn) == {}
        assert _rollbacks(dsn) == failed  # it tried no write that the server refused
        with PostgresStore(dsn, CountingEmbedder()):
            pass
        assert _meta(dsn) == {"hnsw_m": "16", "hnsw_ef_construction": "64"}
    finally:
        if reader != "read-only transactions":
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f"DROP OWNED BY {role}")
                conn.execute(f"DROP ROLE {role}")


@pytest.mark.parametrize(
    "tamper",
    [
        "UPDATE jw_meta SET value = 'abc' WHERE key = 'hnsw_m'",
        "UPDATE jw_meta SET value = '500' WHERE key = 'hnsw_m'",
        "UPDATE jw_meta SET value = '' WHERE key = 'hnsw_ef_construction'",
        "UPDATE jw_meta SET value = '40' WHERE key = 'hnsw_m'; "
        "DELETE FROM jw_meta WHERE key = 'hnsw_ef_construction'",
    ],
)
def test_a_recorded_graph_pgvector_cannot_build_is_a_one_line_error(
    pg_database: PgDatabase, tamper: str
) -> None:
    """A pair in jw_meta that is not a graph pgvector builds (edited by hand)
    was a ValueError traceback, or was reported as the store's graph while its
    index had another one. It is a one-line error whose fix works."""
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", 20))
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(tamper)
    with pytest.raises(StoreError) as got:
        PostgresStore(dsn, CountingEmbedder())
    message = str(got.value)
    assert "records an HNSW graph pgvector cannot build" in message and "\n" not in message
    fix = "DELETE FROM jw_meta WHERE key LIKE 'hnsw%'"
    assert f"run {fix} and open the store again" in message
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(fix)
    with PostgresStore(dsn, CountingEmbedder()) as s:  # it records its index's graph again
        stats = s.stats()
        assert s.hnsw_graph() == (16, 64) == (stats["hnsw_m"], stats["hnsw_ef_construction"])
    assert _index(dsn)[1] == ["m=16", "ef_construction=64"]


@pytest.mark.parametrize("memory", ["abc", "1kB", 123, None])
def test_a_bad_index_memory_is_refused_before_anything_changes(
    pg_database: PgDatabase, memory: object
) -> None:
    """deferred_index() dropped the index, ran the whole bulk load, and only
    then failed on the memory setting, leaving the store without an index; a
    bad type was "function set_config(unknown, smallint, boolean) does not
    exist ... check the server and retry". Each is a one-line ConfigError
    before the index or the graph changes."""
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", 20))
        before = (_meta(dsn), _index(dsn))
        ran = False
        with pytest.raises(ConfigError, match=r"^memory must be a PostgreSQL size such as '1GB'"):
            with s.deferred_index(memory=memory):  # type: ignore[arg-type]
                ran = True
        assert not ran
        with pytest.raises(ConfigError, match=r"^memory must be"):
            s.rebuild_index(m=8, memory=memory)  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match=r"^memory must be"):
            s.build_index(memory=memory)  # type: ignore[arg-type]
        assert (_meta(dsn), _index(dsn)) == before
        assert s.has_index()
