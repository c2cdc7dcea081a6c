"""Ingest throughput and query latency of the default pipeline, against the
embedder's own raw rate.

The documents of a folder (default: the argument corpus in
../shared/bench-data, else the bundled benchmark corpus) are loaded, chunked
into paragraphs with their window units and written to a new SQLite store by
``ingest_documents``, behind an empty embedding cache (cold). Every text the
ingest sends to the model is recorded; the same model then embeds exactly those
texts in one call, without cache or store: that is its raw rate, and
``raw_s / ingest_s`` is the share of the raw rate the ingest reaches. The
model also embeds every paragraph once, as it would if each paragraph were
one text: ``raw_paragraphs_s / ingest_s`` is the share of the embedder's raw
rate in paragraphs (the goal is at least 0.85), and ``raw_s /
raw_paragraphs_s`` is the model time the ingest's texts cost per paragraph
against one text per paragraph. Both models (the embedder and the language
identifier) are loaded before the clock starts; their load times are reported
apart. ``--repeat N`` measures the cold ingest and both raw rates N times,
interleaved, and keeps each one's median, because a shared machine's load
moves single runs by 10% or more; the same shares are also given in the
process's CPU time, which other processes on the machine disturb much less.
A second ingest into a new store answers from the warm cache. Query latency
is ``retrieve`` with the shipped defaults (hybrid search, segment delivery)
for questions never seen before (query cache cold), the model loaded. Peak
memory is the process's maximum resident set.

    uv run --frozen python benchmarks/ingest_throughput.py
    uv run --frozen python benchmarks/ingest_throughput.py --embedder e5 --json out.json
    uv run --frozen python benchmarks/ingest_throughput.py --embedder fake --limit 3
    uv run --frozen python benchmarks/ingest_throughput.py --compare
    uv run --frozen python benchmarks/ingest_throughput.py --prefix-weight 0.3

``--compare`` measures, in one run, the pipeline before retrieval units (the
chunks as made, windows embedded as text: ``jw_rag.units.NO_UNITS``) and then
the shipped default, and prints texts sent to the model per paragraph and the
share of the raw rate for both, with their ratios. ``--prefix-weight W``
measures the default with the title mixed into each unit's vector at weight
``W`` instead of embedded with every unit (:attr:`jw_rag.units.UnitRules.prefix_weight`).
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


def ingest(
    store_path: Path, docs: list[Any], embedder: Any, units: Any = None
) -> tuple[float, float]:
    """Seconds of wall clock and of this process's CPU the ingest took."""
    from jw_rag.defaults import DEFAULT_PIPELINE
    from jw_rag.ingest import ingest_documents
    from jw_rag.store import SQLiteStore

    store = SQLiteStore(store_path, embedder=embedder)
    t0, c0 = time.perf_counter(), time.process_time()
    ingest_documents(store, docs, chunker="paragraph", units=units or DEFAULT_PIPELINE.units)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    store.close()
    return elapsed, cpu


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


def measure(
    docs: list[Any], name: str | None, n_queries: int, units: Any = None, repeat: int = 1
) -> dict[str, Any]:
    from jw_core.language import load_language_model
    from jw_rag.embed import CachedEmbedder, EmbeddingCache, get_embedder

    if repeat < 1:
        raise SystemExit(f"--repeat must be 1 or more, got {repeat}")
    inner = get_embedder(name, cache=False)
    t0 = time.perf_counter()
    inner.embed(["model warm-up text that is not in the corpus"])
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    load_language_model()
    language_load_s = time.perf_counter() - t0
    paragraphs = [p.text for d in docs for p in d.paragraphs]
    colds: list[tuple[float, float]] = []
    raws: list[tuple[float, float]] = []
    raw_paragraphs: list[tuple[float, float]] = []
    for run in range(repeat):
        with tempfile.TemporaryDirectory(prefix="jw-ingest-bench-") as tmp:
            cache = EmbeddingCache(Path(tmp) / "embeddings.sqlite")  # starts empty
            recorder = Recorder(inner)
            embedder = CachedEmbedder(recorder, cache)
            colds.append(ingest(Path(tmp) / "cold.sqlite", docs, embedder, units))
            raws.append(_timed(inner.embed, recorder.texts))
            raw_paragraphs.append(_timed(inner.embed, paragraphs))
            if (
                run == repeat - 1
            ):  # the last run's cache and store serve the warm ingest and queries
                warm, _ = ingest(Path(tmp) / "warm.sqlite", docs, embedder, units)
                asked = queries(docs, n_queries)
                latencies = query_latency(Path(tmp) / "cold.sqlite", embedder, asked)
            cache.close()
    return {
        "embedder": inner.model_id,
        "load_s": load_s,
        "language_load_s": language_load_s,
        "repeat": repeat,
        "cold_s": statistics.median(w for w, _ in colds),
        "cold_cpu_s": statistics.median(c for _, c in colds),
        "warm_s": warm,
        "raw_s": statistics.median(w for w, _ in raws),
        "raw_cpu_s": statistics.median(c for _, c in raws),
        "raw_paragraphs_s": statistics.median(w for w, _ in raw_paragraphs),
        "raw_paragraphs_cpu_s": statistics.median(c for _, c in raw_paragraphs),
        "embed_in_ingest_s": recorder.seconds,
        "texts": len(recorder.texts),
        "text_chars": sum(len(t) for t in recorder.texts),
        "latencies": latencies,
    }


def _timed(embed: Any, texts: list[str]) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    embed(texts)
    return time.perf_counter() - t0, time.process_time() - c0


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
        "share_of_paragraph_rate": m["raw_paragraphs_s"] / m["cold_s"],
        "model_time_per_paragraph": m["raw_s"] / m["raw_paragraphs_s"],
        "share_of_paragraph_rate_cpu": m["raw_paragraphs_cpu_s"] / m["cold_cpu_s"],
        "model_cpu_per_paragraph": m["raw_cpu_s"] / m["raw_paragraphs_cpu_s"],
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
    print(
        f"  cold cache: {r['cold_s']:.2f} s, {r['cold_pps']:.1f} paragraphs/s, "
        f"{r['cold_kb_per_s']:.1f} KB/s; {r['texts']} texts embedded (chunks and windows)"
    )
    print(
        f"  raw model on the same texts: {r['raw_s']:.2f} s, {r['raw_texts_per_s']:.1f} texts/s, "
        f"{r['raw_kb_per_s']:.1f} KB/s -> ingest reaches {r['share_of_raw_rate']:.0%} "
        f"of the raw rate"
    )
    print(
        f"  raw model on the paragraphs, one text each: {r['raw_paragraphs_s']:.2f} s -> ingest "
        f"reaches {r['share_of_paragraph_rate']:.0%} of the raw rate in paragraphs; the "
        f"ingest's texts cost {r['model_time_per_paragraph']:.2f}x the model time of the paragraphs"
    )
    print(
        f"  in CPU time of this process: ingest {r['cold_cpu_s']:.2f} s, raw on the paragraphs "
        f"{r['raw_paragraphs_cpu_s']:.2f} s -> {r['share_of_paragraph_rate_cpu']:.0%} of the raw "
        f"rate in paragraphs; the ingest's texts cost {r['model_cpu_per_paragraph']:.2f}x the "
        f"paragraphs' model CPU"
    )
    print(
        f"  (medians of {r['repeat']} interleaved runs; model load {r['load_s']:.1f} s and "
        f"language identifier load {r['language_load_s']:.1f} s not counted)"
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
    parser.add_argument(
        "--repeat", type=int, default=1, help="cold ingests to take the median of (default 1)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    parser.add_argument(
        "--compare", action="store_true", help="measure the pipeline before units first"
    )
    parser.add_argument(
        "--prefix-weight",
        type=float,
        default=None,
        help="mix the title into each unit's vector at this weight (UnitRules.prefix_weight)",
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
        before = summarise(docs, measure(docs, args.embedder, args.queries, NO_UNITS, args.repeat))
        report(before)
        print("shipped default:")
    units = None
    if args.prefix_weight is not None:
        from dataclasses import replace

        from jw_rag.defaults import DEFAULT_PIPELINE
        from jw_rag.errors import ConfigError

        try:
            units = replace(DEFAULT_PIPELINE.units, prefix_weight=args.prefix_weight)
        except ConfigError as exc:
            parser.error(str(exc))
    result = summarise(docs, measure(docs, args.embedder, args.queries, units, args.repeat))
    result["data"] = str(data)
    report(result)
    if before is not None:
        per = [r["texts"] / r["paragraphs"] for r in (before, result)]
        print(
            f"texts per paragraph: {per[0]:.2f} before, {per[1]:.2f} now "
            f"({per[1] / per[0]:.2f}x); model time per paragraph "
            f"{before['model_time_per_paragraph']:.2f}x before, "
            f"{result['model_time_per_paragraph']:.2f}x now; share of the raw rate in paragraphs "
            f"{before['share_of_paragraph_rate']:.0%} before, "
            f"{result['share_of_paragraph_rate']:.0%} now; cold ingest "
            f"{before['cold_s'] / result['cold_s']:.2f}x as fast"
        )
        result["before"] = before
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
