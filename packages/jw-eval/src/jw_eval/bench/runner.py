"""Run the chunker benchmark: chunk, index, search and score every variant.

For each variant every document is chunked, the chunks are indexed into a
fresh store in a temporary directory (the embedder's cache makes identical
chunk texts cost one embedding across variants and runs), every question is
searched (top ``k``; restricted to the question's language when the dataset
has several) and scored. :func:`summarise` in :mod:`jw_eval.bench.summary`
turns the per-question rows into the report.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jw_eval.bench.chunking import VariantChunker, chunk_range
from jw_eval.bench.expansion import EXPANSIONS, delivered_chunks
from jw_eval.bench.scoring import score_query
from jw_eval.bench.variants import VariantSpec
from jw_eval.datasets.model import Dataset
from jw_eval.metrics import BUDGETS
from jw_eval.spans import DocRange
from jw_rag.embed.protocol import Embedder
from jw_rag.errors import ConfigError
from jw_rag.model import Chunk
from jw_rag.store.protocol import Store

__all__ = ["BenchConfig", "Progress", "VariantRun", "run_variant", "run_variants"]

StoreFactory = Callable[[Path, Embedder], Store]
#: ``progress(description, total)`` returns an ``advance(n)`` callable.
Progress = Callable[[str, int], Callable[[int], None]]
MODES = ("dense", "bm25", "hybrid")


@dataclass(frozen=True)
class BenchConfig:
    k: int = 10
    retriever: str = "dense"
    expand: str = "none"
    budgets: tuple[int, ...] = BUDGETS

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ConfigError(f"--k must be >= 1, got {self.k}")
        if self.retriever not in MODES:
            raise ConfigError(f"unknown --retriever {self.retriever!r}: use {', '.join(MODES)}")
        if self.expand not in EXPANSIONS:
            raise ConfigError(f"unknown --expand {self.expand!r}: use {', '.join(EXPANSIONS)}")


@dataclass
class VariantRun:
    """One variant's chunks and per-question scores."""

    label: str
    chunk_lengths: list[int]
    chunk_languages: list[str]
    rows: list[dict[str, Any]]
    timings: dict[str, float] = field(default_factory=dict)


def _default_store(path: Path, embedder: Embedder) -> Store:
    from jw_rag.store import SQLiteStore

    return SQLiteStore(path, embedder)


def _no_progress(_desc: str, _total: int) -> Callable[[int], None]:
    return lambda _n: None


def run_variant(
    dataset: Dataset,
    spec: VariantSpec,
    embedder: Embedder,
    config: BenchConfig,
    workdir: Path,
    *,
    store_factory: StoreFactory = _default_store,
    progress: Progress = _no_progress,
) -> VariantRun:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    chunker = VariantChunker(spec, embedder)
    by_doc = {}
    parents_of: dict[str, list[Chunk]] = {}
    advance = progress(f"{spec.label}: chunk", len(dataset.documents))
    for doc_id, doc in dataset.documents.items():
        by_doc[doc_id], parents_of[doc_id] = chunker.chunk_with_parents(doc)
        advance(1)
    ranges = {c.id: chunk_range(dataset.documents[d], c) for d, cs in by_doc.items() for c in cs}
    timings["chunk"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    safe = "".join(ch if ch.isalnum() else "_" for ch in spec.label)
    store = store_factory(workdir / f"{safe}.sqlite", embedder)
    advance = progress(f"{spec.label}: embed+index", len(by_doc))
    for doc_id, chunks in by_doc.items():
        parents = parents_of[doc_id]
        if parents:
            store.replace_source(doc_id, chunks, parents=parents)  # type: ignore[call-arg]
        else:
            store.replace_source(doc_id, chunks)
        advance(1)
    timings["embed_index"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    multilingual = len({d.language for d in dataset.documents.values()}) > 1
    expand = spec.expand or config.expand
    results = []
    advance = progress(f"{spec.label}: search", len(dataset.queries))
    for q in dataset.queries:
        filters = {"language": q.language} if multilingual and q.language else None
        hits = store.search(q.query, k=config.k, mode=config.retriever, filters=filters)  # type: ignore[arg-type]
        results.append((q, hits, delivered_chunks(store, hits, expand, q.query)))
        advance(1)
    timings["search"] = time.perf_counter() - t0
    close = getattr(store, "close", None)
    if close is not None:
        close()

    def range_of(chunk: Chunk) -> DocRange | None:
        # Chunks not indexed by this run (e.g. parents from expansion) are
        # mapped through their own span when they carry one.
        if chunk.id not in ranges:
            doc = dataset.documents.get(chunk.source_id)
            if doc is None or "span" not in chunk.metadata:
                return None
            ranges[chunk.id] = chunk_range(doc, chunk)
        return ranges[chunk.id]

    t0 = time.perf_counter()
    rows = []
    for q, hits, delivered in results:
        ranked = [ranges[h.chunk.id] for h in hits]
        got = [[r for c in rank if (r := range_of(c)) is not None] for rank in delivered]
        scores = score_query(ranked, got, q.expected, k=config.k, budgets=config.budgets)
        rows.append(
            {
                "id": q.id,
                "language": q.language or "und",
                "n_spans": len(q.expected),
                "top_ids": [h.chunk.id for h in hits[:3]],
                **scores,
            }
        )
    timings["score"] = time.perf_counter() - t0
    lengths = [len(c.text) for cs in by_doc.values() for c in cs]
    langs = [dataset.documents[d].language or "und" for d, cs in by_doc.items() for _ in cs]
    return VariantRun(spec.label, lengths, langs, rows, timings)


def run_variants(
    dataset: Dataset,
    specs: Sequence[VariantSpec],
    embedder: Embedder,
    config: BenchConfig,
    *,
    store_factory: StoreFactory = _default_store,
    progress: Progress = _no_progress,
) -> list[VariantRun]:
    """Every variant on ``dataset``, each in its own fresh store."""
    with tempfile.TemporaryDirectory(prefix="jw-bench-") as tmp:
        return [
            run_variant(
                dataset,
                s,
                embedder,
                config,
                Path(tmp),
                store_factory=store_factory,
                progress=progress,
            )
            for s in specs
        ]
