"""SQLite full text with and without the common-word bound, on one store.

For each question, alternating the two ways in one run (so machine noise
falls on both): FTS5's full query (every row holding a question's word
scored) and the store's bounded search (``jw_rag.store._fts_topk``); reports
p50 / p95 latency of each and checks the two rankings agree (ids in order,
the largest score difference). The store is any SQLite store, e.g. one that
``benchmarks/store_scale.py --workdir`` loaded; the questions are the shared
sets' real questions (``benchmarks/real_vectors.py``, cached in ``--cache``),
or ``--questions`` (a JSON list of strings).

    uv run --frozen python benchmarks/fts_bound.py --store /tmp/jw-scale/scale-real-1000000-512-7.sqlite \\
        --cache /tmp/jw-scale/cache --queries 60 --k 10 50
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jw_rag.store._fts_topk import create_vocab, top_bm25
from jw_rag.store._tokens import match_expression, query_terms

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_vectors  # noqa: E402  (the sibling modules)
from store_scale import p95  # noqa: E402

_FULL = (
    "SELECT rowid, -bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? "
    "ORDER BY s DESC, rowid LIMIT ?"
)


def _questions(cache: Path | None, given: Path | None, n: int) -> list[str]:
    if given is not None:
        found = json.loads(given.read_text(encoding="utf-8"))
    else:
        found = real_vectors.real_set(cache=cache).queries
    step = max(1, len(found) // n)
    return [str(q) for q in found[::step][:n]]


def measure(store: Path, questions: Sequence[str], k: int) -> dict[str, Any]:
    """Latencies (ms) of both ways for ``questions`` at ``k``, and their agreement."""
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        if not create_vocab(conn):
            raise SystemExit(f"{store}: cannot read the full-text index's terms")
        full_ms, bound_ms, same, diff, proved = [], [], 0, 0.0, 0
        for q in questions:
            terms = query_terms(q)
            if not terms:
                continue
            start = time.perf_counter()
            full = conn.execute(_FULL, (match_expression(terms), k)).fetchall()
            full_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            bounded = top_bm25(conn, terms, k)
            proved += bounded is not None
            if bounded is None:  # as the store does: the full query answers
                bounded = conn.execute(_FULL, (match_expression(terms), k)).fetchall()
            bound_ms.append((time.perf_counter() - start) * 1000)
            same += [r for r, _ in full] == [r for r, _ in bounded]
            diff = max([diff, *(abs(a[1] - b[1]) for a, b in zip(full, bounded, strict=False))])
    finally:
        conn.close()
    return {
        "k": k,
        "questions": len(full_ms),
        "full_p50_ms": statistics.median(full_ms),
        "full_p95_ms": p95(full_ms),
        "bounded_p50_ms": statistics.median(bound_ms),
        "bounded_p95_ms": p95(bound_ms),
        "total_ratio": sum(full_ms) / sum(bound_ms),
        "bound_proved": proved,
        "identical": same,
        "max_score_diff": diff,
    }


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True, help="a SQLite store file")
    parser.add_argument(
        "--cache", type=Path, help="the real-vector cache folder (default: real_vectors.py's)"
    )
    parser.add_argument("--questions", type=Path, help="a JSON list of questions instead")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--k", type=int, nargs="+", default=[10, 50])
    args = parser.parse_args(argv)
    if not args.store.is_file():
        parser.error(f"no store at {args.store}")
    if args.queries < 1 or any(k < 1 for k in args.k):
        parser.error("--queries and --k must be 1 or more")
    questions = _questions(args.cache, args.questions, args.queries)
    rows = [measure(args.store, questions, k) for k in args.k]
    print(
        "k | questions | full p50 / p95 ms | bounded p50 / p95 ms | total ratio | proved | identical"
    )
    print("---|---:|---|---|---:|---:|---:")
    for r in rows:
        print(
            f"{r['k']} | {r['questions']} | {r['full_p50_ms']:.1f} / {r['full_p95_ms']:.1f} | "
            f"{r['bounded_p50_ms']:.1f} / {r['bounded_p95_ms']:.1f} | {r['total_ratio']:.2f} | "
            f"{r['bound_proved']} | {r['identical']} (max score diff {r['max_score_diff']:.1e})"
        )
    return rows


if __name__ == "__main__":
    main()
