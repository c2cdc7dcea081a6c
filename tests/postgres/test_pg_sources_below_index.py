"""On PostgreSQL the folder re-ingest's vanished-sources check is one query
served by an index on the sources' origin (``jw_sources_by_origin``): it read
``stats()`` (a grouping scan of every chunk) and then every source's row, one
query each. EXPLAIN on a table of 100,000 sources shows the index scan and no
scan of the whole table; a writer adds the index to a store that lacks it,
and without it the query gives the same rows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from jw_rag.ingest.folder import _origins_below
from jw_rag.store._rows import unit_kinds
from jw_rag.store.postgres import _ORIGINS_BELOW_SQL, PostgresStore
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder, make_chunks

SOURCES = 100_000


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", ()):
        yield from _nodes(child)


def _has_index(dsn: str) -> bool:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT to_regclass('jw_sources_by_origin') IS NOT NULL").fetchone()
        return bool(row and row[0])


@pytest.fixture
def dsn(pg_database: PgDatabase) -> str:
    """A store of 100,000 sources read from files below /data/f<i>/, five with chunks."""
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        for i in (7, 123, 1230, 99_999, 100_000):
            s.replace_source(
                f"f{i}/a",
                make_chunks(f"f{i}/a", 2),
                source_metadata={"origin": f"/data/f{i}/a.txt"},
            )
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO jw_sources (source_id, metadata) "
            "SELECT 'f' || i || '/b', jsonb_build_object('origin', '/data/f' || i || '/b.txt') "
            "FROM generate_series(1, %s) AS i",
            (SOURCES - 5,),
        )
        conn.execute("ANALYZE jw_sources")
    return dsn


def _plan(dsn: str, root: str) -> list[dict[str, Any]]:
    pattern = root.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            f"EXPLAIN (FORMAT JSON) {_ORIGINS_BELOW_SQL}",
            {"head": pattern, "pattern": pattern, "units": list(unit_kinds({}))},
        ).fetchone()
    assert row is not None
    plan = row[0] if isinstance(row[0], list) else json.loads(row[0])
    return list(_nodes(plan[0]["Plan"]))


def test_the_query_scans_the_origin_index_not_the_table(dsn: str) -> None:
    assert _has_index(dsn)
    for root in ("/data/f123/", "/data/f1230/", "/data/f99999/"):
        nodes = _plan(dsn, root)
        assert any(n.get("Index Name") == "jw_sources_by_origin" for n in nodes), nodes
        assert not any(
            n["Node Type"] == "Seq Scan" and n.get("Relation Name") == "jw_sources" for n in nodes
        ), nodes
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        assert s.sources_below("/data/f123/") == [("f123/a", "/data/f123/a.txt")]
        assert s.sources_below("/data/f12") == [
            ("f123/a", "/data/f123/a.txt"),
            ("f1230/a", "/data/f1230/a.txt"),
        ]
        assert s.sources_below("/data/f5/") == []  # a source without chunks is not one


def test_without_the_index_the_rows_are_the_same_and_a_writer_adds_it(dsn: str) -> None:
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        expected = {root: s.sources_below(root) for root in ("/data/", "/data/f1/", "/x/")}
        assert expected["/data/"] == _origins_below(s, "/data/")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP INDEX jw_sources_by_origin")
    with PostgresStore(dsn, embedder=CountingEmbedder(), read_only=True) as s:
        assert {root: s.sources_below(root) for root in expected} == expected
    assert not _has_index(dsn)  # a reader creates nothing
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        assert {root: s.sources_below(root) for root in expected} == expected
    assert _has_index(dsn)
