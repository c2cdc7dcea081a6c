"""The store benchmarks run end to end on small inputs."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent.parent / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_store_latency_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    results = _load("store_latency").main(
        ["--sizes", "300", "600", "--dim", "16", "--queries", "5"]
    )
    assert set(results) == {300, 600}
    for r in results.values():
        assert r["build_s"] > 0 and r["dense_p50_ms"] > 0 and r["hybrid_p95_ms"] > 0
    out = capsys.readouterr().out
    assert "p50 growth 300 -> 600" in out and "hybrid" in out


@pytest.mark.shared_data
def test_ingest_throughput_bench_runs(
    shared_bench: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _load("ingest_throughput").main(
        [
            "--embedder",
            "fake",
            "--limit",
            "12",
            "--data",
            str(shared_bench / "xquad" / "xquad.en.json"),
        ]
    )
    assert result is not None and result["paragraphs"] == 12
    assert result["cold_pps"] > 0 and result["warm_pps"] > 0
    assert result["windows"] > 0 and result["cold_windows_pps"] > 0
    out = capsys.readouterr().out
    assert "warm cache" in out and "window units" in out


def test_ingest_throughput_bench_skips_without_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _load("ingest_throughput").main(["--data", str(tmp_path / "absent.json")]) is None
    assert "skipped" in capsys.readouterr().out
