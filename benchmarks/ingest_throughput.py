"""Ingest throughput: paragraphs per second into a SQLite store, with the
default embedder behind a cold and then a warm embedding cache, and the cost
of the window units the default pipeline indexes beside the chunks.

Each XQuAD English article (../shared/bench-data/xquad/xquad.en.json) is one
source; each of its paragraphs is one chunk, written with
``store.replace_source``. The warm run ingests the same paragraphs into a new
store file, so only the embedding cache differs. The windowed run ingests the
chunks plus their window units (``--windows`` characters, the default
pipeline's size) behind another cold cache. Model loading is timed separately
(one embed call before the clock starts).

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
from jw_rag.windows import DEFAULT_WINDOW_CHARS, window_units

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
                        "span": {
                            "start_para": i,
                            "start_char": 0,
                            "end_para": i,
                            "end_char": len(p["context"]),
                        },
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


def with_windows(
    sources: list[tuple[str, list[Chunk]]], max_chars: int
) -> list[tuple[str, list[Chunk]]]:
    """Each source's chunks followed by their window units."""
    return [(sid, [*chunks, *window_units(chunks, max_chars=max_chars)]) for sid, chunks in sources]


def main(argv: list[str] | None = None) -> dict[str, float] | None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default=None, help="embedder name (default: use)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many paragraphs")
    parser.add_argument("--data", type=Path, default=XQUAD_EN)
    parser.add_argument(
        "--windows", type=int, default=DEFAULT_WINDOW_CHARS, help="window units' size in characters"
    )
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
        fresh = EmbeddingCache(Path(tmp) / "windows-cache.sqlite")
        embedder = CachedEmbedder(get_embedder(args.embedder, cache=False), fresh)
        embedder.embed(["model warm-up text that is not in the corpus"])
        windowed = with_windows(sources, args.windows)
        n_windows = sum(len(c) for _, c in windowed) - n
        cold_windows = ingest(Path(tmp) / "windows.sqlite", windowed, embedder)
        fresh.close()
    result = {
        "paragraphs": n,
        "sources": len(sources),
        "model_load_s": load_s,
        "cold_s": cold,
        "warm_s": warm,
        "cold_pps": n / cold,
        "warm_pps": n / warm,
        "windows": n_windows,
        "cold_windows_s": cold_windows,
        "cold_windows_pps": n / cold_windows,
    }
    print(
        f"ingest: {n} paragraphs in {len(sources)} sources, embedder {embedder.model_id}, "
        f"cores {len(os.sched_getaffinity(0))}"
    )
    print(f"  model load + first embed: {load_s:.1f} s")
    print(f"  cold cache: {cold:.2f} s  {n / cold:8.1f} paragraphs/s")
    print(f"  warm cache: {warm:.2f} s  {n / warm:8.1f} paragraphs/s  (x{cold / warm:.1f} faster)")
    print(
        f"  cold cache with {n_windows} window units ({args.windows} chars): {cold_windows:.2f} s  "
        f"{n / cold_windows:8.1f} paragraphs/s  (x{cold_windows / cold:.2f} the time)"
    )
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
