"""The store scale benchmark runs end to end on small inputs, against both
stores: synthetic vectors, and real USE vectors of the shared sets."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from pg_harness import PgDatabase

ROOT = Path(__file__).resolve().parent.parent.parent
BENCH = ROOT / "benchmarks" / "store_scale.py"
SHARED = ROOT.parent / "shared" / "bench-data"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_store_scale", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/bench-data")
def test_store_scale_bench_on_real_vectors_reuses_its_workdir(
    pg_database: PgDatabase, tmp_path: Path
) -> None:
    bench = _bench()
    args = ["--sizes", "3000", "--queries", "6", "--dsn", pg_database(), "--real-limit", "8"]
    args += ["--cache", str(tmp_path / "cache"), "--workdir", str(tmp_path / "work")]
    args += ["--stores", "sqlite", "postgres-bulk", "--exact-below", "1000"]
    first = bench.main(args)
    assert [r["store"] for r in first] == ["sqlite", "postgres-bulk"]
    assert list((tmp_path / "cache").glob("*.npz"))  # embedded once, cached outside the store
    for r in first:
        assert r["recall10"] >= 0.9 and r["source_recall10"] >= 0.9
        assert r["language_recall10"] >= 0.8 and r["bm25_p50_ms"] > 0
    sqlite = first[0]
    assert 0 < sqlite["vector_mb"] < 0.35 * 3000 * 512 * 4 / 1e6  # quantized above 1,000
    again = bench.main(args)  # reuses both loaded stores: same ingest rate, same recall
    assert [r["ingest_cps"] for r in again] == [r["ingest_cps"] for r in first]
    assert [r["recall10"] for r in again] == [r["recall10"] for r in first]
