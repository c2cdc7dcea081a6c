"""The store scale benchmark runs end to end on small inputs, against both
stores: synthetic vectors, and real USE vectors of the shared sets."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.postgres.pg_harness import PgDatabase

ROOT = Path(__file__).resolve().parent.parent.parent
BENCH = ROOT / "benchmarks" / "store_scale.py"
SHARED = ROOT.parent / "shared" / "bench-data"


def _bench(name: str = "store_scale") -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH.with_name(f"{name}.py"))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def real_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache of the few real vectors these tests embed, shared by them."""
    if not SHARED.is_dir():
        pytest.skip("needs ../shared/bench-data")
    return tmp_path_factory.mktemp("real-vectors")


def test_store_scale_bench_runs(
    pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    admin = pg_database()  # any database of the test server can create the benchmark's own
    rows = _bench().main(
        ["--sizes", "1500", "--dim", "16", "--queries", "8", "--dsn", admin]
        + ["--vectors", "clustered", "--stores", "sqlite", "postgres", "postgres-bulk"]
    )
    assert [(r["store"], r["n"]) for r in rows] == [
        ("sqlite", 1500),
        ("postgres", 1500),
        ("postgres-bulk", 1500),
    ]
    sqlite, postgres, bulk = rows
    assert sqlite["recall10"] == 1.0  # exact search
    assert postgres["recall10"] >= 0.8 and bulk["recall10"] >= 0.8
    for r in rows:
        assert r["ingest_cps"] > 0 and r["dense_p95_ms"] >= r["dense_p50_ms"] > 0
        assert r["hybrid_p50_ms"] > 0 and r["source_p50_ms"] > 0 and r["stats_ms"] > 0
        assert r["source_recall10"] == 1.0  # one source is searched exactly by both
    out = capsys.readouterr().out
    assert "recall@10" in out and "hybrid p95" in out and "| stats" in out


@pytest.mark.shared_data
def test_store_scale_bench_on_real_vectors_reuses_its_workdir(
    pg_database: PgDatabase, tmp_path: Path, real_cache: Path
) -> None:
    bench = _bench()
    args = ["--sizes", "3000", "--queries", "6", "--dsn", pg_database(), "--real-limit", "8"]
    args += ["--cache", str(real_cache), "--workdir", str(tmp_path / "work")]
    args += ["--stores", "sqlite", "postgres-bulk", "--exact-below", "1000"]
    first = bench.main(args)
    assert [r["store"] for r in first] == ["sqlite", "postgres-bulk"]
    assert list(real_cache.glob("*.npz"))  # embedded once, cached outside the store
    for r in first:
        assert r["recall10"] >= 0.9 and r["source_recall10"] >= 0.9
        assert r["language_recall10"] >= 0.8 and r["bm25_p50_ms"] > 0
    sqlite = first[0]
    assert 0 < sqlite["vector_mb"] < 0.35 * 3000 * 512 * 4 / 1e6  # quantized above 1,000
    again = bench.main(args)  # reuses both loaded stores: same ingest rate, same recall
    assert [r["ingest_cps"] for r in again] == [r["ingest_cps"] for r in first]
    assert [r["recall10"] for r in again] == [r["recall10"] for r in first]


@pytest.mark.shared_data
def test_real_vectors_report_compares_grown_and_held_apart_real_vectors(
    real_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _bench("real_vectors").main(["--cache", str(real_cache), "--real-limit", "8"])
    assert report["size"] > 100
    for key in ("held-apart real -> nearest real", "grown -> nearest other grown"):
        quantiles = [float(x) for x in str(report[key]).split(" / ")]
        assert quantiles == sorted(quantiles) and 0 <= quantiles[0] and quantiles[-1] <= 2
    assert float(report["intrinsic dimension grown"]) > 1  # type: ignore[arg-type]
    assert "questions" in capsys.readouterr().out


@pytest.mark.shared_data
def test_partition_and_writer_bench_runs(pg_database: PgDatabase, real_cache: Path) -> None:
    report = _bench("pg_partitions").main(
        ["--rows", "3000", "--queries", "5", "--ef-search", "40", "--writers", "1", "2"]
        + ["--per-writer", "1000", "--dsn", pg_database(), "--cache", str(real_cache)]
        + ["--real-limit", "8"]
    )
    searches = report["searches"]
    assert {(s["table"], s["partition"]) for s in searches} == {
        ("one", "all"),
        ("parts", "all"),
        ("parts", "en"),
        ("parts", "es"),
        ("parts", "pt"),
    }
    assert all(0 <= s["recall10"] <= 1 and s["p50_ms"] > 0 for s in searches)
    assert sum(s["rows"] for s in searches if s["partition"] in ("en", "es", "pt")) == 3000
    assert set(report["writers"]) == {1, 2} and all(v > 0 for v in report["writers"].values())


@pytest.mark.shared_data
def test_hnsw_parameter_bench_runs(pg08_database: PgDatabase, real_cache: Path) -> None:
    rows = _bench("pg_hnsw_params").main(
        ["--rows", "1500", "--queries", "5", "--ef-search", "40", "--dsn", pg08_database()]
        + ["--cache", str(real_cache), "--real-limit", "8"]
    )
    assert [(r["storage"], r["m"], r["ef_construction"]) for r in rows] == [
        ("vector", 16, 64),
        ("halfvec", 16, 64),
        ("vector", 24, 100),
        ("vector", 16, 128),
    ]
    halfvec, vector = rows[1], rows[0]
    assert halfvec["index_mb"] < vector["index_mb"]  # half the bytes per element
    assert all(r["recall10"] >= 0.8 for r in rows)


def test_store_scale_rebuilds_a_kept_store_with_the_asked_graph(
    pg_database: PgDatabase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    admin = pg_database()
    common = ["--sizes", "600", "--dim", "16", "--queries", "5", "--dsn", admin]
    common += ["--vectors", "clustered", "--stores", "postgres", "--workdir", str(tmp_path)]
    common += ["--dense-only", "--index-memory", "64MB"]
    first = _bench().main([*common, "--hnsw-m", "8", "--hnsw-ef-construction", "40"])
    assert "rebuilt the HNSW index" not in capsys.readouterr().err  # a new store records it
    second = _bench().main([*common, "--hnsw-ef-construction", "100"])  # the loaded store
    assert "rebuilt the HNSW index m=8, ef_construction=100" in capsys.readouterr().err
    assert first[0]["n"] == second[0]["n"] == 600
    assert second[0]["recall10"] >= 0.8
    from jw_rag.store.postgres import PostgresStore
    from tests.store.store_helpers import CountingEmbedder

    dsn = _bench()._pg_database(admin, "jw_scale_postgres_clustered_600_16_7", False)
    with PostgresStore(dsn, CountingEmbedder()) as s:
        assert s.hnsw_graph() == (8, 100)


def test_pg_chunker_bench_compares_both_stores(
    pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    admin = pg_database()  # the bench creates a database per variant run
    squad = ROOT / "tests" / "fixtures" / "eval" / "squad_tiny.json"
    rows = _bench("pg_chunker_bench").main(
        ["--dsn", admin, "--dataset", str(squad), "--retrievers", "bm25", "hybrid"]
        + ["--embedder", "fake"]
    )
    assert [(r["retriever"], r["language"]) for r in rows] == [("bm25", "en"), ("hybrid", "en")]
    for r in rows:
        assert all(0 < v <= 1 for v in (*r["sqlite"], *r["postgres"]))
    out = capsys.readouterr().out
    assert "| bm25 | en |" in out and "| hybrid | en |" in out and "PostgreSQL NDCG@2000c" in out


def test_pg_chunker_bench_lays_the_documents_out_as_the_chunker_bench_does(
    pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    from jw_eval.bench.chunker_bench import BenchOptions, run_chunker_bench

    admin = pg_database()
    squad = ROOT / "tests" / "fixtures" / "eval" / "squad_tiny.json"
    rows = _bench("pg_chunker_bench").main(
        ["--dsn", admin, "--dataset", str(squad), "--retrievers", "bm25", "--embedder", "fake"]
        + ["--shape", "rows"]
    )
    assert [(r["retriever"], r["language"], r["shape"]) for r in rows] == [("bm25", "en", "rows")]
    # the SQLite half is `jw eval chunker-bench --shape rows`'s run, to the last digit
    options = BenchOptions(
        variants="paragraph", dataset=squad, retriever="bm25", embedder="fake", peers="none",
        shape="rows",
    )  # fmt: skip
    report = run_chunker_bench(options).report
    assert report["config"]["shape"] == "rows"
    metrics = report["variants"][0]["by_language"]["en"]["metrics"]
    assert rows[0]["sqlite"] == (metrics["ndcg@2000c"]["value"], metrics["ndcg@4000c"]["value"])
    assert all(0 < v <= 1 for v in rows[0]["postgres"])
    out = capsys.readouterr().out
    assert out.startswith("Documents laid out as rows (jw_eval.shapes).\n\n| retriever |")
    # a shape the bench does not know is refused by the parser, before any server work
    with pytest.raises(SystemExit) as exit_info:
        _bench("pg_chunker_bench").main(["--dsn", "postgresql://nowhere/x", "--shape", "lines"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --shape: invalid choice: 'lines'" in err
    assert "joined" in err and "rows" in err


def test_store_scale_sets_the_bundled_servers_buffers_and_warms_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--sizes", "600", "--dim", "16", "--queries", "5", "--vectors", "clustered"]
    args += ["--stores", "postgres-bulk", "--server", "pixeltable", "--dense-only"]
    args += ["--workdir", str(tmp_path), "--shared-buffers", "48MB", "--warmup", "40"]
    rows = _bench().main(args)
    assert rows[0]["n"] == 600 and rows[0]["recall10"] >= 0.8
    conf = (tmp_path / "pg-pixeltable" / "data" / "postgresql.auto.conf").read_text()
    assert "shared_buffers = '48MB'" in conf  # kept in the data folder for later runs
    assert "after 40 warm-up searches" in capsys.readouterr().out


def test_store_scale_refuses_buffers_for_a_server_it_does_not_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        _bench().main(["--dsn", "postgresql://u@h/db", "--shared-buffers", "1GB"])
    assert "--shared-buffers sets the bundled server's" in capsys.readouterr().err
