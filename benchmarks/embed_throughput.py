"""USE embedding throughput, the embedding cache's speed-up, and BLAS threads.

    uv run --frozen python benchmarks/embed_throughput.py [--bench-data ../shared/bench-data]
        [--paragraphs 500] [--thread-texts 48]

Input: paragraphs (``context`` fields) of XQuAD English, continued with XQuAD
Spanish when more are asked for than the English file holds (240 each). In one run:

1. USE direct: ``USEEmbedder`` alone (model load timed separately, excluded);
2. cache cold: ``CachedEmbedder`` over an empty cache file (embeds and stores);
3. cache warm: the same texts again through a new ``CachedEmbedder`` on that file;
4. threads: the first ``--thread-texts`` paragraphs with ``threads=2`` and ``threads=4``;
5. with ``--lengths``: seconds to embed one text of growing length (the paragraphs
   joined), and how similar a paragraph's first 200 characters stay to a text that
   holds it with 0, 1, 3, 7, 15 following paragraphs (USE averages over tokens).

Speeds are reported as ratios between rows of the same run.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from jw_rag.embed import CachedEmbedder, EmbeddingCache, USEEmbedder
from jw_rag.embed.use import usable_cores
from jw_rag.model import PARAGRAPH_SEPARATOR

REPO = Path(__file__).resolve().parent.parent


def load_paragraphs(bench: Path, limit: int) -> list[str]:
    out: list[str] = []
    for name in ("xquad.en.json", "xquad.es.json"):
        data = json.loads((bench / "xquad" / name).read_text("utf-8"))
        for article in data["data"]:
            out.extend(p["context"] for p in article["paragraphs"])
        if len(out) >= limit:
            break
    return out[:limit]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def length_report(use: USEEmbedder, texts: list[str]) -> None:
    joined = PARAGRAPH_SEPARATOR.join(texts)
    print("| one text of | seconds |")
    print("|---:|---:|")
    for n in (2_000, 8_000, 32_000, 128_000):
        if n <= len(joined):
            print(f"| {n:,} chars | {timed(lambda n=n: use.embed([joined[:n]])):.3f} |")
    query = use.embed([texts[0][:200]])[0]
    print("| paragraphs in the text | cosine(first 200 chars of paragraph 1, text) |")
    print("|---:|---:|")
    for k in (1, 2, 4, 8, 16):
        if k <= len(texts):
            cosine = float(query @ use.embed([PARAGRAPH_SEPARATOR.join(texts[:k])])[0])
            print(f"| {k} | {cosine:.3f} |")


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-data", type=Path, default=REPO.parent / "shared" / "bench-data")
    parser.add_argument("--paragraphs", type=int, default=500)
    parser.add_argument("--thread-texts", type=int, default=48)
    parser.add_argument("--lengths", action="store_true", help="also measure long inputs")
    args = parser.parse_args(argv)

    texts = load_paragraphs(args.bench_data, args.paragraphs)
    chars = sum(map(len, texts))
    cores = usable_cores()
    print(f"{len(texts)} paragraphs, {chars:,} characters, {cores} usable cores")

    use = USEEmbedder()
    load_s = timed(lambda: use.embed(["warm-up"]))
    rows: list[tuple[str, int, int, float]] = []
    rows.append(("USE direct", len(texts), chars, timed(lambda: use.embed(texts))))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "embeddings.sqlite"
        cold = CachedEmbedder(use, EmbeddingCache(path))
        rows.append(("cache cold", len(texts), chars, timed(lambda: cold.embed(texts))))
        warm = CachedEmbedder(use, EmbeddingCache(path))
        rows.append(("cache warm", len(texts), chars, timed(lambda: warm.embed(texts))))
        assert warm.misses == 0, "the warm pass embedded something"

    subset = texts[: args.thread_texts]
    subset_chars = sum(map(len, subset))
    for threads in (2, 4):
        emb = USEEmbedder(threads=threads)
        emb.embed(["warm-up"])
        rows.append(
            (f"threads={threads}", len(subset), subset_chars, timed(lambda e=emb: e.embed(subset)))
        )

    base = {name: secs for name, _, _, secs in rows}
    print(f"model load + first text: {load_s:.2f} s (excluded below)")
    print("| run | texts | chars | seconds | texts/s | chars/s | speed vs baseline |")
    print("|---|---:|---:|---:|---:|---:|---|")
    baselines = {"cache cold": "USE direct", "cache warm": "cache cold", "threads=4": "threads=2"}
    for name, n, c, secs in rows:
        ref = baselines.get(name)
        ratio = f"{base[ref] / secs:.2f}x {ref}" if ref else "baseline"
        print(
            f"| {name} | {n} | {c:,} | {secs:.3f} | {n / secs:,.1f} | {c / secs:,.0f} | {ratio} |"
        )
    if args.lengths:
        length_report(use, texts)
    result = {
        "use_texts_per_s": len(texts) / base["USE direct"],
        "use_chars_per_s": chars / base["USE direct"],
        "warm_vs_cold": base["cache cold"] / base["cache warm"],
        "threads4_vs_threads2": base["threads=2"] / base["threads=4"],
    }
    print(
        f"cache warm is {result['warm_vs_cold']:.0f}x faster than cold; "
        f"threads=4 runs at {result['threads4_vs_threads2']:.2f}x the speed of threads=2"
    )
    return result


if __name__ == "__main__":
    main()
