"""What one search costs as its query grows, on the SQLite store and on a
PostgreSQL server (the bundled ``pgserver``), per search mode: the numbers
behind :data:`jw_rag.limits.MAX_QUERY_CHARS`.

The store holds the paragraphs of the argument corpora in ../shared/bench-data
(en, es, pt; 745 paragraphs, one chunk each; ``--copies N`` stores them N
times over) embedded with USE. Three kinds of query at each length:
``prose`` (a passage of those texts, as a user pasting one would send),
``words`` (distinct made-up words of 3 to 6 letters, each a BM25 term of its
own) and ``short`` (distinct words of 2 or 3 letters: the most words a query
of that length can hold, many of them common ones, the worst case for BM25).
Each cell is the median of ``--repeat`` runs (k=10) in milliseconds:
``embed`` is the query's embedding alone (no embedding cache), each mode the
store's ranking with the query's vector ready (so a search costs ``embed``
plus its mode's column). Queries longer than the limit are ranked through
the backend directly, the check left out, so the table shows what the limit
spares.

    uv run --frozen python benchmarks/query_length.py --copies 10
    uv run --frozen python benchmarks/query_length.py --lengths 2000 8000 --stores sqlite
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from jw_rag.embed.use import USEEmbedder
from jw_rag.model import Chunk
from jw_rag.store import SQLiteStore, Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from store_scale import _bundled_server, _pg_database  # noqa: E402  (the sibling module)

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "bench-data"
MODES = ("bm25", "dense", "hybrid")
KINDS = ("prose", "words", "short")


def paragraphs() -> list[tuple[str, str, str]]:
    """``(source, language, paragraph)`` of every corpus file of the argument sets."""
    out = []
    for folder in ("argument", "argument-long"):
        for path in sorted((DATA / folder / "corpus").glob("*/*.md")):
            lang = path.parent.name
            for para in path.read_text(encoding="utf-8").split("\n\n"):
                if len(para.strip()) > 40:
                    out.append((path.stem, lang, para.strip()))
    if not out:
        raise SystemExit(f"no corpus under {DATA}: this benchmark reads the shared bench data")
    return out


def chunks(paras: Sequence[tuple[str, str, str]]) -> dict[str, list[Chunk]]:
    by_source: dict[str, list[Chunk]] = {}
    for source, lang, text in paras:
        own = by_source.setdefault(source, [])
        own.append(Chunk(f"{source}:{len(own)}", text, source, {"language": lang}))
    return by_source


def prose(paras: Sequence[tuple[str, str, str]], chars: int) -> str:
    text = " ".join(p for _, lang, p in paras if lang == "en")
    while len(text) < chars:
        text += " " + text
    return text[:chars]


def words(chars: int, shortest: int = 3, longest: int = 6, seed: int = 1) -> str:
    """Distinct made-up words of ``shortest`` to ``longest`` letters, ``chars`` in all."""
    rng = random.Random(seed)
    out: dict[str, None] = {}
    size = 0
    while size < chars:
        w = "".join(
            rng.choice(string.ascii_lowercase) for _ in range(rng.randint(shortest, longest))
        )
        if w not in out:
            out[w] = None
            size += len(w) + 1
    return " ".join(out)[:chars]


def make(kind: str, paras: Sequence[tuple[str, str, str]], chars: int) -> str:
    if kind == "prose":
        return prose(paras, chars)
    return words(chars) if kind == "words" else words(chars, 2, 3)


class Remembered:
    """The embedder, its vectors of chunk texts kept: the second store is
    loaded without embedding the corpus again (queries are embedded each time)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.known: dict[str, Any] = {}

    def embed(self, texts: Sequence[str]) -> Any:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known.update(zip(missing, self.inner.embed(missing), strict=True))
        return np.stack([self.known[t] for t in texts])

    def embed_queries(self, texts: Sequence[str]) -> Any:
        return self.inner.embed(texts)


def unchecked(store: Any) -> Callable[[str, str], Any]:
    """A search of ``store`` without the query length check (the backend's own
    ranking, as the store ran it before the limit)."""

    def run(query: str, mode: str) -> Any:
        f = store._filter(None)
        qv = None if mode == "bm25" else store._query_vector(query)
        with store._reading() as conn:
            return store._rank(conn, query, qv, 10, mode, f)

    return run


def median_ms(run: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def measure(store: Store, name: str, args: argparse.Namespace, paras: list) -> list[dict]:
    run = unchecked(store)
    inner = store.embedder.inner  # type: ignore[attr-defined]
    rows = []
    for kind in args.kinds:
        for n in args.lengths:
            query = make(kind, paras, n)
            row: dict[str, Any] = {"store": name, "kind": kind, "chars": n}
            row["embed"] = median_ms(lambda q=query: inner.embed([q]), args.repeat)
            store._query_vector(query)  # type: ignore[attr-defined]  # kept: modes time the store
            for mode in MODES:
                row[mode] = median_ms(lambda q=query, m=mode: run(q, m), args.repeat)
            rows.append(row)
            print(
                f"{name:8} {kind:5} {n:>7,} chars  "
                + "  ".join(f"{m} {row[m]:8.1f}" for m in ("embed", *MODES))
                + " ms",
                flush=True,
            )
    return rows


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--lengths", type=int, nargs="+", default=[250, 1000, 2000, 4000, 8000, 16000, 32000]
    )
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--stores", nargs="+", default=["sqlite", "postgres"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--paragraphs", type=int, help="store only the first N paragraphs")
    parser.add_argument(
        "--copies", type=int, default=1, help="store the corpus this many times (ids apart)"
    )
    args = parser.parse_args(argv)
    paras = paragraphs()[: args.paragraphs]
    sources = chunks(paras)
    if args.copies > 1:
        sources = {
            f"{s}-{i}": [Chunk(f"{c.id}-{i}", c.text, f"{s}-{i}", c.metadata) for c in cs]
            for i in range(args.copies)
            for s, cs in sources.items()
        }
    embedder = Remembered(USEEmbedder())  # no embedding cache: each query is embedded
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="jw-query-length-") as tmp:
        for name in args.stores:
            stop: Callable[[], None] = lambda: None  # noqa: E731
            if name == "sqlite":
                store: Store = SQLiteStore(Path(tmp) / "q.sqlite", embedder)
            else:
                from jw_rag.store.postgres import PostgresStore

                admin, stop = _bundled_server("pgserver", Path(tmp) / "pg", False)
                store = PostgresStore(_pg_database(admin, "jw_query_length", True), embedder)
            try:
                for source, cs in sources.items():
                    store.replace_source(source, cs)
                rows += measure(store, name, args, paras)
            finally:
                store.close()
                stop()
    return rows


if __name__ == "__main__":
    main()
