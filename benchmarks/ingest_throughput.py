"""Ingest throughput: paragraphs per second into a SQLite store, with the
default embedder behind a cold and then a warm embedding cache.

Each XQuAD English article (../shared/bench-data/xquad/xquad.en.json) is one
source; each of its paragraphs is one chunk, written with
``store.replace_source``. The warm run ingests the same paragraphs into a new
store file, so only the embedding cache differs. Model loading is timed
separately (one embed call before the clock starts).

    uv run --frozen python benchmarks/ingest_throughput.py
    uv run --frozen python benchmarks/ingest_throughput.py --embedder fake --limit 50
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from jw_rag.model import Chunk

XQUAD_EN = (
    Path(__file__).resolve().parent.parent.parent
    / "shared"
    / "bench-data"
    / "xquad"
    / "xquad.en.json"
)


def load_sources(path: Path, limit: int | None) -> list[tuple[str, list[Chunk]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    sources: list[tuple[str, list[Chunk]]] = []
    count = 0
    for article in data["data"]:
        sid = f"xquad-en:{article.get('title') or len(sources)}"
        chunks = []
        for i, p in enumerate(article["paragraphs"]):
            if limit is not None and count >= limit:
                break
            chunks.append(
                Chunk(
                    id=f"{sid}:{i}",
                    text=p["context"],
                    source_id=sid,
                    metadata={
                        "language": "en",
                        "chunker": "paragraph",
                        "chunker_version": "1",
                        "chunk_index": i,
                    },
                )
            )
            count += 1
        if chunks:
            sources.append((sid, chunks))
    return sources


def ingest(store_path: Path, sources: list[tuple[str, list[Chunk]]], embedder: object) -> float:
    from jw_rag.store import SQLiteStore

    store = SQLiteStore(store_path, embedder=embedder)  # type: ignore[arg-type]
    t0 = time.perf_counter()
    for sid, chunks in sources:
        store.replace_source(sid, chunks, content_hash=None)
    elapsed = time.perf_counter() - t0
    store.close()
    return elapsed


def main(argv: list[str] | None = None) -> dict[str, float] | None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default=None, help="embedder name (default: use)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many paragraphs")
    parser.add_argument("--data", type=Path, default=XQUAD_EN)
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"skipped: needs {args.data} (the shared benchmark data is absent in this clone)")
        return None
    sources = load_sources(args.data, args.limit)
    n = sum(len(c) for _, c in sources)
    with tempfile.TemporaryDirectory(prefix="jw-ingest-bench-") as tmp:
        from jw_rag.embed import CachedEmbedder, EmbeddingCache, get_embedder

        cache = EmbeddingCache(Path(tmp) / "embeddings.sqlite")  # starts empty
        embedder = CachedEmbedder(get_embedder(args.embedder, cache=False), cache)
        t0 = time.perf_counter()
        embedder.embed(["model warm-up text that is not in the corpus"])
        load_s = time.perf_counter() - t0
        cold = ingest(Path(tmp) / "cold.sqlite", sources, embedder)
        warm = ingest(Path(tmp) / "warm.sqlite", sources, embedder)
        cache.close()
    result = {
        "paragraphs": n,
        "sources": len(sources),
        "model_load_s": load_s,
        "cold_s": cold,
        "warm_s": warm,
        "cold_pps": n / cold,
        "warm_pps": n / warm,
    }
    print(
        f"ingest: {n} paragraphs in {len(sources)} sources, embedder {embedder.model_id}, "
        f"cores {len(os.sched_getaffinity(0))}"
    )
    print(f"  model load + first embed: {load_s:.1f} s")
    print(f"  cold cache: {cold:.2f} s  {n / cold:8.1f} paragraphs/s")
    print(f"  warm cache: {warm:.2f} s  {n / warm:8.1f} paragraphs/s  (x{cold / warm:.1f} faster)")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
