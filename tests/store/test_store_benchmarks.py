"""The store benchmarks run end to end on small inputs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from jw_eval.bench import DEFAULT_DATASET

BENCH = Path(__file__).resolve().parent.parent.parent / "benchmarks"
BUNDLED = DEFAULT_DATASET / "corpus"


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


def test_ingest_throughput_bench_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json = tmp_path / "r.json"
    result = _load("ingest_throughput").main(
        [
            "--embedder",
            "fake",
            "--data",
            str(BUNDLED / "en"),
            "--limit",
            "3",
            "--queries",
            "4",
            "--json",
            str(out_json),
            "--compare",
            "--repeat",
            "2",
        ]
    )
    assert result is not None and result["documents"] == 3 and result["repeat"] == 2
    before = result["before"]
    assert before["paragraphs"] == result["paragraphs"] and before["texts"] > 0
    # chunks and their window units are embedded, each once: more texts than chunks alone
    assert result["texts"] > result["paragraphs"] // 2 > 0
    assert result["cold_pps"] > 0 and result["warm_pps"] > 0 and result["raw_s"] > 0
    assert 0 < result["share_of_raw_rate"] and result["query_ms_median"] > 0
    assert result["raw_paragraphs_s"] > 0 and result["share_of_paragraph_rate"] > 0
    ratio = result["model_time_per_paragraph"]
    assert ratio == result["raw_s"] / result["raw_paragraphs_s"]
    assert result["cold_cpu_s"] > 0 and result["share_of_paragraph_rate_cpu"] > 0
    assert result["model_cpu_per_paragraph"] == result["raw_cpu_s"] / result["raw_paragraphs_cpu_s"]
    assert json.loads(out_json.read_text("utf-8"))["texts"] == result["texts"]
    out = capsys.readouterr().out
    assert "of the raw rate" in out and "warm cache" in out and "query (retrieve" in out
    assert "texts per paragraph:" in out and "before retrieval units" in out
    assert "of the raw rate in paragraphs" in out and "medians of 2 interleaved runs" in out
    assert "in CPU time of this process" in out


def test_ingest_throughput_bench_skips_without_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _load("ingest_throughput").main(["--data", str(tmp_path / "absent")]) is None
    assert "skipped" in capsys.readouterr().out


def test_ingest_throughput_bench_refuses_no_repeat() -> None:
    with pytest.raises(SystemExit, match="--repeat must be 1 or more, got 0"):
        _load("ingest_throughput").main(
            ["--embedder", "fake", "--data", str(BUNDLED / "en"), "--limit", "1", "--repeat", "0"]
        )


def test_ingest_throughput_bench_mixes_the_title_when_asked() -> None:
    common = ["--embedder", "fake", "--data", str(BUNDLED / "en"), "--limit", "2", "--queries", "2"]
    joint = _load("ingest_throughput").main(common)
    mixed = _load("ingest_throughput").main([*common, "--prefix-weight", "0.3"])
    assert joint is not None and mixed is not None
    # each unit's text without its title and heading path, each of those once:
    # fewer characters, a few more (short) texts
    assert joint["texts"] < mixed["texts"] < 2 * joint["texts"]
    assert mixed["text_chars"] < joint["text_chars"]
    with pytest.raises(SystemExit):
        _load("ingest_throughput").main([*common, "--prefix-weight", "-1"])


def test_fts_bound_bench_compares_both_ways(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jw_rag.model import Chunk
    from jw_rag.store import SQLiteStore
    from tests.store.store_helpers import CountingEmbedder

    store = tmp_path / "s.sqlite"
    with SQLiteStore(store, CountingEmbedder()) as s:
        s.add(
            [
                Chunk(
                    f"s:{i}",
                    f"the w{i % 20} of the {'god ' * (i % 3)}n{i}",
                    "s",
                    {"language": "en"},
                )
                for i in range(300)
            ]
        )
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps(["the w3 of the god", "w7 and the", "the of", "w1 w2"]))
    rows = _load("fts_bound").main(
        ["--store", str(store), "--questions", str(questions), "--k", "1", "5"]
    )
    assert [(r["k"], r["questions"]) for r in rows] == [(1, 4), (5, 4)]
    for r in rows:
        assert r["identical"] == 4 and r["max_score_diff"] < 1e-9
        assert 1 <= r["bound_proved"] < 4  # "the of" has no rarer word: the full query answers
        assert r["full_p50_ms"] > 0 and r["bounded_p50_ms"] > 0
    assert "| identical" in capsys.readouterr().out


def test_query_length_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load("query_length")
    if not (bench.DATA / "argument" / "corpus").is_dir():
        pytest.skip("the shared bench data is not beside the repository")
    rows = bench.main(
        ["--stores", "sqlite", "--lengths", "300", "5000", "--kinds", "short",
         "--repeat", "1", "--paragraphs", "30"]
    )  # fmt: skip
    assert [(r["kind"], r["chars"]) for r in rows] == [("short", 300), ("short", 5000)]
    assert all(r[m] >= 0 for r in rows for m in ("embed", "bm25", "dense", "hybrid"))
    assert "5,000 chars" in capsys.readouterr().out  # over the limit: ranked all the same
