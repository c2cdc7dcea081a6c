"""Ingest throughput and query latency of the default pipeline, against the
embedder's own raw rate.

The documents of a folder (default: the argument corpus in
../shared/bench-data, else the bundled benchmark corpus) are loaded, chunked
into paragraphs with their window units and written to a new SQLite store by
``ingest_documents``, behind an empty embedding cache (cold). Every text the
ingest sends to the model is recorded; the same model then embeds exactly those
texts in one call, without cache or store: that is its raw rate, and
``raw_s / ingest_s`` is the share of the raw rate the ingest reaches (the goal
is at least 0.9). A second ingest into a new store answers from the warm cache.
Query latency is ``retrieve`` with the shipped defaults (hybrid search,
segment delivery) for questions never seen before (query cache cold), the
model loaded. Peak memory is the process's maximum resident set.

    uv run --frozen python benchmarks/ingest_throughput.py
    uv run --frozen python benchmarks/ingest_throughput.py --embedder e5 --json out.json
    uv run --frozen python benchmarks/ingest_throughput.py --embedder fake --limit 3
    uv run --frozen python benchmarks/ingest_throughput.py --compare

``--compare`` measures, in one run, the pipeline before retrieval units (the
chunks as made, windows embedded as text: ``jw_rag.units.NO_UNITS``) and then
the shipped default, and prints texts sent to the model per paragraph and the
share of the raw rate for both, with their ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jw_eval.bench import DEFAULT_DATASET

ROOT = Path(__file__).resolve().parent.parent
ARGUMENT = ROOT.parent / "shared" / "bench-data" / "argument" / "corpus"
BUNDLED = DEFAULT_DATASET / "corpus"


class Recorder:
    """Passes texts to ``inner`` and keeps each call's texts and time."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.texts: list[str] = []
        self.seconds = 0.0

    def embed(self, texts: Sequence[str]) -> Any:
        t0 = time.perf_counter()
        out = self.inner.embed(texts)
        self.seconds += time.perf_counter() - t0
        self.texts.extend(texts)
        return out

    def embed_queries(self, texts: Sequence[str]) -> Any:
        from jw_rag.embed import embed_queries

        return embed_queries(self.inner, texts)


def load(data: Path, limit: int | None) -> list[Any]:
    from jw_rag.ingest import load_documents

    docs = load_documents(data)
    return docs[:limit] if limit else docs


def queries(docs: list[Any], n: int) -> list[str]:
    """The first eight words of paragraphs spread over the corpus: questions no
    cache has seen, each with an answer in the store."""
    paragraphs = [p for d in docs for p in d.paragraphs if len(p.text.split()) >= 8]
    step = max(1, len(paragraphs) // n)
    return [" ".join(p.text.split()[:8]) for p in paragraphs[::step][:n]]


def ingest(store_path: Path, docs: list[Any], embedder: Any, units: Any = None) -> float:
    from jw_rag.defaults import DEFAULT_PIPELINE
    from jw_rag.ingest import ingest_documents
    from jw_rag.store import SQLiteStore

    store = SQLiteStore(store_path, embedder=embedder)
    t0 = time.perf_counter()
    ingest_documents(store, docs, chunker="paragraph", units=units or DEFAULT_PIPELINE.units)
    elapsed = time.perf_counter() - t0
    store.close()
    return elapsed


def query_latency(store_path: Path, embedder: Any, asked: list[str]) -> list[float]:
    from jw_rag.retrieve import retrieve
    from jw_rag.store import SQLiteStore

    store = SQLiteStore(store_path, embedder=embedder)
    times = []
    for question in asked:
        t0 = time.perf_counter()
        retrieve(store, question)
        times.append(time.perf_counter() - t0)
    store.close()
    return times


def measure(docs: list[Any], name: str | None, n_queries: int, units: Any = None) -> dict[str, Any]:
    from jw_rag.embed import CachedEmbedder, EmbeddingCache, get_embedder

    inner = get_embedder(name, cache=False)
    t0 = time.perf_counter()
    inner.embed(["model warm-up text that is not in the corpus"])
    load_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="jw-ingest-bench-") as tmp:
        cache = EmbeddingCache(Path(tmp) / "embeddings.sqlite")  # starts empty
        recorder = Recorder(inner)
        embedder = CachedEmbedder(recorder, cache)
        cold = ingest(Path(tmp) / "cold.sqlite", docs, embedder, units)
        warm = ingest(Path(tmp) / "warm.sqlite", docs, embedder, units)
        t0 = time.perf_counter()
        inner.embed(recorder.texts)
        raw = time.perf_counter() - t0
        latencies = query_latency(Path(tmp) / "cold.sqlite", embedder, queries(docs, n_queries))
        cache.close()
    return {
        "embedder": inner.model_id,
        "load_s": load_s,
        "cold_s": cold,
        "warm_s": warm,
        "raw_s": raw,
        "embed_in_ingest_s": recorder.seconds,
        "texts": len(recorder.texts),
        "text_chars": sum(len(t) for t in recorder.texts),
        "latencies": latencies,
    }


def summarise(docs: list[Any], m: dict[str, Any]) -> dict[str, Any]:
    paragraphs = sum(len(d.paragraphs) for d in docs)
    chars = sum(len(p.text) for d in docs for p in d.paragraphs)
    lat = sorted(m.pop("latencies"))
    return {
        **m,
        "documents": len(docs),
        "paragraphs": paragraphs,
        "cores": len(os.sched_getaffinity(0)),
        "cold_pps": paragraphs / m["cold_s"],
        "warm_pps": paragraphs / m["warm_s"],
        "cold_kb_per_s": chars / 1000 / m["cold_s"],
        "raw_texts_per_s": m["texts"] / m["raw_s"],
        "raw_kb_per_s": m["text_chars"] / 1000 / m["raw_s"],
        "share_of_raw_rate": m["raw_s"] / m["cold_s"],
        "hours_for_10k_paragraphs": 10_000 / (paragraphs / m["cold_s"]) / 3600,
        "query_ms_median": 1000 * statistics.median(lat) if lat else None,
        "query_ms_p90": 1000 * lat[int(0.9 * (len(lat) - 1))] if lat else None,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def report(r: dict[str, Any]) -> None:
    print(
        f"ingest: {r['documents']} documents, {r['paragraphs']} paragraphs, "
        f"embedder {r['embedder']}, {r['cores']} cores"
    )
    print(f"  model load + first embed: {r['load_s']:.1f} s")
    print(
        f"  cold cache: {r['cold_s']:.2f} s, {r['cold_pps']:.1f} paragraphs/s, "
        f"{r['cold_kb_per_s']:.1f} KB/s; {r['texts']} texts embedded (chunks and windows)"
    )
    print(
        f"  raw model on the same texts: {r['raw_s']:.2f} s, {r['raw_texts_per_s']:.1f} texts/s, "
        f"{r['raw_kb_per_s']:.1f} KB/s -> ingest reaches {r['share_of_raw_rate']:.0%} "
        f"of the raw rate"
    )
    print(f"  warm cache: {r['warm_s']:.2f} s, {r['warm_pps']:.1f} paragraphs/s")
    print(f"  10,000 paragraphs cold: {r['hours_for_10k_paragraphs']:.2f} h")
    if r["query_ms_median"] is not None:
        print(
            f"  query (retrieve, defaults, new question): median {r['query_ms_median']:.1f} ms, "
            f"p90 {r['query_ms_p90']:.1f} ms"
        )
    print(f"  peak RSS: {r['peak_rss_mb']:.0f} MB")


def main(argv: list[str] | None = None) -> dict[str, Any] | None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default=None, help="embedder name (default: use)")
    parser.add_argument("--data", type=Path, default=None, help="a folder of documents")
    parser.add_argument("--limit", type=int, default=None, help="at most this many documents")
    parser.add_argument("--queries", type=int, default=50, help="questions for the latency")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    parser.add_argument(
        "--compare", action="store_true", help="measure the pipeline before units first"
    )
    args = parser.parse_args(argv)
    data = args.data or (ARGUMENT if ARGUMENT.is_dir() else BUNDLED)
    if not data.exists():
        print(f"skipped: needs {data} (absent in this clone)")
        return None
    docs = load(data, args.limit)
    before = None
    if args.compare:
        from jw_rag.units import NO_UNITS

        print("before retrieval units (chunks as made, windows embedded as text):")
        before = summarise(docs, measure(docs, args.embedder, args.queries, NO_UNITS))
        report(before)
        print("shipped default:")
    result = summarise(docs, measure(docs, args.embedder, args.queries))
    result["data"] = str(data)
    report(result)
    if before is not None:
        per = [r["texts"] / r["paragraphs"] for r in (before, result)]
        print(
            f"texts per paragraph: {per[0]:.2f} before, {per[1]:.2f} now "
            f"({per[1] / per[0]:.2f}x); share of the raw rate {before['share_of_raw_rate']:.0%} "
            f"before, {result['share_of_raw_rate']:.0%} now; cold ingest "
            f"{before['cold_s'] / result['cold_s']:.2f}x as fast"
        )
        result["before"] = before
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
