"""``run_chunker_bench``: the whole benchmark from options to a report.

Report JSON schema (``schema_version`` 3)::

    {
      "schema_version": 3,
      "dataset": {"name", "path", "format", "n_documents", "n_queries",
                  "languages": {lang: n}, "loader_stats": {counter: n}},
      "config": {"variants": [label], "k", "retriever", "embedder", "expand",
                 "window_chars", "budgets": [chars], "min_lift": percent | null, "limit",
                 "shape": name | null, "peers": [label], "shipped_default": label | null,
                 "bootstrap": {"resamples": 1000, "seed": 0}},
      "metric_names": [name],
      "variants": [{
          "name", "n_chunks", "n_windows", "mean_chunk_chars", "median_chunk_chars",
          "n_queries",
          "metrics": {name: {"value": float, "ci95": [lo, hi] (ndcg@10, ndcg@<B>c)}},
          "by_language": {lang: {"n", "n_chunks", "mean_chunk_chars", "metrics"}},
          "multi_span": {"n", "metrics"},          # questions with >1 expected span
          "timings_s": {"chunk", "embed_index", "search", "score"},
          "queries": [{"id", "language", "n_spans", "top_ids", <metric>: float}]
      }],
      "deltas": {"delta_<variant>_vs_paragraph": {lang: {"n", "metric", "lift",
                 "ci95": [lo, hi], "gate": "pass" | "fail" (only with min_lift)}}},
      "budget_deltas": {"ndcg@<B>c": {"delta_<variant>_vs_paragraph": {lang: ...}}},
      "best_peers": {"ndcg@<B>c": {lang: {"peer", "value", "n",
                     "peers": {<peer>: mean}}}},
      "peer_deltas": {"ndcg@<B>c": {<variant>: {lang: {"n", "peer", "value",
                      "peer_value", "lift", "ci95": [lo, hi]}}}},
      "gate": {"min_lift", "passed": bool | null, "failures": ["<variant>/<lang>"]},
      "markers": {lang: {"paragraphs", "continuation_rate", "closure_rate"}},
      "timings_s": {"parse", "embed_queries", "total"}
    }

Metric names: ``ndcg@10`` (span level), ``doc_ndcg@10``, ``mrr@k``,
``hit@c``/``recall@c`` and ``char_recall@c``/``char_precision@c``/``char_iou@c``
for c in {5, k}, ``complete@k`` (every expected span inside what the top k
delivered), ``ndcg@<B>c``/``recall@<B>c``/``complete@<B>c`` within a budget
of B delivered characters (``ndcg@<B>c`` ranks what was delivered, one rank per
delivered hit with its expansion, so it compares chunk sizes and expansion
strategies at equal cost). Lifts are relative (0.1 = +10%); the gate uses
``ndcg@10``, ``budget_deltas`` give the same paired lifts at each budget.

Every question goes through the steps of :func:`jw_rag.retrieve.retrieve`:
the rank metrics judge the store's top ``k`` units, the budget metrics what
the ``k`` delivered hits brought (a hit folded into a better hit's context
leaves room for the next one).
Our chunkers index window units beside their chunks (``window_chars``; a
variant's ``windows=N`` overrides it); peers index their own chunks only and
deliver each hit alone. The run's peer set (``peers``, default
:data:`~jw_eval.bench.variants.DEFAULT_PEERS`; default peers whose library is
missing are left out with a warning) is added to the listed variants; the
lifts over ``paragraph`` (``deltas``, ``budget_deltas``, the gate) are those
of the listed variants only. ``best_peers`` names, per budget and language,
the peer variant (listed or added) with the highest mean, and ``peer_deltas``
gives each of our variants' paired lift over it. ``shipped_default`` is the variant that is the pipeline users get (the
default chunker with the default windows, delivery, retriever and ``k``), when
the run has one. ``shape`` is the layout the documents were turned into
(:mod:`jw_eval.shapes`) before anything ran, ``null`` for the data as loaded.

Schema 3 (from 2): ``shape``, ``peers``, ``shipped_default`` and
``best_peers`` are new.

Schema 2 (from 1): ``window_chars``, ``n_windows`` and ``peer_deltas`` are new;
delivery fills ``k`` hits from a deeper search instead of expanding only the
top ``k`` (so budget metrics of expansion variants differ from schema 1); the
default retriever and delivery are the product's (hybrid, segment).

A variant label may end in ``+<expansion>`` (``paragraph+chain``) to deliver
its hits that way; ``--expand`` applies to the others.

The gate applies only when ``min_lift`` is given: it passes when, for every
variant other than ``paragraph`` and in every language, the lower bound of
the lift's CI95 exceeds ``min_lift`` percent. Without ``min_lift`` the
report is written and nothing fails.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jw_eval.bench.markers_rate import marker_rates
from jw_eval.bench.peers import missing_peer_library
from jw_eval.bench.report import DatasetInfo, Gate, Report, RunConfig
from jw_eval.bench.runner import (
    BenchConfig,
    Progress,
    StoreFactory,
    VariantRun,
    _default_store,
    _no_progress,
    check_queries,
    run_variants,
)
from jw_eval.bench.summary import BASELINE, lift_table, peer_lift_table, summarise_variant
from jw_eval.bench.variants import VariantSpec, parse_peers, parse_variants, with_peers
from jw_eval.bootstrap import RESAMPLES, SEED
from jw_eval.bundled import bundled_location, bundled_path
from jw_eval.datasets import load_dataset
from jw_eval.datasets.model import Dataset
from jw_eval.shapes import check_shape, reshape
from jw_rag.defaults import (
    DEFAULT_EXPANSION,
    DEFAULT_K,
    DEFAULT_SEARCH_MODE,
    DEFAULT_WINDOW_CHARS,
)
from jw_rag.embed.protocol import Embedder, embed_queries
from jw_rag.errors import ConfigError, extra_hint

__all__ = ["DEFAULT_DATASET", "BenchOptions", "BenchResult", "run_chunker_bench"]

#: The bundled corpus (doctrinal_queries.yaml + corpus/), installed inside the package
#: (checked when a run reads it: without it, ``dataset`` still works).
DEFAULT_DATASET = bundled_location("chunker_bench")


@dataclass
class BenchOptions:
    """What to run; retrieval defaults are the product's (:mod:`jw_rag.defaults`).
    The one list of the bench's options: the CLI builds it, the run derives its
    :class:`BenchConfig` from it, and the report echoes it."""

    variants: str = "paragraph,semantic"
    dataset: Path | None = None
    queries: Path | None = None
    corpus_dir: Path | None = None
    format: str | None = None
    language: str | None = None
    limit: int | None = None
    limit_per_language: bool = False
    k: int = DEFAULT_K
    retriever: str = DEFAULT_SEARCH_MODE
    embedder: str | None = None
    expand: str = DEFAULT_EXPANSION
    min_lift: float | None = None
    budgets: tuple[int, ...] = field(default=(2000, 4000))
    window_chars: int = DEFAULT_WINDOW_CHARS
    #: A layout from :data:`jw_eval.shapes.SHAPES` to turn the documents into; ``None``: as loaded.
    shape: str | None = None
    #: The peer set added to ``variants``: ``None`` is ``DEFAULT_PEERS``, ``"none"`` no peer.
    peers: str | None = None

    def config(self) -> BenchConfig:
        """How every variant is searched, delivered and scored."""
        return BenchConfig(
            k=self.k,
            retriever=self.retriever,
            expand=self.expand,
            budgets=self.budgets,
            window_chars=self.window_chars,
        )


@dataclass
class BenchResult:
    """A run's typed :class:`~jw_eval.bench.report.Report` and its JSON form."""

    data: Report
    report: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.report = self.data.to_dict()

    @property
    def passed(self) -> bool:
        """False only when a requested gate failed."""
        return self.data.gate.passed is not False


def _load(options: BenchOptions) -> tuple[Dataset, str]:
    if options.queries is not None:
        if options.dataset is not None:
            raise ConfigError("give either dataset or queries (with corpus_dir), not both")
        path = options.queries
        ds = load_dataset(path, format=options.format or "yaml", corpus_dir=options.corpus_dir)
        ds = ds.for_language(options.language)
    else:
        path = options.dataset or bundled_path("chunker_bench")
        ds = load_dataset(
            path, format=options.format, language=options.language, corpus_dir=options.corpus_dir
        )
    if options.shape is not None:
        ds = reshape(ds, options.shape)
    ds = ds.limited(options.limit, per_language=options.limit_per_language)
    if not ds.queries:
        raise ConfigError(f"no questions left in {path} for language {options.language!r}")
    return ds, str(path)


def _dataset_info(dataset: Dataset, path: str) -> DatasetInfo:
    return DatasetInfo(
        name=dataset.name,
        path=path,
        format=dataset.format,
        n_documents=len(dataset.documents),
        n_queries=len(dataset.queries),
        languages=dataset.languages(),
        loader_stats=dataset.stats,
    )


def _run_config(
    options: BenchOptions,
    specs: list[VariantSpec],
    peers: list[VariantSpec],
    config: BenchConfig,
    embedder: Embedder,
) -> RunConfig:
    shipped = next((s.label for s in specs if config.is_shipped_default(s)), None)
    return RunConfig(
        variants=[s.label for s in specs],
        k=config.k,
        retriever=config.retriever,
        embedder=embedder.model_id,
        expand=config.expand,
        window_chars=config.window_chars,
        budgets=list(config.budgets),
        min_lift=options.min_lift,
        limit=options.limit,
        shape=options.shape,
        peers=[p.label for p in peers],
        shipped_default=shipped,
        resamples=RESAMPLES,
        seed=SEED,
    )


def _comparisons(
    runs: list[VariantRun],
    specs: list[VariantSpec],
    n_listed: int,
    config: BenchConfig,
    min_lift: float | None,
) -> dict[str, Any]:
    """Lifts of the first ``n_listed`` variants (those ``variants`` lists, not
    the peers the peer set adds) over ``paragraph`` (NDCG@10, gated, and each
    budget); of each of our variants over the best peer (each budget); and the
    gate's verdict."""
    listed = runs[:n_listed]
    deltas = lift_table(listed, min_lift)
    if min_lift is not None and not deltas:
        raise ConfigError(f"min_lift needs '{BASELINE}' and at least one other variant")
    failures = [
        f"{key.removeprefix('delta_').removesuffix(f'_vs_{BASELINE}')}/{lang}"
        for key, per_lang in deltas.items()
        for lang, d in per_lang.items()
        if d.gate == "fail"
    ]
    budgeted = [m.name for m in config.measures if m.judges == "budget" and m.ci]
    best, peer_deltas = peer_lift_table(runs, specs, budgeted)
    return {
        "deltas": deltas,
        "budget_deltas": {name: lift_table(listed, None, metric=name) for name in budgeted},
        "best_peers": best,
        "peer_deltas": peer_deltas,
        "gate": Gate(min_lift, failures),
    }


def _peer_set(text: str | None) -> list[VariantSpec]:
    """The run's peers; from the default set, those whose library is not
    installed are left out with one warning (a set given explicitly fails
    on them instead, naming the extra to install)."""
    peers = parse_peers(text)
    if text is not None:
        return peers
    missing = {p.label: m for p in peers if (m := missing_peer_library(p.name))}
    if missing:
        warnings.warn(
            f"left out the default peers {', '.join(missing)}: "
            f"{', '.join(sorted(set(missing.values())))} not installed (install jw-eval's "
            f"'bench' extra with {extra_hint('jw-eval', 'bench')}, or pass --peers none)",
            stacklevel=3,
        )
    return [p for p in peers if p.label not in missing]


def run_chunker_bench(
    options: BenchOptions,
    *,
    embedder: Embedder | None = None,
    store_factory: StoreFactory = _default_store,
    progress: Progress = _no_progress,
) -> BenchResult:
    """Load the dataset, run every variant, and build the report."""
    started = time.perf_counter()
    if options.min_lift is not None and not math.isfinite(options.min_lift):
        # NaN failed every gate, inf too: a typo, not a threshold
        raise ConfigError(f"min_lift must be a finite percent, got {options.min_lift!r}")
    if options.shape is not None:
        check_shape(options.shape)
    peers = _peer_set(options.peers)
    listed = parse_variants(options.variants)
    specs = with_peers(listed, peers)
    config = options.config()
    if embedder is None:
        from jw_rag.embed import get_embedder

        embedder = get_embedder(options.embedder, cache=True)
    t0 = time.perf_counter()
    dataset, path = _load(options)
    check_queries(dataset, config)  # before any question is embedded
    parse_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    if config.retriever != "bm25":
        # One batch up front: the embedding cache then answers each search.
        embed_queries(embedder, [q.query for q in dataset.queries])
    embed_queries_s = time.perf_counter() - t0
    runs = run_variants(
        dataset, specs, embedder, config, store_factory=store_factory, progress=progress
    )
    report = Report(
        dataset=_dataset_info(dataset, path),
        config=_run_config(options, specs, peers, config, embedder),
        metric_names=[m.name for m in config.measures],
        variants=[summarise_variant(r, config.measures) for r in runs],
        **_comparisons(runs, specs, len(listed), config, options.min_lift),
        markers=marker_rates(dataset),
        timings_s={
            "parse": round(parse_s, 3),
            "embed_queries": round(embed_queries_s, 3),
            "total": round(time.perf_counter() - started, 3),
        },
    )
    return BenchResult(report)
