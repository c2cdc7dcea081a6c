"""The benchmark report as typed values, serialised to JSON only at the edge
(:meth:`Report.to_dict`; renderers and ``--report json`` read that dict).

The JSON layout each class produces is the schema documented in
:mod:`jw_eval.bench.chunker_bench`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from jw_eval.bootstrap import Estimate

__all__ = [
    "SCHEMA_VERSION",
    "BestPeer",
    "DatasetInfo",
    "Gate",
    "LanguageSummary",
    "Lift",
    "MetricBlock",
    "PeerLift",
    "Report",
    "RunConfig",
    "VariantSummary",
]

SCHEMA_VERSION = 3


def _fields(value: Any, *leave_out: str) -> dict[str, Any]:
    """A dataclass's own fields, shallow, without ``leave_out``."""
    return {f.name: getattr(value, f.name) for f in fields(value) if f.name not in leave_out}


def _lift(estimate: Estimate) -> dict[str, Any]:
    return {"lift": estimate.value, "ci95": [estimate.low, estimate.high]}


@dataclass(frozen=True, slots=True)
class MetricBlock:
    """Each measure's mean over a set of questions; CI95 where the measure has one."""

    values: dict[str, Estimate | float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            name: v.to_dict() if isinstance(v, Estimate) else {"value": v}
            for name, v in self.values.items()
        }


@dataclass(frozen=True, slots=True)
class LanguageSummary:
    n: int
    n_chunks: int
    mean_chunk_chars: float
    metrics: MetricBlock

    def to_dict(self) -> dict[str, Any]:
        return {**_fields(self, "metrics"), "metrics": self.metrics.to_dict()}


@dataclass(frozen=True, slots=True)
class VariantSummary:
    """One variant: its chunks, its scores overall, per language and on
    multi-span questions, its timings and its per-question rows."""

    name: str
    n_chunks: int
    n_windows: int
    mean_chunk_chars: float
    median_chunk_chars: float
    metrics: MetricBlock
    by_language: dict[str, LanguageSummary]
    multi_span_n: int
    multi_span: MetricBlock
    timings_s: dict[str, float]
    queries: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n_chunks": self.n_chunks,
            "n_windows": self.n_windows,
            "mean_chunk_chars": self.mean_chunk_chars,
            "median_chunk_chars": self.median_chunk_chars,
            "n_queries": len(self.queries),
            "metrics": self.metrics.to_dict(),
            "by_language": {lang: s.to_dict() for lang, s in self.by_language.items()},
            "multi_span": {"n": self.multi_span_n, "metrics": self.multi_span.to_dict()},
            "timings_s": self.timings_s,
            "queries": self.queries,
        }


@dataclass(frozen=True, slots=True)
class Lift:
    """A paired-bootstrap lift of ``metric`` over a baseline in one language."""

    n: int
    metric: str
    estimate: Estimate
    gate: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {**_fields(self, "estimate", "gate"), **_lift(self.estimate)}
        return out if self.gate is None else {**out, "gate": self.gate}


@dataclass(frozen=True, slots=True)
class PeerLift:
    """A variant against the best peer of the run in one language."""

    n: int
    peer: str
    value: float
    peer_value: float
    estimate: Estimate

    def to_dict(self) -> dict[str, Any]:
        return {**_fields(self, "estimate"), **_lift(self.estimate)}


@dataclass(frozen=True, slots=True)
class BestPeer:
    """The peer variant with the highest mean of a metric in one language,
    and every peer's mean there."""

    peer: str
    value: float
    n: int
    peers: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Gate:
    min_lift: float | None
    failures: list[str]

    @property
    def passed(self) -> bool | None:
        """``None`` without a gate, else whether no variant/language failed."""
        return None if self.min_lift is None else not self.failures

    def to_dict(self) -> dict[str, Any]:
        return {"min_lift": self.min_lift, "passed": self.passed, "failures": self.failures}


@dataclass(frozen=True, slots=True)
class DatasetInfo:
    name: str
    path: str
    format: str
    n_documents: int
    n_queries: int
    languages: dict[str, int]
    loader_stats: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class RunConfig:
    variants: list[str]
    k: int
    retriever: str
    embedder: str
    expand: str
    window_chars: int
    budgets: list[int]
    min_lift: float | None
    limit: int | None
    shape: str | None
    peers: list[str]
    shipped_default: str | None
    resamples: int
    seed: int

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["bootstrap"] = {"resamples": out.pop("resamples"), "seed": out.pop("seed")}
        return out


LiftTable = dict[str, dict[str, Lift]]


@dataclass(frozen=True, slots=True)
class Report:
    """A whole benchmark run."""

    dataset: DatasetInfo
    config: RunConfig
    metric_names: list[str]
    variants: list[VariantSummary]
    deltas: LiftTable
    budget_deltas: dict[str, LiftTable]
    best_peers: dict[str, dict[str, BestPeer]]
    peer_deltas: dict[str, dict[str, dict[str, PeerLift]]]
    gate: Gate
    markers: dict[str, dict[str, Any]]
    timings_s: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        def lifts(table: LiftTable) -> dict[str, Any]:
            return {
                key: {lang: d.to_dict() for lang, d in per.items()} for key, per in table.items()
            }

        return {
            "schema_version": SCHEMA_VERSION,
            "dataset": self.dataset.to_dict(),
            "config": self.config.to_dict(),
            "metric_names": self.metric_names,
            "variants": [v.to_dict() for v in self.variants],
            "deltas": lifts(self.deltas),
            "budget_deltas": {m: lifts(t) for m, t in self.budget_deltas.items()},
            "best_peers": {
                m: {lang: b.to_dict() for lang, b in per.items()}
                for m, per in self.best_peers.items()
            },
            "peer_deltas": {
                m: {v: {lang: d.to_dict() for lang, d in per.items()} for v, per in t.items()}
                for m, t in self.peer_deltas.items()
            },
            "gate": self.gate.to_dict(),
            "markers": self.markers,
            "timings_s": self.timings_s,
        }
