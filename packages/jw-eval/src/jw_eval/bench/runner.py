"""Run the chunker benchmark: chunk, index, search and score every variant.

For each variant every document is chunked, the chunks (and, for our
chunkers, their window units) are indexed into a fresh store in a temporary
directory (the embedder's cache makes identical texts cost one embedding
across variants and runs), every question goes through
the product's retrieval steps (the store's ranking, then delivery of ``k`` hits
by :func:`jw_rag.retrieve.expand_hits`; restricted to the question's language
when the dataset has several) and is scored on the store's top ``k`` and on
what the delivered hits brought. :func:`summarise` in :mod:`jw_eval.bench.summary`
turns the per-question rows into the report.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jw_eval.bench.chunking import VariantChunker, chunk_range
from jw_eval.bench.expansion import deliver, paid_order
from jw_eval.bench.measures import Measure, measures
from jw_eval.bench.scoring import score_query
from jw_eval.bench.variants import VariantSpec
from jw_eval.datasets.model import BenchDocument, BenchQuery, Dataset
from jw_eval.metrics import BUDGETS
from jw_eval.spans import DocRange
from jw_rag.defaults import (
    DEFAULT_EXPANSION,
    DEFAULT_PIPELINE,
    DEFAULT_SEARCH_MODE,
    DEFAULT_WINDOW_CHARS,
    EXPANSIONS,
    SEARCH_MODES,
)
from jw_rag.embed.protocol import Embedder
from jw_rag.errors import ConfigError, shown_value
from jw_rag.model import Chunk
from jw_rag.renames import warn_renamed
from jw_rag.retrieve import MAX_K, search_depth
from jw_rag.store import SourceWrite, check_search, replace_sources
from jw_rag.store.protocol import SearchHit, Store
from jw_rag.units import DEFAULT_UNITS, UnitRules
from jw_rag.windows import MAX_WINDOW_CHARS, is_window, is_window_size, with_window_units

__all__ = [
    "BenchConfig",
    "Progress",
    "VariantRun",
    "check_queries",
    "run_variant",
    "run_variants",
]

StoreFactory = Callable[[Path, Embedder], Store]
#: ``progress(description, total)`` returns an ``advance(n)`` callable.
Progress = Callable[[str, int], Callable[[int], None]]


@dataclass(frozen=True)
class BenchConfig:
    """How every variant is searched and delivered; the defaults are the
    product's (:mod:`jw_rag.defaults`)."""

    k: int = 10
    retriever: str = DEFAULT_SEARCH_MODE
    expand: str = DEFAULT_EXPANSION
    budgets: tuple[int, ...] = BUDGETS
    window_chars: int = DEFAULT_WINDOW_CHARS
    units: UnitRules = DEFAULT_UNITS

    def __post_init__(self) -> None:
        # a value of the wrong type (a str, a float, a bool) is named in one line:
        # compared as a number it raised TypeError, or passed (nan, True, 100.0)
        if isinstance(self.k, bool) or not isinstance(self.k, int):
            raise ConfigError(
                f"k must be a whole number from 1 to {MAX_K}, got {shown_value(self.k)}"
            )
        if self.k < 1:
            raise ConfigError(f"k must be >= 1, got {self.k}")
        if self.k > MAX_K:  # the store would be asked for search_depth(k) hits: say k
            raise ConfigError(f"k must be from 1 to {MAX_K} (as retrieve takes), got {self.k}")
        if self.retriever not in SEARCH_MODES:
            raise ConfigError(
                f"unknown retriever {self.retriever!r}: use {', '.join(SEARCH_MODES)}"
            )
        if self.expand not in EXPANSIONS:
            raise ConfigError(f"unknown expansion {self.expand!r}: use {', '.join(EXPANSIONS)}")
        if not is_window_size(self.window_chars):
            raise ConfigError(
                f"window_chars must be a size in characters from 0 to {MAX_WINDOW_CHARS} "
                f"(0: none), got {shown_value(self.window_chars)}"
            )
        budgets = self.budgets
        if not isinstance(budgets, tuple | list) or not all(
            isinstance(b, int) and not isinstance(b, bool) and b >= 1 for b in budgets
        ):
            raise ConfigError(
                "budgets must be a tuple of whole numbers of characters >= 1, such as "
                f"(2000, 4000), got {shown_value(budgets)}"
            )
        if not isinstance(self.units, UnitRules):
            raise ConfigError(
                f"units must be a jw_rag.units.UnitRules, got {type(self.units).__name__}"
            )

    @property
    def measures(self) -> tuple[Measure, ...]:
        """What every question is scored on (:func:`jw_eval.bench.measures.measures`)."""
        return measures(self.k, self.budgets)

    def expansion(self, spec: VariantSpec) -> str:
        """How ``spec``'s hits are delivered: its own ``+expansion``, else
        ``none`` for a peer and the run's expansion for our chunkers."""
        return spec.expand or ("none" if spec.peer else self.expand)

    def is_shipped_default(self, spec: VariantSpec) -> bool:
        """Whether ``spec`` run with this configuration is the pipeline users
        get (:data:`jw_rag.defaults.DEFAULT_PIPELINE`): its chunker without
        options, its retrieval units and window size, delivery (and reach),
        retriever and ``k`` (the embedder is the run's, whatever it is)."""
        p = DEFAULT_PIPELINE
        units = spec.units if spec.units is not None else self.units
        return (
            not spec.peer
            and spec.name == p.chunker
            and not spec.options
            and spec.reach is None
            and units == p.units
            and self.window_chars_for(spec) == p.units.window_chars
            and self.expansion(spec) == p.expand
            and self.retriever == p.mode
            and self.k == p.k
        )

    def window_chars_for(self, spec: VariantSpec) -> int:
        """Window size for ``spec`` (0 for peers: they index their chunks only)."""
        if spec.peer:
            return 0
        return self.window_chars if spec.window_chars is None else spec.window_chars

    def windows(self, spec: VariantSpec) -> int:
        """Old name of :meth:`window_chars_for`, kept for one release."""
        warn_renamed("BenchConfig", "windows()", "window_chars_for()")
        return self.window_chars_for(spec)


@dataclass
class VariantRun:
    """One variant's chunks and per-question scores."""

    label: str
    chunk_lengths: list[int]
    chunk_languages: list[str]
    rows: list[dict[str, Any]]
    timings: dict[str, float] = field(default_factory=dict)
    n_windows: int = 0


def _default_store(path: Path, embedder: Embedder) -> Store:
    from jw_rag.store import SQLiteStore

    return SQLiteStore(path, embedder)


def _no_progress(_desc: str, _total: int) -> Callable[[int], None]:
    return lambda _n: None


@dataclass
class _Indexed:
    """A variant's chunks per document (with parents and windows) and their ranges."""

    chunks: dict[str, list[Chunk]]
    parents: dict[str, list[Chunk]]
    windows: dict[str, list[Chunk]]
    ranges: dict[str, DocRange]


def _chunk(
    dataset: Dataset, spec: VariantSpec, embedder: Embedder, config: BenchConfig, progress: Progress
) -> _Indexed:
    window_chars = config.window_chars_for(spec)
    chunker = VariantChunker(spec, embedder, config.units)
    out = _Indexed({}, {}, {}, {})
    advance = progress(f"{spec.label}: chunk", len(dataset.documents))
    for doc_id, doc in dataset.documents.items():
        out.chunks[doc_id], out.parents[doc_id] = chunker.chunk_with_parents(doc)
        units = chunker.units
        out.windows[doc_id] = [
            c for c in with_window_units(
                out.chunks[doc_id], doc.paragraphs, max_chars=window_chars,
                pooled=units.pooled_windows and not spec.peer,
                wide_chars=units.wide_window_chars if window_chars and not spec.peer else 0,
            ) if is_window(c)
        ]  # fmt: skip
        for c in (*out.chunks[doc_id], *out.windows[doc_id]):
            out.ranges[c.id] = chunk_range(doc, c)
        advance(1)
    return out


def _index(store: Store, indexed: _Indexed, label: str, progress: Progress) -> None:
    """Each document written as ingestion writes a source (units, windows and
    parents through :func:`jw_rag.store.replace_sources`)."""
    advance = progress(f"{label}: embed+index", len(indexed.chunks))
    for doc_id, chunks in indexed.chunks.items():
        units = _interleaved(chunks, indexed.windows[doc_id])
        replace_sources(store, [SourceWrite(doc_id, units, None, indexed.parents[doc_id])])
        advance(1)


def _interleaved(chunks: list[Chunk], windows: list[Chunk]) -> Iterator[Chunk]:
    """Each window right after its last member, as ingestion writes them."""
    after: dict[str, list[Chunk]] = {}
    for w in windows:
        after.setdefault(w.metadata["window"][-1], []).append(w)
    for c in chunks:
        yield c
        yield from after.pop(c.id, ())
    for rest in after.values():
        yield from rest


def check_queries(dataset: Dataset, config: BenchConfig) -> None:
    """Refuse, before anything is chunked or embedded, a question the store's
    search would refuse (one over :data:`jw_rag.limits.MAX_QUERY_CHARS`),
    naming it: a long benchmark failed only once it came to search."""
    for q in dataset.queries:
        try:
            check_search(q.query, search_depth(config.k), config.retriever)
        except ConfigError as exc:
            raise ConfigError(
                f"question {q.id!r} of the dataset: {exc}; shorten it or leave it out"
            ) from None


def _search(
    store: Store, dataset: Dataset, config: BenchConfig, spec: VariantSpec, progress: Progress
) -> list[tuple[BenchQuery, list[SearchHit], list[SearchHit]]]:
    """Each question through the product's two steps (what
    :func:`jw_rag.retrieve.retrieve` does): the store's ranking, searched
    deep enough for ``k`` deliveries, then delivery of ``k`` hits; no context
    cap (the report's budgets decide what a reader gets). Returns the store's
    top ``k`` (what the rank metrics judge) and the delivered hits."""
    multilingual = len({d.language for d in dataset.documents.values()}) > 1
    expand = config.expansion(spec)
    advance = progress(f"{spec.label}: search", len(dataset.queries))
    out = []
    for q in dataset.queries:
        filters = {"language": q.language} if multilingual and q.language else None
        raw = store.search(
            q.query,
            search_depth(config.k),
            mode=config.retriever,
            filters=filters,  # type: ignore[arg-type]
        )
        delivered = deliver(store, raw, expand, q.query, config.k, reach=spec.reach)
        out.append((q, raw[: config.k], delivered))
        advance(1)
    return out


def _range_of(dataset: Dataset, indexed: _Indexed, chunk: Chunk) -> DocRange | None:
    """A delivered chunk's range; chunks this run did not index (parents from
    expansion) are mapped through their own span when they carry one."""
    if chunk.id not in indexed.ranges:
        doc: BenchDocument | None = dataset.documents.get(chunk.source_id)
        if doc is None or "span" not in chunk.metadata:
            return None
        indexed.ranges[chunk.id] = chunk_range(doc, chunk)
    return indexed.ranges[chunk.id]


def _score(
    dataset: Dataset,
    indexed: _Indexed,
    results: list[tuple[BenchQuery, list[SearchHit], list[SearchHit]]],
    config: BenchConfig,
) -> list[dict[str, Any]]:
    rows = []
    for q, hits, delivered in results:
        ranked = [indexed.ranges[h.chunk.id] for h in hits]
        got = [
            [r for c in group if (r := _range_of(dataset, indexed, c)) is not None]
            for group in paid_order(delivered)
        ]
        scores = score_query(ranked, got, q.expected, config.measures)
        rows.append(
            {
                "id": q.id,
                "language": q.language or "und",
                "n_spans": len(q.expected),
                "top_ids": [h.chunk.id for h in hits[:3]],
                **scores,
            }
        )
    return rows


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
    """Chunk, index, search and score one variant (see the module docstring)."""
    check_queries(dataset, config)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    indexed = _chunk(dataset, spec, embedder, config, progress)
    timings["chunk"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    safe = "".join(ch if ch.isalnum() else "_" for ch in spec.label)
    store = store_factory(workdir / f"{safe}.sqlite", embedder)
    try:
        _index(store, indexed, spec.label, progress)
        timings["embed_index"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        results = _search(store, dataset, config, spec, progress)
        timings["search"] = time.perf_counter() - t0
    finally:
        store.close()
    t0 = time.perf_counter()
    rows = _score(dataset, indexed, results, config)
    timings["score"] = time.perf_counter() - t0
    lengths = [len(c.text) for cs in indexed.chunks.values() for c in cs]
    langs = [dataset.documents[d].language or "und" for d, cs in indexed.chunks.items() for _ in cs]
    n_windows = sum(len(w) for w in indexed.windows.values())
    return VariantRun(spec.label, lengths, langs, rows, timings, n_windows)


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
    check_queries(dataset, config)
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
