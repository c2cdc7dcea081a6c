"""benchmarks/embedding_chunker_cost.py runs end to end on a slice of the shared data."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from jw_rag.embed import FakeEmbedder

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "embedding_chunker_cost.py"


def _load():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("embedding_chunker_cost", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_window_cost_counts_every_window_text() -> None:
    bench = _load()
    # windows of 2 over sentences of 3, 4, 5 characters: "xxx yyyy" and "yyyy zzzzz"
    assert bench.window_cost([3, 4, 5], 2) == (2, 8 + 10)
    assert bench.window_cost([7], 3) == (1, 7)
    assert bench.window_cost([3, 4], 3) == (1, 8)


def test_measure_on_shared_data(shared_bench: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    docs = bench.load_documents(shared_bench)[:3]
    rows = bench.measure(docs, FakeEmbedder(dim=16), 3)
    total = rows[-1]
    assert total["corpus"] == "total"
    assert total["ours_calls"] == 3  # one call per document
    # each sentence once versus every 3-sentence window: about three times the text
    assert 2.0 < total["win_chars"] / total["ours_chars"] < 3.2
    bench.print_table(rows, 3)
    assert "| xquad-en |" in capsys.readouterr().out
