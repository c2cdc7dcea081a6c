"""How wide an HNSW search is, what the server's pgvector offers, and
filtered searches with and without iterative index scans."""

from __future__ import annotations

import warnings

import psycopg
import pytest

import jw_rag.store.postgres as pg_module
from jw_rag.errors import JwRagWarning, StoreError
from jw_rag.store._pg_breadth import auto_breadth, pgvector_features
from jw_rag.store.postgres import PostgresStore
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder, make_chunks


def test_auto_breadth_grows_with_k_and_the_table() -> None:
    assert [auto_breadth(n, 10) for n in (0, 5_000, 10_000, 20_000, 100_000, 300_000)] == [
        40,
        40,
        40,
        68,
        231,
        531,
    ]
    assert auto_breadth(10_000, 100) == 400  # never under 4 k
    assert auto_breadth(1_000_000, 10) == 1000 and auto_breadth(10**4, 900) == 1000  # capped


def test_pgvector_without_hnsw_is_refused_with_the_fix() -> None:
    with pytest.raises(StoreError, match=r"pgvector 0\.4\.1 at db1 has no HNSW index .*0\.5\.0"):
        pgvector_features("0.4.1", "0.4.1", "db1")
    with pytest.raises(StoreError, match="run ALTER EXTENSION vector UPDATE .the server has 0.7.0"):
        pgvector_features("0.4.1", "0.7.0", "db1")


def test_pgvector_without_iterative_scans_warns_once_per_server() -> None:
    with pytest.warns(
        JwRagWarning, match=r"pgvector 0\.6\.2 at srv/db lacks iterative index scans"
    ):
        features = pgvector_features("0.6.2", None, "srv/db")
    assert features.iterative_scan is False and features.version == "0.6.2"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pgvector_features("0.6.2", None, "srv/other_db")  # same server: said once
        assert pgvector_features("0.8.5", "0.8.5", "srv2/db").iterative_scan is True
        assert pgvector_features("0.10.0", None, "srv3/db").iterative_scan is True


def _filtered_recall(store: PostgresStore, filters: dict) -> float:
    found = 0
    queries = [f"paragraph {i} of big about oil" for i in range(0, 3000, 300)]
    for q in queries:
        got = store.search(q, k=10, filters=filters)
        assert len(got) == 10 and all(h.chunk.metadata["language"] == "es" for h in got)
        exact = store.search(q, k=1001, filters=filters)[:10]  # k above the breadth: exact
        found += len({h.chunk.id for h in got} & {h.chunk.id for h in exact})
    return found / (10 * len(queries))


@pytest.mark.parametrize("server", ["pg_database", "pg08_database"])
def test_a_broad_filter_finds_the_filtered_top_k(
    server: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filter too broad for the exact path, at the narrowest breadth: pgvector
    0.8 keeps scanning until ten rows pass (iterative scan), older versions
    filter the widest breadth's candidates; both find the filtered top 10."""
    databases: PgDatabase = request.getfixturevalue(server)
    monkeypatch.setattr(pg_module, "EXACT_BELOW", 100)  # a third of 3,000 rows is "broad"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JwRagWarning)
        store = PostgresStore(databases(), embedder=CountingEmbedder(), ef_search=1)
    with store:
        store.add(make_chunks("big", 1000, "lamps", language="es"))
        store.add(make_chunks("other", 2000, "lamps", language="en"))
        assert store.pgvector.iterative_scan is (server == "pg08_database")
        assert _filtered_recall(store, {"language": "es"}) >= 0.9
        assert store.search("oil", k=10, filters={"language": "pt"}) == []


def test_the_default_breadth_follows_the_table_size(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        assert s.ef_search is None
        with s._conn() as conn:
            assert s._breadth(conn, 10) == 40  # empty table
            s._size = (100_000.0, s._size[1])  # as if the table had 100,000 rows
            assert s._breadth(conn, 10) == 231 and s._breadth(conn, 300) == 1000
        s.add(make_chunks("a", 50))
    with PostgresStore(dsn, embedder=CountingEmbedder(), ef_search=64) as s:
        with s._conn() as conn:
            assert s._breadth(conn, 10) == 64 and s._breadth(conn, 100) == 100
        assert len(s.search("paragraph 3", k=5)) == 5


@pytest.mark.parametrize("server", ["pg_database", "pg08_database"])
def test_exact_scans_never_walk_the_hnsw_index(server: str, request: pytest.FixtureRequest) -> None:
    """With sequential scans priced out, a planner could answer the exact
    query from the HNSW index (then sort ties by rowid), which yields at most
    ef_search rows: the exact answers must not depend on that choice."""
    dsn = request.getfixturevalue(server)()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        s.add(make_chunks("big", 1500, "lamps"))
        s.add(make_chunks("small", 300, "oil"))
    with psycopg.connect(dsn, autocommit=True) as conn:
        name = conn.execute("SELECT current_database()").fetchone()[0]
        conn.execute(f"ALTER DATABASE {name} SET enable_seqscan = off")
        conn.execute(f"ALTER DATABASE {name} SET enable_bitmapscan = off")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JwRagWarning)
        store = PostgresStore(dsn, embedder=CountingEmbedder(), ef_search=10)
    with store as s:
        q = "paragraph 5 of small about oil"
        assert len(s.search(q, k=1001)) == 1001  # k above the widest breadth: exact
        got = s.search(q, k=20, filters={"source_id": "small"})  # selective: exact
        vectors = s.vectors([f"small:{i}" for i in range(300)])
        query = s.embedder.embed([q])[0]
        want = sorted(vectors, key=lambda cid: (-float(vectors[cid] @ query), cid))[:20]
        assert {h.chunk.id for h in got} == set(want)
