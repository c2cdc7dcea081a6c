"""The store scale benchmark runs end to end on a small input, against both stores."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from pg_harness import PgDatabase

BENCH = Path(__file__).resolve().parent.parent.parent / "benchmarks" / "store_scale.py"


def test_store_scale_bench_runs(
    pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.spec_from_file_location("bench_store_scale", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    admin = pg_database()  # any database of the test server can create the benchmark's own
    rows = module.main(
        ["--sizes", "1500", "--dim", "16", "--queries", "8", "--dsn", admin]
        + ["--stores", "sqlite", "postgres", "postgres-bulk"]
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
        assert r["hybrid_p50_ms"] > 0 and r["filtered_p50_ms"] > 0 and r["stats_ms"] > 0
    out = capsys.readouterr().out
    assert "recall@10" in out and "hybrid p95" in out and "| stats" in out
