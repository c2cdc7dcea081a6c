"""A store that was given no HNSW graph chooses one by its size: pgvector's
default while small, the larger graph (m 48, ef_construction 200, the one
that reached recall@10 0.95 at a million chunks) when a one-pass build finds
``LARGE_GRAPH_FROM`` chunks or more. The threshold is lowered here so that a
few dozen chunks stand for 300,000."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import warnings
from pathlib import Path

import psycopg
import pytest

from jw_rag.errors import ConfigError, JwRagWarning
from jw_rag.store import _pg_breadth
from jw_rag.store import postgres as pg
from jw_rag.store.postgres import PostgresStore
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder, make_chunks

LARGE = 50


@pytest.fixture(autouse=True)
def _small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pg_breadth, "LARGE_GRAPH_FROM", LARGE)
    monkeypatch.setattr(pg, "LARGE_GRAPH_FROM", LARGE)


def _index_options(dsn: str) -> list[str] | None:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT reloptions FROM pg_class WHERE oid = to_regclass('jw_chunks_hnsw')"
        ).fetchone()
    return row[0] if row else None


def _analyze(dsn: str) -> None:
    """Refresh the planner's row count, which the store reads as its size."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("ANALYZE jw_chunks")


def _bulk(dsn: str, chunks: int, **graph: int) -> PostgresStore:
    s = PostgresStore(dsn, CountingEmbedder(), **graph)
    with s.deferred_index(memory="64MB") as bulk:
        bulk.replace_source("a", make_chunks("a", chunks))
    return s


def test_a_bulk_load_below_the_threshold_keeps_pgvectors_graph(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with _bulk(dsn, LARGE - 1) as s:
        assert s.hnsw_graph() == (16, 64)
        assert s.stats()["hnsw_graph_by_size"] is True
    assert _index_options(dsn) == ["m=16", "ef_construction=64"]


def test_a_large_bulk_load_builds_the_larger_graph_and_keeps_it(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with _bulk(dsn, LARGE) as s:
        assert s.hnsw_graph() == (48, 200)
        hits = s.search("paragraph 7 of a", k=3)
        assert hits[0].chunk.id == make_chunks("a", LARGE)[7].id
    assert _index_options(dsn) == ["m=48", "ef_construction=200"]
    with PostgresStore(dsn, CountingEmbedder()) as s:  # later opens keep the recorded graph
        assert s.hnsw_graph() == (48, 200)
        s.add(make_chunks("b", 5))
        assert s.stats()["chunks"] == LARGE + 5
    with pytest.raises(ConfigError, match="hnsw_m=16 differs from this store's 48"):
        PostgresStore(dsn, CountingEmbedder(), hnsw_m=16)


def test_a_store_that_shrinks_gets_the_small_graph_at_its_next_bulk_build(
    pg_database: PgDatabase,
) -> None:
    dsn = pg_database()
    with _bulk(dsn, LARGE) as s:
        with s.deferred_index(memory="64MB") as bulk:
            bulk.replace_source("a", make_chunks("a", 10))
        assert s.hnsw_graph() == (16, 64)
    assert _index_options(dsn) == ["m=16", "ef_construction=64"]


def _keeps_pgvectors_graph(dsn: str, s: PostgresStore) -> None:
    """``s``, loaded past the threshold, keeps 16 / 64 through rebuild_index()
    and is not advised to change it."""
    assert s.hnsw_graph() == (16, 64)
    assert s.rebuild_index(memory="64MB") is True
    assert s.hnsw_graph() == (16, 64)
    _analyze(dsn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no advice to change a graph the user chose
        s.search("paragraph 7 of a", k=3)
    assert _index_options(dsn) == ["m=16", "ef_construction=64"]


@pytest.mark.parametrize("graph", [{"hnsw_m": 16}, {"hnsw_m": 16, "hnsw_ef_construction": 64}])
def test_a_store_given_a_graph_keeps_it_at_any_size(
    pg_database: PgDatabase, graph: dict[str, int]
) -> None:
    dsn = pg_database()
    with _bulk(dsn, LARGE + 10, **graph) as s:
        assert s.stats()["hnsw_graph_by_size"] is False
        _keeps_pgvectors_graph(dsn, s)


def test_a_store_grown_by_inserts_warns_once_and_rebuild_index_fits_it(
    pg_database: PgDatabase,
) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", LARGE + 10))  # the index is kept up on every insert
        assert s.hnsw_graph() == (16, 64)
    _analyze(dsn)
    with PostgresStore(dsn, CountingEmbedder()) as s:
        with pytest.warns(
            JwRagWarning,
            match=r"about 60 chunks .*m 16, ef_construction 64.*"
            r"`jw rag reindex` \(or store\.rebuild_index\(\)\) builds m 48, ef_construction 200",
        ) as got:
            s.search("paragraph 7 of a", k=3)
        assert len([w for w in got if issubclass(w.category, JwRagWarning)]) == 1
        assert "\n" not in str(got[0].message)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            s._size = (0.0, -1e9)  # the next search measures the size again
            s.search("paragraph 8 of a", k=3)  # warned once per store object
        assert s.rebuild_index(memory="64MB") is True
        assert s.hnsw_graph() == (48, 200)
        assert s.stats()["hnsw_graph_by_size"] is True
    assert _index_options(dsn) == ["m=48", "ef_construction=200"]
    with PostgresStore(dsn, CountingEmbedder()) as s, warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [h.chunk.id for h in s.search("paragraph 7 of a", k=1)] == [
            make_chunks("a", LARGE + 10)[7].id
        ]


def test_rebuild_index_with_a_pair_ends_the_choice_by_size(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with _bulk(dsn, LARGE) as s:
        assert s.rebuild_index(ef_construction=100, memory="64MB") is True
        assert s.hnsw_graph() == (48, 100)
        with s.deferred_index(memory="64MB") as bulk:
            bulk.replace_source("a", make_chunks("a", 10))
        assert s.hnsw_graph() == (48, 100)  # no longer chosen by size
        assert s.stats()["hnsw_graph_by_size"] is False


def test_rebuild_index_by_size_hands_the_choice_back(
    pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    dsn = pg_database()
    with _bulk(dsn, LARGE, hnsw_m=24, hnsw_ef_construction=100) as s:
        assert s.hnsw_graph() == (24, 100) and s.stats()["hnsw_graph_by_size"] is False
        assert s.rebuild_index(by_size=True, memory="64MB") is True
        assert s.hnsw_graph() == (48, 200) and s.stats()["hnsw_graph_by_size"] is True
        assert _index_options(dsn) == ["m=48", "ef_construction=200"]
        with s.deferred_index(memory="64MB") as bulk:  # shrinks: the small graph again
            bulk.replace_source("a", make_chunks("a", 10))
        assert s.hnsw_graph() == (16, 64)
        for pair in ({"m": 24}, {"ef_construction": 100}):
            with pytest.raises(ConfigError, match="pass one or the other$"):
                s.rebuild_index(by_size=True, **pair)
        with pytest.raises(ConfigError, match="^by_size must be True or False, got 'yes'$"):
            s.rebuild_index(by_size="yes")  # type: ignore[arg-type]
        assert s.hnsw_graph() == (16, 64)  # refused before anything changed
    code, _, err = _jw(capsys, "rag", "reindex", "--store", dsn, "--by-size", "--m", "24")
    assert code == 2 and err.count("\n") == 1 and "pass one or the other" in err, err
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.rebuild_index(m=24, ef_construction=100, memory="64MB")
    code, out, err = _jw(capsys, "rag", "reindex", "--store", dsn, "--by-size", "--json")
    assert (code, err) == (0, "") and json.loads(out)["m"] == 16  # 10 chunks: pgvector's
    assert _index_options(dsn) == ["m=16", "ef_construction=64"]


def test_a_store_recorded_before_the_choice_existed(pg_database: PgDatabase) -> None:
    """Stores that recorded pgvector's default pair before ``hnsw_graph``
    existed choose by size; those that recorded another pair keep it."""
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", LARGE))
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DELETE FROM jw_meta WHERE key = 'hnsw_graph'")
    with PostgresStore(dsn, CountingEmbedder()) as s:
        assert s.stats()["hnsw_graph_by_size"] is True
        assert s.rebuild_index(memory="64MB") is True
        assert s.hnsw_graph() == (48, 200)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DELETE FROM jw_meta WHERE key = 'hnsw_graph'")
    with PostgresStore(dsn, CountingEmbedder()) as s:
        assert s.stats()["hnsw_graph_by_size"] is False  # 48 / 200 without the key: asked


@pytest.mark.parametrize("why", ["vectors wider than pgvector indexes", "a bulk load in progress"])
def test_a_store_without_an_index_is_not_told_to_rebuild_it(
    pg_database: PgDatabase, why: str
) -> None:
    """The advice to run rebuild_index() is for an index built small: a store
    whose vectors are too wide for HNSW has none (rebuild_index() builds
    nothing), and one whose index a bulk load dropped gets the graph for its
    size when that load ends."""
    dsn = pg_database()
    dim = 2048 if why.startswith("vectors") else 32
    with PostgresStore(dsn, CountingEmbedder(dim)) as s:
        s.add(make_chunks("a", LARGE + 10))
    _analyze(dsn)
    with PostgresStore(dsn, CountingEmbedder(dim)) as loader:
        with loader.deferred_index(memory="64MB"):
            with PostgresStore(dsn, CountingEmbedder(dim)) as s, warnings.catch_warnings():
                warnings.simplefilter("error")
                assert s.search("paragraph 7 of a", k=1)[0].chunk.id == "a:7"
    assert _index_options(dsn) == (
        None if dim > pg.HNSW_MAX_DIM else ["m=48", "ef_construction=200"]
    )


def test_a_fixed_search_breadth_still_hears_that_the_graph_is_small(
    pg_database: PgDatabase,
) -> None:
    """``ef_search`` fixes how wide a search is, not the graph it walks: a
    graph built for a smaller store misses neighbours at any breadth."""
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", LARGE + 10))
    _analyze(dsn)
    with PostgresStore(dsn, CountingEmbedder(), ef_search=40) as s:
        with pytest.warns(JwRagWarning, match=r"store\.rebuild_index\(\)\) builds m 48") as got:
            s.search("paragraph 7 of a", k=3)
            s._size = (0.0, -1e9)
            s.search("paragraph 8 of a", k=3)
        assert len([w for w in got if "rebuild_index" in str(w.message)]) == 1


def _outgrown(s: PostgresStore) -> None:
    with s._conn() as conn:
        s._warn_small_graph(conn, LARGE + 10.0)  # what a search does when it finds the store large


def test_threads_searching_at_once_warn_once(
    pg_database: PgDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads of one store object that measured its size at the same moment
    (each on its own pooled connection) and found it outgrown gave one
    warning each."""
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", LARGE + 10))
    _analyze(dsn)
    both = threading.Barrier(2)
    index_exists = PostgresStore._index_exists

    def together(conn: psycopg.Connection) -> bool:
        with contextlib.suppress(threading.BrokenBarrierError):
            both.wait(timeout=10)  # both threads are past the check, before the warning
        return index_exists(conn)

    with PostgresStore(dsn, CountingEmbedder()) as s:
        monkeypatch.setattr(s, "_index_exists", together)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            threads = [threading.Thread(target=_outgrown, args=(s,)) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    assert len([w for w in got if "rebuild_index" in str(w.message)]) == 1


def test_a_store_object_given_the_stores_graph_keeps_it_at_its_builds(
    pg_database: PgDatabase,
) -> None:
    """Opening a store that chooses by size with its own pair is allowed; a
    bulk load through that object then built the larger graph, and the same
    code's next open, with the same pair, was refused as differing."""
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:  # made without a graph: chosen by size
        s.add(make_chunks("seed", 5))
    pinned = {"hnsw_m": 16, "hnsw_ef_construction": 64}
    with _bulk(dsn, LARGE, **pinned) as s:
        _keeps_pgvectors_graph(dsn, s)
    with PostgresStore(dsn, CountingEmbedder(), **pinned) as s:
        assert s.stats()["chunks"] == LARGE + 5


def _jw(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from jw_cli.app import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_jw_rag_reindex_fits_the_graph_or_builds_the_one_asked(
    pg_database: PgDatabase, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dsn = pg_database()
    code, out, err = _jw(capsys, "rag", "reindex", "--store", dsn)
    assert code == 1 and err.startswith("error: no store in ")  # nothing made either
    PostgresStore(dsn, CountingEmbedder()).close()
    code, out, err = _jw(capsys, "rag", "reindex", "--store", dsn)
    assert (code, err) == (0, "")  # a new store: nothing to build yet
    assert (
        out
        == "no index to build (no vectors yet, or wider than 2,000 dimensions); the next build uses m 16, ef_construction 64\n"
    )
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", LARGE + 10))  # grown by inserts: still pgvector's graph
    code, out, err = _jw(capsys, "rag", "reindex", "--store", dsn, "--memory", "64MB")
    assert (code, err) == (0, "")
    assert out.startswith("rebuilt the HNSW index: m 48, ef_construction 200 (")
    assert _index_options(dsn) == ["m=48", "ef_construction=200"]
    code, out, err = _jw(
        capsys, "rag", "reindex", "--store", dsn, "--m", "24", "--ef-construction", "100", "--json"
    )
    assert (code, err) == (0, "")
    answer = json.loads(out)
    assert (answer["built"], answer["m"], answer["ef_construction"]) == (True, 24, 100)
    assert _index_options(dsn) == ["m=24", "ef_construction=100"]
    with PostgresStore(dsn, CountingEmbedder()) as s:
        assert s.stats()["chunks"] == LARGE + 10 and s.stats()["hnsw_graph_by_size"] is False


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--m", "1"), "m must be None .* from 2 to 100, got 1"),
        (("--m", "40", "--ef-construction", "64"), "at least twice"),
        (("--memory", "lots"), "memory must be a PostgreSQL size"),
    ],
)
def test_jw_rag_reindex_refuses_bad_values_in_one_line_and_keeps_the_index(
    pg_database: PgDatabase,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    message: str,
) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, CountingEmbedder()) as s:
        s.add(make_chunks("a", 10))
    code, out, err = _jw(capsys, "rag", "reindex", "--store", dsn, *argv)
    assert code == 2 and out == ""  # a bad value, as for every command
    assert re.search(message, err) and err.count("\n") == 1
    assert _index_options(dsn) == ["m=16", "ef_construction=64"]


def test_jw_rag_reindex_on_a_sqlite_store_says_it_has_no_index(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from jw_rag.embed import FakeEmbedder
    from jw_rag.store import SQLiteStore

    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, FakeEmbedder(dim=16)) as s:
        s.add(make_chunks("a", 3))
    code, out, err = _jw(capsys, "rag", "reindex", "--store", str(path))
    assert code == 2 and out == ""
    assert "is a SQLite store, which keeps no HNSW index to rebuild" in err
    code, _, err = _jw(capsys, "rag", "reindex", "--store", str(tmp_path / "none.sqlite"))
    assert code == 1 and "no store at" in err
    assert not (tmp_path / "none.sqlite").exists()


def test_jw_rag_delete_and_reindex_never_print_the_dsns_password(
    pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    dsn = pg_database().replace("postgres:@", "postgres:s3cretpw@", 1)  # the harness trusts any
    assert "s3cretpw" in dsn
    code, out, err = _jw(capsys, "rag", "delete", "--source", "nosuch", "--store", dsn)
    assert code == 1 and "no store in postgresql://postgres@" in err  # an empty database
    PostgresStore(dsn, CountingEmbedder()).close()
    code, out1, err1 = _jw(capsys, "rag", "delete", "--source", "nosuch", "--store", dsn)
    assert code == 1 and "no source 'nosuch' in postgresql://postgres@" in err1
    out, err = out + out1, err + err1
    code, out2, err2 = _jw(capsys, "rag", "reindex", "--store", dsn, "--m", "50")
    assert code == 2 and "s3cretpw" not in out + err + out2 + err2


def test_jw_rag_reindex_names_its_own_options_for_pgvectors_rule(
    pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    dsn = pg_database()
    PostgresStore(dsn, CountingEmbedder()).close()
    code, out, err = _jw(capsys, "rag", "reindex", "--store", dsn, "--m", "50")
    assert (code, out) == (2, "")  # the store's own ef_construction, 64, is under 2 x 50
    assert err.splitlines()[-1] == (  # (after pgvector's own warning, when it is printed)
        "error: ef_construction must be at least twice m (pgvector's rule), got m=50, "
        "ef_construction=64: raise ef_construction to 100 or more"
    )


def test_jw_rag_reindex_by_size_with_a_pair_is_refused_before_opening(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The flags contradict whatever the store: one line, exit 2, nothing opened."""
    missing = tmp_path / "none.sqlite"
    code, out, err = _jw(capsys, "rag", "reindex", "--store", str(missing), "--by-size", "--m", "8")
    assert (code, out) == (2, "")
    assert err == (
        "error: --by-size chooses the graph by the store's size, --m / --ef-construction give "
        "one: pass one or the other\n"
    )
    assert not missing.exists()
