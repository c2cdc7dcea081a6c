"""What one PostgreSQL node does when the library is split: the per-node
figures behind docs/scale.md.

1. Partitions: the same real-embedding vectors (``real_vectors.grow``,
   languages from the shared sets) in one table and in a table partitioned by
   language (``PARTITION BY LIST``) with an HNSW index per partition. Reports
   recall@10 against exact search and p50/p95 latency for a search inside one
   partition (pruned to its index) and for a search over all of them (one
   index scan per partition, merged), at the same ``hnsw.ef_search``.
2. Writers: N processes ingesting different sources into one PostgresStore
   (HNSW maintained on every insert, as steady-state ingest does) at once;
   reports the aggregate chunks/s per N.

The server is a bundled one (``--server``) or ``--dsn``.

    uv run --frozen python benchmarks/pg_partitions.py --rows 150000 --writers 1 2 4
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_vectors  # noqa: E402  (the sibling module)
from store_scale import _bundled_server, _pg_database  # noqa: E402

__all__ = ["main"]

K = 10
_LANGS = ("en", "es", "pt")


def _literal(v: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in v.tolist()) + "]"


def _load(conn: Any, table: str, langs: list[str], vectors: np.ndarray) -> None:
    with conn.cursor() as cur, cur.copy(f"COPY {table} (id, language, embedding) FROM STDIN") as cp:
        for i, (lang, v) in enumerate(zip(langs, vectors, strict=True)):
            cp.write_row((i, lang, _literal(v)))


def _tables(dsn: str, langs: list[str], vectors: np.ndarray, memory: str) -> dict[str, float]:
    """Load both layouts and build their indexes; seconds per step."""
    import psycopg

    dim = vectors.shape[1]
    took: dict[str, float] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute(f"SET maintenance_work_mem = '{memory}'")
        conn.execute(f"CREATE TABLE one (id bigint, language text, embedding vector({dim}))")
        conn.execute(
            f"CREATE TABLE parts (id bigint, language text, embedding vector({dim})) "
            "PARTITION BY LIST (language)"
        )
        for lang in _LANGS:
            conn.execute(f"CREATE TABLE parts_{lang} PARTITION OF parts FOR VALUES IN ('{lang}')")
        for table in ("one", "parts"):
            start = time.perf_counter()
            _load(conn, table, langs, vectors)
            took[f"load_{table}_s"] = time.perf_counter() - start
        start = time.perf_counter()
        conn.execute("CREATE INDEX ON one USING hnsw (embedding vector_cosine_ops)")
        took["index_one_s"] = time.perf_counter() - start
        for lang in _LANGS:  # an index on the parent creates one per partition
            start = time.perf_counter()
            conn.execute(f"CREATE INDEX ON parts_{lang} USING hnsw (embedding vector_cosine_ops)")
            took[f"index_{lang}_s"] = time.perf_counter() - start
        conn.execute("ANALYZE one")
        conn.execute("ANALYZE parts")
    return took


def _search(
    dsn: str, table: str, language: str | None, queries: np.ndarray, ef: int
) -> tuple[list[list[int]], float, float]:
    import psycopg

    where = "" if language is None else "WHERE language = %(lang)s "
    sql = f"SELECT id FROM {table} {where}ORDER BY embedding <=> %(q)s::vector LIMIT {K}"
    times, found = [], []
    with psycopg.connect(dsn) as conn:
        conn.execute(f"SET hnsw.ef_search = {ef}")
        conn.execute(sql, {"q": _literal(queries[0]), "lang": language}).fetchall()  # warm
        for q in queries:
            start = time.perf_counter()
            rows = conn.execute(sql, {"q": _literal(q), "lang": language}).fetchall()
            times.append((time.perf_counter() - start) * 1000)
            found.append([int(r[0]) for r in rows])
    times.sort()
    return found, statistics.median(times), times[round(0.95 * (len(times) - 1))]


def _recall(
    found: list[list[int]], queries: np.ndarray, vectors: np.ndarray, rows: np.ndarray
) -> float:
    exact = rows[np.argsort(-(queries @ vectors[rows].T), axis=1)[:, :K]]
    return float(
        np.mean([len(set(f) & set(e.tolist())) / K for f, e in zip(found, exact, strict=True)])
    )


def _writer(dsn: str, vectors_file: str, first: int, count: int, start_at: float) -> None:
    """One ingest process (``--writer``): sources of 1,000 chunks from row
    ``first`` on; prints when it began and ended (epoch seconds) as JSON."""
    from store_scale import LookupEmbedder

    from jw_rag.model import Chunk
    from jw_rag.store.postgres import PostgresStore

    vectors = np.load(vectors_file, mmap_mode="r")
    embedder = LookupEmbedder(vectors.shape[1])
    chunks = []
    for i in range(first, first + count):
        text = f"chunk {i} of source {i // 1000}"
        embedder.rows[text] = np.asarray(vectors[i])
        chunks.append(Chunk(id=f"w{i}", text=text, source_id=f"src{i // 1000}", metadata={}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an old pgvector's warning is the parent's to show
        store = PostgresStore(dsn, embedder, pool_size=1)
    with store:
        while time.time() < start_at:
            time.sleep(0.01)
        begin = time.time()
        for s in range(0, count, 1000):
            batch = chunks[s : s + 1000]
            store.replace_source(batch[0].source_id, batch)
        print(json.dumps([begin, time.time()]))


def _writers(
    admin: str, vectors: np.ndarray, n_writers: int, per_writer: int, workdir: Path
) -> float:
    """Aggregate chunks/s of ``n_writers`` processes (this script with
    ``--writer``) into one fresh store whose HNSW index exists from the first
    write on."""
    from store_scale import LookupEmbedder

    from jw_rag.model import Chunk
    from jw_rag.store.postgres import PostgresStore

    dsn = _pg_database(admin, f"jw_writers_{n_writers}", True)
    seed = LookupEmbedder(vectors.shape[1])
    seed.rows["seed"] = vectors[-1]
    with PostgresStore(dsn, seed) as store:  # fixes the dimension and creates the index
        store.add([Chunk(id="seed", text="seed", source_id="seed", metadata={})])
    path = workdir / "writer-vectors.npy"
    np.save(path, vectors[: n_writers * per_writer])
    start_at = time.time() + 10  # every process connected before the clock starts
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--writer", dsn, str(path)]
            + [str(w * per_writer), str(per_writer), str(start_at)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for w in range(n_writers)
    ]
    spans = []
    for p in procs:
        out, _ = p.communicate(timeout=3600)
        if p.returncode != 0:
            raise RuntimeError(f"an ingest process failed (exit {p.returncode})")
        spans.append(json.loads(out.strip().splitlines()[-1]))
    return n_writers * per_writer / (max(e for _, e in spans) - min(b for b, _ in spans))


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=150_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ef-search", type=int, nargs="+", default=[40, 200])
    parser.add_argument("--writers", type=int, nargs="*", default=[1, 2, 4])
    parser.add_argument("--per-writer", type=int, default=4000)
    parser.add_argument("--index-memory", default="1GB")
    parser.add_argument("--cache", type=Path, help="real vectors' cache folder")
    parser.add_argument("--real-limit", type=int)
    parser.add_argument("--server", choices=["pgserver", "pixeltable"], default="pixeltable")
    parser.add_argument("--dsn", help="an admin DSN of a PostgreSQL with pgvector")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--writer", nargs=5, help=argparse.SUPPRESS)  # one ingest process
    args = parser.parse_args(argv)
    if args.writer:
        dsn, path, first, count, start_at = args.writer
        _writer(dsn, path, int(first), int(count), float(start_at))
        return {}
    real = real_vectors.real_set(cache=args.cache, limit=args.real_limit)
    grown = real_vectors.grow(real, args.rows, args.seed, texts=False)
    langs = [lang if lang in _LANGS else "en" for lang in grown.languages]
    vectors = grown.vectors
    rng = np.random.default_rng(args.seed + 1)
    queries = real.query_vectors[
        rng.choice(len(real.queries), size=min(args.queries, len(real.queries)), replace=False)
    ]
    report: dict[str, Any] = {
        "rows": args.rows,
        "per_language": {x: langs.count(x) for x in _LANGS},
    }
    with tempfile.TemporaryDirectory(prefix="jw-pg-parts-") as tmp:
        workdir = Path(tmp)
        admin, stop = args.dsn, (lambda: None)
        if admin is None:
            admin, stop = _bundled_server(args.server, workdir / "pg", False)
        try:
            dsn = _pg_database(admin, "jw_partitions", True)
            report |= _tables(dsn, langs, vectors, args.index_memory)
            lang_rows = {x: np.flatnonzero(np.array(langs) == x) for x in _LANGS}
            everything = np.arange(len(vectors))
            searches = []
            for ef in args.ef_search:
                for table, language in [("one", None), ("parts", None)] + [
                    ("parts", x) for x in _LANGS
                ]:
                    rows = everything if language is None else lang_rows[language]
                    found, p50, p95 = _search(dsn, table, language, queries, ef)
                    searches.append(
                        {
                            "ef_search": ef,
                            "table": table,
                            "partition": language or "all",
                            "rows": len(rows),
                            "recall10": _recall(found, queries, vectors, rows),
                            "p50_ms": p50,
                            "p95_ms": p95,
                        }
                    )
                    print(json.dumps(searches[-1]), flush=True)
            report["searches"] = searches
            report["writers"] = {
                n: _writers(admin, vectors, n, args.per_writer, workdir) for n in args.writers
            }
            print(json.dumps({"writers_chunks_per_s": report["writers"]}), flush=True)
        finally:
            stop()
    return report


if __name__ == "__main__":
    main()
