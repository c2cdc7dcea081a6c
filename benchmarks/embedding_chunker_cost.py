"""What the embedding chunker sends to its embedder, against re-embedding every window.

    uv run --frozen python benchmarks/embedding_chunker_cost.py [--bench-data ../shared/bench-data]
        [--window 3] [--embedder use] [--max-docs N]

For each corpus of the shared benchmark data (XQuAD en/es, FaQuAD pt, Chroma en),
counts per MB of corpus text: the characters and texts our chunker embeds (each
sentence once, in calls of up to 4,096 sentences) and what a sliding-window chunker that
embeds every window of ``--window`` sentences as its own text would send (the
sum of the window texts' lengths). Then runs our chunker end to end with the
real embedder (USE with threads = usable cores, no embedding cache) and reports
MB/s: chonkie's SemanticChunker was measured at about 0.01 MB/s on this data
(PEERS.md), the anchor to compare with.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from chunk_speed import load_documents  # noqa: E402

from jw_rag.chunkers import EmbeddingChunker  # noqa: E402
from jw_rag.chunkers.embedding_chunker import sentence_units  # noqa: E402
from jw_rag.embed import get_embedder  # noqa: E402
from jw_rag.embed.protocol import Embedder  # noqa: E402
from jw_rag.model import as_paragraphs  # noqa: E402

CHONKIE_SEMANTIC_MB_S = 0.01


def corpus_of(index: int, lang: str, n_squad: dict[str, int]) -> str:
    if lang == "en" and index < n_squad["en"]:
        return "xquad-en"
    if lang == "es":
        return "xquad-es"
    if lang == "pt":
        return "faquad-pt"
    return "chroma-en"


def window_cost(lengths: list[int], window: int) -> tuple[int, int]:
    """(texts, characters) a chunker embedding each window of ``window`` sentences sends."""
    n = len(lengths)
    if n <= 1:
        return (n, sum(lengths))
    w = min(window, n)
    total = sum(lengths[:w])
    chars = total + (w - 1)  # sentences joined by one space
    for i in range(w, n):
        total += lengths[i] - lengths[i - w]
        chars += total + (w - 1)
    return (n - w + 1, chars)


def measure(
    docs: list[tuple[str, list[str]]], embedder: Embedder, window: int
) -> list[dict[str, float | str]]:
    """One row per corpus plus a total: sizes, costs and our end-to-end speed."""
    n_squad = {"en": 48}
    rows: dict[str, dict[str, float]] = {}
    chunker = EmbeddingChunker(embedder=embedder, window=window)
    for i, (lang, paras) in enumerate(docs):
        name = corpus_of(i, lang, n_squad)
        row = rows.setdefault(
            name,
            {
                "mb": 0.0,
                "seconds": 0.0,
                "ours_chars": 0,
                "ours_texts": 0,
                "ours_calls": 0,
                "win_chars": 0,
                "win_texts": 0,
                "chunks": 0,
            },
        )
        row["mb"] += sum(len(p.encode("utf-8")) for p in paras) / 1e6
        units = sentence_units(as_paragraphs(paras), chunker.max_chars, lang)
        texts, chars = window_cost([b - a for _, a, b in units], window)
        row["win_chars"] += chars
        row["win_texts"] += texts
        before = (chunker.embed_calls, chunker.texts_embedded, chunker.chars_embedded)
        t0 = time.perf_counter()
        row["chunks"] += len(chunker.chunk(paras, f"d{i}", metadata={"language": lang}))
        row["seconds"] += time.perf_counter() - t0
        row["ours_calls"] += chunker.embed_calls - before[0]
        row["ours_texts"] += chunker.texts_embedded - before[1]
        row["ours_chars"] += chunker.chars_embedded - before[2]
    total = {k: sum(r[k] for r in rows.values()) for k in next(iter(rows.values()))}
    out: list[dict[str, float | str]] = []
    for name, r in [*rows.items(), ("total", total)]:
        out.append({"corpus": name, **r})
    return out


def print_table(rows: list[dict[str, float | str]], window: int) -> None:
    print(
        f"| corpus | MB | chunks | our calls | our texts | our chars/MB | "
        f"window-{window} texts | window-{window} chars/MB | chars ratio | our MB/s | "
        f"x chonkie semantic |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        mb = float(r["mb"])
        speed = mb / float(r["seconds"]) if float(r["seconds"]) > 0 else float("nan")
        print(
            f"| {r['corpus']} | {mb:.2f} | {int(r['chunks'])} | {int(r['ours_calls'])} | "
            f"{int(r['ours_texts'])} | {float(r['ours_chars']) / mb:,.0f} | "
            f"{int(r['win_texts'])} | {float(r['win_chars']) / mb:,.0f} | "
            f"{float(r['win_chars']) / max(1.0, float(r['ours_chars'])):.2f} | {speed:.3f} | "
            f"{speed / CHONKIE_SEMANTIC_MB_S:.0f} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-data", type=Path, default=HERE.parent.parent / "shared" / "bench-data")
    ap.add_argument("--window", type=int, default=3)
    ap.add_argument("--embedder", default="use")
    ap.add_argument("--max-docs", type=int, default=0, help="only the first N documents (0: all)")
    args = ap.parse_args()
    if not args.bench_data.is_dir():
        raise SystemExit(f"no benchmark data at {args.bench_data}: pass --bench-data PATH")
    docs = load_documents(args.bench_data)
    if args.max_docs:
        docs = docs[: args.max_docs]
    embedder = get_embedder(args.embedder, cache=False)
    embedder.embed(["warm up the model"])  # loading time is not chunking time
    rows = measure(docs, embedder, args.window)
    print(f"{len(docs)} documents, embedder {embedder.model_id}, window {args.window}\n")
    print_table(rows, args.window)


if __name__ == "__main__":
    main()
