"""Search latency of the SQLite store per mode, at several corpus sizes.

Chunks get random unit vectors (no model involved) and texts drawn from the
vocabulary of the XQuAD English paragraphs in ../shared/bench-data (a built-in
word list when that is absent). Prints build time, the first dense query
(which loads the vector matrix), p50/p95 per mode, and the growth ratio of
p50 between the smallest and largest size.

    uv run --frozen python benchmarks/store_latency.py               # 10k and 100k, 512-d
    uv run --frozen python benchmarks/store_latency.py --sizes 2000 --queries 20
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from jw_rag.model import Chunk
from jw_rag.store import SQLiteStore

XQUAD_EN = (
    Path(__file__).resolve().parent.parent.parent
    / "shared"
    / "bench-data"
    / "xquad"
    / "xquad.en.json"
)
_FALLBACK_WORDS = (
    "light lamp oil water bread wine shepherd sheep field harvest seed vine branch "
    "temple city wall gate king prophet law covenant promise faith hope love peace "
    "mountain river sea boat fish net road journey house family father mother son"
).split()
MODES = ("dense", "dense+filter", "bm25", "hybrid")


class RandomEmbedder:
    """Random unit vectors: latency does not depend on what the vectors mean."""

    def __init__(self, dim: int, seed: int = 0) -> None:
        self.dim = dim
        self.model_id = f"random-{dim}"
        self._rng = np.random.default_rng(seed)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        v = self._rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def vocabulary() -> list[str]:
    if not XQUAD_EN.exists():
        return _FALLBACK_WORDS
    data = json.loads(XQUAD_EN.read_text(encoding="utf-8"))
    text = " ".join(p["context"] for a in data["data"] for p in a["paragraphs"])
    return sorted(set(re.findall(r"[a-z]{3,}", text.lower())))


def make_chunks(n: int, words: list[str], rng: np.random.Generator) -> list[Chunk]:
    picks = rng.integers(0, len(words), size=(n, 40))
    return [
        Chunk(
            id=f"doc{i // 100}:{i}",
            text=" ".join(words[j] for j in picks[i]),
            source_id=f"doc{i // 100}",
            metadata={
                "language": "en",
                "chunker": "paragraph",
                "chunker_version": "1",
                "pages": [1 + (i % 100) // 10],
            },
        )
        for i in range(n)
    ]


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def measure(size: int, dim: int, queries: int, words: list[str], folder: Path) -> dict[str, float]:
    rng = np.random.default_rng(size)
    store = SQLiteStore(folder / f"bench-{size}.sqlite", embedder=RandomEmbedder(dim))
    chunks = make_chunks(size, words, rng)
    t0 = time.perf_counter()
    for start in range(0, size, 10_000):
        store.add(chunks[start : start + 10_000])
    out: dict[str, float] = {"build_s": time.perf_counter() - t0}
    t0 = time.perf_counter()
    store.search("warm up", k=10, mode="dense")
    out["first_dense_ms"] = (time.perf_counter() - t0) * 1000
    texts = [
        " ".join(words[j] for j in rng.integers(0, len(words), size=4)) for _ in range(queries)
    ]
    for mode in MODES:
        real_mode = "dense" if mode == "dense+filter" else mode
        filters = (
            {"source_id": [f"doc{j}" for j in range(0, size // 100, 10)]}
            if mode == "dense+filter"
            else None
        )
        times = []
        for q in texts:
            t0 = time.perf_counter()
            hits = store.search(q, k=10, mode=real_mode, filters=filters)  # type: ignore[arg-type]
            times.append((time.perf_counter() - t0) * 1000)
            if mode != "bm25" and len(hits) != 10:
                raise SystemExit(f"{mode} returned {len(hits)} hits at size {size}")
        out[f"{mode}_p50_ms"] = statistics.median(times)
        out[f"{mode}_p95_ms"] = percentile(times, 95)
    out["file_mb"] = store.stats()["size_bytes"] / 1e6
    store.close()
    return out


def main(argv: list[str] | None = None) -> dict[int, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args(argv)
    words = vocabulary()
    results: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="jw-store-bench-") as tmp:
        for size in args.sizes:
            results[size] = measure(size, args.dim, args.queries, words, Path(tmp))
    print(
        f"store latency: dim={args.dim}, k=10, {args.queries} queries, vocabulary {len(words)} words"
    )
    print(
        f"{'chunks':>8} {'build s':>8} {'file MB':>8} {'1st dense':>10} "
        + " ".join(f"{m + ' p50/p95 ms':>24}" for m in MODES)
    )
    for size, r in results.items():
        cells = " ".join(f"{r[m + '_p50_ms']:>11.2f} / {r[m + '_p95_ms']:>9.2f}" for m in MODES)
        print(
            f"{size:>8} {r['build_s']:>8.1f} {r['file_mb']:>8.1f} {r['first_dense_ms']:>8.0f}ms {cells}"
        )
    if len(results) > 1:
        lo, hi = min(results), max(results)
        ratios = ", ".join(
            f"{m} x{results[hi][m + '_p50_ms'] / results[lo][m + '_p50_ms']:.1f}" for m in MODES
        )
        print(
            f"p50 growth {lo} -> {hi} chunks ({hi / lo:.0f}x data): {ratios}; "
            f"build x{results[hi]['build_s'] / results[lo]['build_s']:.1f}"
        )
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
