"""Turn per-question rows into the report: means with CI95 overall, per
language and for multi-span questions; lifts over ``paragraph`` with the gate."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

import numpy as np

from jw_eval.bench.measures import GATE, Measure
from jw_eval.bench.report import (
    BestPeer,
    LanguageSummary,
    Lift,
    LiftTable,
    MetricBlock,
    PeerLift,
    VariantSummary,
)
from jw_eval.bench.runner import VariantRun
from jw_eval.bench.variants import VariantSpec
from jw_eval.bootstrap import Estimate, bootstrap_mean, paired_lift

__all__ = ["BASELINE", "lift_table", "peer_lift_table", "summarise_variant"]

BASELINE = "paragraph"


def _metric_block(rows: Sequence[dict[str, Any]], measures: Sequence[Measure]) -> MetricBlock:
    values: dict[str, Estimate | float] = {}
    for m in measures:
        column = np.array([r[m.name] for r in rows], dtype=np.float64)
        values[m.name] = bootstrap_mean(column) if m.ci else float(column.mean())
    return MetricBlock(values)


def _mean_len(run: VariantRun, language: str) -> float:
    lengths = [
        n for n, cl in zip(run.chunk_lengths, run.chunk_languages, strict=True) if cl == language
    ]
    return statistics.fmean(lengths) if lengths else 0.0


def summarise_variant(run: VariantRun, measures: Sequence[Measure]) -> VariantSummary:
    rows = run.rows
    lengths = run.chunk_lengths
    by_lang: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_lang.setdefault(r["language"], []).append(r)
    multi = [r for r in rows if r["n_spans"] > 1]
    return VariantSummary(
        name=run.label,
        n_chunks=len(lengths),
        n_windows=run.n_windows,
        mean_chunk_chars=statistics.fmean(lengths) if lengths else 0.0,
        median_chunk_chars=statistics.median(lengths) if lengths else 0.0,
        metrics=_metric_block(rows, measures),
        by_language={
            lang: LanguageSummary(
                n=len(rs),
                n_chunks=sum(cl == lang for cl in run.chunk_languages),
                mean_chunk_chars=_mean_len(run, lang),
                metrics=_metric_block(rs, measures),
            )
            for lang, rs in sorted(by_lang.items())
        },
        multi_span_n=len(multi),
        multi_span=_metric_block(multi, measures) if multi else MetricBlock(),
        timings_s={k: round(v, 3) for k, v in run.timings.items()},
        queries=rows,
    )


def lift_table(
    runs: Sequence[VariantRun],
    min_lift: float | None,
    baseline: str = BASELINE,
    metric: str = GATE.name,
) -> LiftTable:
    """``delta_<variant>_vs_paragraph`` (the baseline is the first variant of
    the ``paragraph`` chunker, options allowed): per language, the paired lift
    of ``metric`` with its CI95 and (when ``min_lift`` is given, in percent)
    whether its lower bound clears it."""
    base = next((r for r in runs if r.label.split(":")[0] == baseline), None)
    out: LiftTable = {}
    if base is None:
        return out
    langs = sorted({r["language"] for r in base.rows})
    for run in runs:
        if run is base:
            continue
        per_lang: dict[str, Lift] = {}
        for lang in langs:
            b = _lang_values(base, lang, metric)
            est = paired_lift(_lang_values(run, lang, metric), b)
            gate = None if min_lift is None else ("pass" if est.low * 100 > min_lift else "fail")
            per_lang[lang] = Lift(len(b), metric, est, gate)
        out[f"delta_{run.label}_vs_{baseline}"] = per_lang
    return out


def _lang_values(run: VariantRun, lang: str, metric: str) -> list[float]:
    return [r[metric] for r in run.rows if r["language"] == lang]


def peer_lift_table(
    runs: Sequence[VariantRun], specs: Sequence[VariantSpec], metrics: Sequence[str]
) -> tuple[dict[str, dict[str, BestPeer]], dict[str, dict[str, dict[str, PeerLift]]]]:
    """``(best, lifts)``: per metric and language, the best peer of the run
    (the peer variant with the highest mean; the first listed on a tie) and,
    ``{metric: {variant: {lang: PeerLift}}}``, each of our variants' paired
    lift over it with its CI95. Both empty without a peer or without one of ours."""
    peers = [r for r, s in zip(runs, specs, strict=True) if s.peer]
    ours = [r for r, s in zip(runs, specs, strict=True) if not s.peer]
    if not peers or not ours:
        return {}, {}
    langs = sorted({r["language"] for r in runs[0].rows})
    best_table: dict[str, dict[str, BestPeer]] = {}
    out: dict[str, dict[str, dict[str, PeerLift]]] = {}
    for metric in metrics:
        means = {
            lang: {p.label: float(np.mean(_lang_values(p, lang, metric))) for p in peers}
            for lang in langs
        }
        winners = {lang: max(peers, key=lambda p: means[lang][p.label]) for lang in langs}
        best_table[metric] = {
            lang: BestPeer(
                w.label, means[lang][w.label], len(_lang_values(w, lang, metric)), means[lang]
            )
            for lang, w in winners.items()
        }
        table: dict[str, dict[str, PeerLift]] = {}
        for run in ours:
            per_lang: dict[str, PeerLift] = {}
            for lang, best in winners.items():
                b, v = _lang_values(best, lang, metric), _lang_values(run, lang, metric)
                per_lang[lang] = PeerLift(
                    len(b), best.label, float(np.mean(v)), float(np.mean(b)), paired_lift(v, b)
                )
            table[run.label] = per_lang
        out[metric] = table
    return best_table, out
