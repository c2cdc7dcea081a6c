"""Store scale benchmark: ingest and query throughput of SQLiteStore and
PostgresStore at large sizes, HNSW recall@10 against exact search, and p50/p95
query latency per search mode, and the latency of ``stats()`` (median of
five calls).

Chunks are short random texts over a synthetic vocabulary with synthetic unit
vectors (``--vectors``: topic clusters by default, or structureless random
ones; looked up by text, so no model runs); they are ingested 1,000 per
source through ``replace_source``, as an ingest would. PostgreSQL is the
server at ``--dsn``, or one started from the ``pgserver`` wheel in a
temporary folder. ``postgres`` maintains the HNSW index on every insert;
``postgres-bulk`` loads inside ``PostgresStore.deferred_index()`` and builds
the index once (its ingest rate includes the build).

    uv run --frozen python benchmarks/store_scale.py --sizes 100000 300000
    uv run --frozen python benchmarks/store_scale.py --sizes 1000000 --stores sqlite postgres-bulk
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from jw_rag.model import Chunk
from jw_rag.store import SQLiteStore, Store

__all__ = ["main"]

_PER_SOURCE = 1000
_WORDS_PER_TEXT = 12
_PER_TOPIC = 100


class LookupEmbedder:
    """Returns a prepared unit vector for each known text."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.model_id = f"random-{dim}"
        self.rows: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.rows[t] for t in texts]).astype(np.float32)


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    m = rng.standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _vectors(rng: np.random.Generator, n: int, dim: int, kind: str) -> np.ndarray:
    """``random``: independent unit vectors (no structure at all: the hardest
    case for HNSW, unlike any embedding). ``clustered``: topics of
    ``_PER_TOPIC`` chunks around a centre (same-topic cosine about 0.5, other
    topics about 0), the shape sentence embeddings of a library have."""
    if kind == "random":
        return _unit(rng, n, dim)
    centres = _unit(rng, -(-n // _PER_TOPIC), dim)
    m = centres[np.arange(n) // _PER_TOPIC] + _unit(rng, n, dim)
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def _query_vectors(
    rng: np.random.Generator, vectors: np.ndarray, count: int, kind: str
) -> np.ndarray:
    """``random``: unit vectors; ``clustered``: each a perturbed stored chunk
    (cosine about 0.8 to it), as a question about one passage is."""
    if kind == "random":
        return _unit(rng, count, vectors.shape[1])
    m = vectors[rng.integers(0, len(vectors), size=count)] + 0.75 * _unit(
        rng, count, vectors.shape[1]
    )
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def _meta(i: int, windows: bool) -> dict[str, Any]:
    """Row ``i``'s metadata; with ``windows`` every second row is a window unit
    over the row before it (the default pipeline stores about one per chunk)."""
    meta: dict[str, Any] = {"chunker": "paragraph", "language": "en", "pages": [1 + i % 300]}
    if windows and i % 2:
        meta.update(chunker="window", window=[f"s{i // _PER_SOURCE}:{i - 1}"])
    return meta


def _corpus(
    n: int, dim: int, seed: int, kind: str = "clustered", windows: bool = False
) -> tuple[list[Chunk], np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(20_000)]
    picks = rng.integers(0, len(vocab), size=(n, _WORDS_PER_TEXT))
    texts = [f"c{i} " + " ".join(vocab[j] for j in row) for i, row in enumerate(picks)]
    chunks = [
        Chunk(
            id=f"s{i // _PER_SOURCE}:{i}",
            text=t,
            source_id=f"s{i // _PER_SOURCE}",
            metadata=_meta(i, windows),
        )
        for i, t in enumerate(texts)
    ]
    return chunks, _vectors(rng, n, dim, kind), vocab


def _ingest(store: Store, chunks: list[Chunk], *, bulk: bool = False, memory: str = "2GB") -> float:
    """Seconds to ingest ``chunks``; ``bulk`` (PostgreSQL) defers the HNSW
    index and counts its one build in the time."""
    start = time.perf_counter()
    deferred = store.deferred_index(memory=memory) if bulk else nullcontext()  # type: ignore[attr-defined]
    with deferred:
        for first in range(0, len(chunks), _PER_SOURCE):
            batch = chunks[first : first + _PER_SOURCE]
            store.replace_source(batch[0].source_id, batch, content_hash="v1")
    return time.perf_counter() - start


def _latencies(run: Callable[[str], Any], queries: list[str]) -> tuple[float, float, list[Any]]:
    times, results = [], []
    for q in queries:
        start = time.perf_counter()
        results.append(run(q))
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return statistics.median(times), p95, results


def _measure(
    name: str,
    store: Store,
    n: int,
    dim: int,
    queries: int,
    seed: int,
    memory: str = "2GB",
    kind: str = "clustered",
    windows: bool = False,
) -> dict[str, float | str | int]:
    embedder: LookupEmbedder = store.embedder  # type: ignore[attr-defined]
    chunks, vectors, vocab = _corpus(n, dim, seed, kind, windows)
    embedder.rows.update(zip((c.text for c in chunks), vectors, strict=True))
    build = _ingest(store, chunks, bulk=name == "postgres-bulk", memory=memory)
    rng = np.random.default_rng(seed + 1)
    qvecs = _query_vectors(rng, vectors, queries, kind)
    dense_q = [f"query {i}" for i in range(queries)]
    embedder.rows.update(zip(dense_q, qvecs, strict=True))
    text_q = [" ".join(rng.choice(vocab, size=3)) for _ in range(queries)]
    embedder.rows.update(zip(text_q, _unit(rng, queries, dim), strict=True))
    out: dict[str, float | str | int] = {"store": name, "n": n, "ingest_cps": n / build}
    store.search(dense_q[0], k=10)  # warm caches (SQLite loads its vector matrix here)
    p50, p95, hits = _latencies(lambda q: store.search(q, k=10), dense_q)
    out |= {"dense_p50_ms": p50, "dense_p95_ms": p95}
    exact = np.argsort(-(qvecs @ vectors.T), axis=1)[:, :10]
    found = [{int(h.chunk.id.split(":")[1]) for h in hs} for hs in hits]
    out["recall10"] = float(
        np.mean([len(f & set(e.tolist())) / 10 for f, e in zip(found, exact, strict=True)])
    )
    for mode in ("bm25", "hybrid"):
        p50, p95, _ = _latencies(lambda q, m=mode: store.search(q, k=10, mode=m), text_q)
        out |= {f"{mode}_p50_ms": p50, f"{mode}_p95_ms": p95}
    p50, _, _ = _latencies(
        lambda q: store.search(q, k=10, filters={"source_id": "s0"}),
        dense_q[: max(1, queries // 4)],
    )
    out["filtered_p50_ms"] = p50
    out["size_mb"] = store.stats()["size_bytes"] / 1e6
    out["stats_ms"], _, _ = _latencies(lambda _: store.stats(), ["stats"] * 5)
    out["queries_per_s"] = 1000 / float(out["dense_p50_ms"])
    return out


def _postgres_dsn(dsn: str | None, workdir: Path) -> tuple[str, Callable[[], None]]:
    if dsn:
        return dsn, lambda: None
    import pgserver  # the dev dependency; a real deployment passes --dsn

    base = workdir / "pg"
    base.mkdir()
    workdir.chmod(0o755)
    server = pgserver.get_server(base / "data", cleanup_mode="delete")
    return server.get_uri(), server.cleanup


def _fresh_pg_database(admin_dsn: str, name: str) -> str:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    parts = conninfo_to_dict(admin_dsn)
    parts["dbname"] = name
    return make_conninfo(**parts)


def _table(rows: list[dict[str, Any]]) -> str:
    cols = [
        ("store", "store", "{}"),
        ("n", "chunks", "{:,}"),
        ("ingest_cps", "ingest/s", "{:,.0f}"),
        ("recall10", "recall@10", "{:.3f}"),
        ("dense_p50_ms", "dense p50", "{:.1f}"),
        ("dense_p95_ms", "dense p95", "{:.1f}"),
        ("bm25_p50_ms", "bm25 p50", "{:.1f}"),
        ("bm25_p95_ms", "bm25 p95", "{:.1f}"),
        ("hybrid_p50_ms", "hybrid p50", "{:.1f}"),
        ("hybrid_p95_ms", "hybrid p95", "{:.1f}"),
        ("filtered_p50_ms", "filtered p50", "{:.1f}"),
        ("stats_ms", "stats", "{:.1f}"),
        ("size_mb", "size MB", "{:,.0f}"),
    ]
    lines = [" | ".join(h for _, h, _ in cols), " | ".join("---" for _ in cols)]
    lines += [" | ".join(fmt.format(r[key]) for key, _, fmt in cols) for r in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--stores",
        nargs="+",
        default=["sqlite", "postgres"],
        choices=["sqlite", "postgres", "postgres-bulk"],
        help="postgres-bulk ingests inside PostgresStore.deferred_index()",
    )
    parser.add_argument(
        "--index-memory",
        default="2GB",
        help="maintenance_work_mem for postgres-bulk's index build (default 2GB)",
    )
    parser.add_argument(
        "--vectors",
        choices=["clustered", "random"],
        default="clustered",
        help="synthetic vectors: topic clusters (like embeddings) or structureless",
    )
    parser.add_argument(
        "--ef-search", type=int, default=40, help="PostgreSQL's HNSW search breadth"
    )
    parser.add_argument(
        "--dsn", help="an admin DSN of a PostgreSQL with pgvector (default: pgserver)"
    )
    parser.add_argument(
        "--windows",
        action="store_true",
        help="every second row a window unit (stats then counts them apart)",
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="jw-store-scale-") as tmp:
        workdir = Path(tmp)
        stop = lambda: None  # noqa: E731
        admin = None
        if any(name.startswith("postgres") for name in args.stores):
            admin, stop = _postgres_dsn(args.dsn, workdir)
        try:
            for n in args.sizes:
                for name in args.stores:
                    embedder = LookupEmbedder(args.dim)
                    if name == "sqlite":
                        store: Store = SQLiteStore(workdir / f"scale-{n}.sqlite", embedder)
                    else:
                        from jw_rag.store.postgres import PostgresStore

                        assert admin is not None
                        store = PostgresStore(
                            _fresh_pg_database(admin, f"jw_scale_{name.replace('-', '_')}_{n}"),
                            embedder,
                            ef_search=args.ef_search,
                        )
                    with store:
                        row = _measure(
                            name,
                            store,
                            n,
                            args.dim,
                            args.queries,
                            args.seed,
                            args.index_memory,
                            args.vectors,
                            args.windows,
                        )
                    results.append(row)
                    print(_table([row]).splitlines()[-1], flush=True)
        finally:
            stop()
    print()
    print(
        f"{args.vectors} vectors, dim {args.dim}, {args.queries} queries per mode, k=10, "
        f"ef_search {args.ef_search}; "
        "latencies in ms"
    )
    print(_table(results))
    return results


if __name__ == "__main__":
    main()
