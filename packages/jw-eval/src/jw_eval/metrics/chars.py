"""Character-level recall, precision and IoU (the measure of Chroma's chunking
evaluation): the union of the delivered ranges against the union of the
reference ranges of one question, document by document."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from jw_eval.spans import DocRange, Ranges, covered_length, union

__all__ = ["CharScores", "char_scores", "ranges_by_doc"]


@dataclass(frozen=True, slots=True)
class CharScores:
    recall: float
    precision: float
    iou: float


def ranges_by_doc(ranges: Iterable[DocRange]) -> dict[str, Ranges]:
    grouped: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for r in ranges:
        grouped[r.doc_id].append((r.start, r.end))
    return {doc: union(rs) for doc, rs in grouped.items()}


def char_scores(delivered: Iterable[DocRange], references: Iterable[DocRange]) -> CharScores:
    got = ranges_by_doc(delivered)
    ref = ranges_by_doc(references)
    got_len = sum(b - a for rs in got.values() for a, b in rs)
    ref_len = sum(b - a for rs in ref.values() for a, b in rs)
    if ref_len == 0:
        raise ValueError("a question needs at least one non-empty reference range")
    inter = sum(covered_length(got[d], ref[d]) for d in got.keys() & ref.keys())
    union_len = got_len + ref_len - inter
    return CharScores(
        recall=inter / ref_len,
        precision=inter / got_len if got_len else 0.0,
        iou=inter / union_len if union_len else 0.0,
    )
