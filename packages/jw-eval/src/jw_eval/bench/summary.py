"""Turn per-question rows into the report: means with CI95 overall, per
language and for multi-span questions; lifts over ``paragraph`` with the gate."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

import numpy as np

from jw_eval.bench.measures import GATE, Measure
from jw_eval.bench.runner import VariantRun
from jw_eval.bench.variants import VariantSpec
from jw_eval.bootstrap import bootstrap_mean, paired_lift

__all__ = ["BASELINE", "lift_table", "peer_lift_table", "summarise_variant"]

BASELINE = "paragraph"


def _metric_block(rows: Sequence[dict[str, Any]], measures: Sequence[Measure]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for m in measures:
        values = np.array([r[m.name] for r in rows], dtype=np.float64)
        out[m.name] = bootstrap_mean(values).to_dict() if m.ci else {"value": float(values.mean())}
    return out


def _mean_len(run: VariantRun, language: str) -> float:
    lengths = [
        n for n, cl in zip(run.chunk_lengths, run.chunk_languages, strict=True) if cl == language
    ]
    return statistics.fmean(lengths) if lengths else 0.0


def summarise_variant(run: VariantRun, names: Sequence[Measure]) -> dict[str, Any]:
    rows = run.rows
    lengths = run.chunk_lengths
    by_lang: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_lang.setdefault(r["language"], []).append(r)
    multi = [r for r in rows if r["n_spans"] > 1]
    return {
        "name": run.label,
        "n_chunks": len(lengths),
        "n_windows": run.n_windows,
        "mean_chunk_chars": statistics.fmean(lengths) if lengths else 0.0,
        "median_chunk_chars": statistics.median(lengths) if lengths else 0.0,
        "n_queries": len(rows),
        "metrics": _metric_block(rows, names),
        "by_language": {
            lang: {
                "n": len(rs),
                "n_chunks": sum(cl == lang for cl in run.chunk_languages),
                "mean_chunk_chars": _mean_len(run, lang),
                "metrics": _metric_block(rs, names),
            }
            for lang, rs in sorted(by_lang.items())
        },
        "multi_span": {"n": len(multi), "metrics": _metric_block(multi, names) if multi else {}},
        "timings_s": {k: round(v, 3) for k, v in run.timings.items()},
        "queries": rows,
    }


def lift_table(
    runs: Sequence[VariantRun],
    min_lift: float | None,
    baseline: str = BASELINE,
    metric: str = GATE.name,
) -> dict[str, Any]:
    """``delta_<variant>_vs_paragraph`` (the baseline is the first variant of
    the ``paragraph`` chunker, options allowed, delivered as the run's
    ``--expand`` says): per language, the paired lift of ``metric`` with its
    CI95 and (when ``min_lift`` is given, in percent) whether its lower bound
    clears it."""
    base = next((r for r in runs if r.label.split(":")[0] == baseline), None)
    out: dict[str, Any] = {}
    if base is None:
        return out
    for run in runs:
        if run is base:
            continue
        per_lang: dict[str, Any] = {}
        langs = sorted({r["language"] for r in base.rows})
        for lang in langs:
            b = [r[metric] for r in base.rows if r["language"] == lang]
            v = [r[metric] for r in run.rows if r["language"] == lang]
            est = paired_lift(v, b)
            entry: dict[str, Any] = {
                "n": len(b),
                "metric": metric,
                "lift": est.value,
                "ci95": [est.low, est.high],
            }
            if min_lift is not None:
                entry["gate"] = "pass" if est.low * 100 > min_lift else "fail"
            per_lang[lang] = entry
        out[f"delta_{run.label}_vs_{baseline}"] = per_lang
    return out


def _lang_values(run: VariantRun, lang: str, metric: str) -> list[float]:
    return [r[metric] for r in run.rows if r["language"] == lang]


def peer_lift_table(
    runs: Sequence[VariantRun], specs: Sequence[VariantSpec], metrics: Sequence[str]
) -> dict[str, Any]:
    """``{metric: {variant: {lang: ...}}}``: each of our variants against the
    best peer of the run in that language for that metric (the peer with the
    highest mean), as a paired lift with its CI95. Empty without a peer."""
    peers = [r for r, s in zip(runs, specs, strict=True) if s.peer]
    ours = [r for r, s in zip(runs, specs, strict=True) if not s.peer]
    if not peers or not ours:
        return {}
    langs = sorted({r["language"] for r in runs[0].rows})
    out: dict[str, Any] = {}
    for metric in metrics:
        table: dict[str, Any] = {}
        for run in ours:
            per_lang: dict[str, Any] = {}
            for lang in langs:
                best = max(peers, key=lambda p: float(np.mean(_lang_values(p, lang, metric))))
                b, v = _lang_values(best, lang, metric), _lang_values(run, lang, metric)
                est = paired_lift(v, b)
                per_lang[lang] = {
                    "n": len(b),
                    "peer": best.label,
                    "value": float(np.mean(v)),
                    "peer_value": float(np.mean(b)),
                    "lift": est.value,
                    "ci95": [est.low, est.high],
                }
            table[run.label] = per_lang
        out[metric] = table
    return out
