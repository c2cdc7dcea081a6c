"""HNSW build parameters and vector storage on real embeddings: ``vector``
against ``halfvec`` (pgvector 0.7+, half the bytes), and ``m`` /
``ef_construction``, each measured as build time, index size, and recall@10
against exact search with p50 latency at several ``hnsw.ef_search``.

Uses the grown real vectors of ``real_vectors.py`` and the real questions as
queries, in a bundled PostgreSQL 18 with pgvector 0.8 (or ``--dsn``).

    uv run --frozen python benchmarks/pg_hnsw_params.py --rows 100000

``--data-dir DIR`` keeps the bundled server's data in ``DIR`` and reuses its
loaded table when it holds ``--rows`` rows, so one load serves several runs;
``--variants vector:16:128 halfvec:16:128`` picks the graphs to build
(``--load-only`` builds none). Each build runs with ``--index-memory`` of
``maintenance_work_mem`` and ``--workers`` parallel maintenance workers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_vectors  # noqa: E402  (the sibling module)
from store_scale import _bundled_server, _pg_database  # noqa: E402

__all__ = ["main"]

K = 10
#: (storage type, m, ef_construction)
VARIANTS = (("vector", 16, 64), ("halfvec", 16, 64), ("vector", 24, 100), ("vector", 16, 128))


def _literal(v: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in v.tolist()) + "]"


def _variant(
    conn: Any, kind: str, m: int, efc: int, queries: np.ndarray, exact: np.ndarray, efs: list[int]
) -> list[dict[str, Any]]:
    ops = f"{kind}_cosine_ops"
    conn.execute("DROP INDEX IF EXISTS t_hnsw")
    column = "embedding" if kind == "vector" else f"(embedding::halfvec({queries.shape[1]}))"
    start = time.perf_counter()
    conn.execute(
        f"CREATE INDEX t_hnsw ON t USING hnsw ({column} {ops}) "
        f"WITH (m = {m}, ef_construction = {efc})"
    )
    build = time.perf_counter() - start
    size = conn.execute("SELECT pg_relation_size('t_hnsw')").fetchone()[0]
    cast = f"::halfvec({queries.shape[1]})" if kind == "halfvec" else "::vector"
    sql = f"SELECT id FROM t ORDER BY {column} <=> %s{cast} LIMIT {K}"
    out = []
    for ef in efs:
        conn.execute(f"SET hnsw.ef_search = {ef}")
        conn.execute(sql, (_literal(queries[0]),)).fetchall()  # warm
        times, found = [], []
        for q in queries:
            t = time.perf_counter()
            rows = conn.execute(sql, (_literal(q),)).fetchall()
            times.append((time.perf_counter() - t) * 1000)
            found.append({int(r[0]) for r in rows})
        recall = np.mean([len(f & set(e.tolist())) / K for f, e in zip(found, exact, strict=True)])
        out.append(
            {
                "storage": kind,
                "m": m,
                "ef_construction": efc,
                "build_s": round(build, 1),
                "index_mb": round(size / 1e6),
                "ef_search": ef,
                "recall10": round(float(recall), 3),
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(float(np.percentile(times, 95)), 2),
            }
        )
        print(json.dumps(out[-1]), flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ef-search", type=int, nargs="+", default=[40, 100, 200])
    parser.add_argument("--cache", type=Path, help="real vectors' cache folder")
    parser.add_argument("--real-limit", type=int)
    parser.add_argument("--index-memory", default="1GB")
    parser.add_argument("--dsn", help="an admin DSN of a PostgreSQL with pgvector 0.7 or later")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--variants", nargs="+", type=_variant_arg, default=list(VARIANTS))
    parser.add_argument("--workers", type=int, default=2, help="parallel maintenance workers")
    parser.add_argument("--data-dir", type=Path, help="keep the bundled server's data here")
    parser.add_argument("--load-only", action="store_true", help="load the table, build nothing")
    args = parser.parse_args(argv)
    if any(not 1 <= e <= 1000 for e in args.ef_search):  # pgvector's range, before any build
        parser.error(f"--ef-search values must be from 1 to 1000 (pgvector), got {args.ef_search}")
    import psycopg

    real = real_vectors.real_set(cache=args.cache, limit=args.real_limit)
    vectors = real_vectors.grow(real, args.rows, args.seed, texts=False).vectors
    rng = np.random.default_rng(args.seed + 1)
    picked = rng.choice(len(real.queries), size=min(args.queries, len(real.queries)), replace=False)
    queries = real.query_vectors[picked]
    exact = np.argsort(-(queries @ vectors.T), axis=1)[:, :K]
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="jw-pg-hnsw-") as tmp:
        admin, stop = args.dsn, (lambda: None)
        if admin is None:
            keep = args.data_dir is not None
            admin, stop = _bundled_server("pixeltable", args.data_dir or Path(tmp) / "pg", keep)
        try:
            dsn = _pg_database(admin, "jw_hnsw_params", args.data_dir is None)
            with psycopg.connect(dsn, autocommit=True) as conn:
                _load(conn, vectors)
                conn.execute(f"SET maintenance_work_mem = '{args.index_memory}'")
                conn.execute(f"SET max_parallel_maintenance_workers = {args.workers}")
                for kind, m, efc in [] if args.load_only else args.variants:
                    results += _variant(conn, kind, m, efc, queries, exact, args.ef_search)
        finally:
            stop()
    return results


def _variant_arg(text: str) -> tuple[str, int, int]:
    kind, _, rest = text.partition(":")
    m, _, efc = rest.partition(":")
    if kind not in ("vector", "halfvec") or not m.isdigit() or not efc.isdigit():
        raise argparse.ArgumentTypeError(
            f"bad variant {text!r}: write storage:m:ef_construction, e.g. vector:16:128"
        )
    return kind, int(m), int(efc)


def _load(conn: Any, vectors: np.ndarray) -> None:
    """Table ``t`` with ``vectors`` (id = row number), loaded by COPY unless it
    already holds exactly these many rows (a kept data folder)."""
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    if conn.execute("SELECT to_regclass('t') IS NOT NULL").fetchone()[0]:
        if conn.execute("SELECT count(*) FROM t").fetchone()[0] == len(vectors):
            print(f"reusing the loaded table t ({len(vectors):,} rows)", file=sys.stderr)
            return
        conn.execute("DROP TABLE t")
    start = time.perf_counter()
    conn.execute(f"CREATE TABLE t (id bigint, embedding vector({vectors.shape[1]}))")
    with conn.cursor() as cur, cur.copy("COPY t (id, embedding) FROM STDIN") as cp:
        for i, v in enumerate(vectors):
            cp.write_row((i, _literal(v)))
    conn.execute("VACUUM ANALYZE t")
    took = time.perf_counter() - start
    print(f"loaded {len(vectors):,} rows in {took:.0f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
