"""benchmarks/embed_throughput.py runs end to end on a few real paragraphs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "embed_throughput.py"


def _load_bench():
    spec = importlib.util.spec_from_file_location("embed_throughput", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_runs_on_real_paragraphs(shared_bench, capsys):
    bench = _load_bench()
    result = bench.main(
        [
            "--bench-data",
            str(shared_bench),
            "--paragraphs",
            "10",
            "--thread-texts",
            "3",
            "--lengths",
        ]
    )
    out = capsys.readouterr().out
    assert out.startswith("10 paragraphs, ")
    for row in (
        "| USE direct | 10 |",
        "| cache cold | 10 |",
        "| cache warm | 10 |",
        "| threads=4 | 3 |",
    ):
        assert row in out
    assert "| 2,000 chars |" in out and "| 4 | 0." in out
    assert result["warm_vs_cold"] > 5  # reading 10 vectors beats embedding 10 paragraphs
    assert result["use_texts_per_s"] > 0 and result["threads4_vs_threads2"] > 0


def test_paragraphs_continue_into_spanish(shared_bench):
    bench = _load_bench()
    texts = bench.load_paragraphs(shared_bench, 300)
    assert len(texts) == 300 and len(set(texts)) == 300
    assert "Panthers" in texts[0]
