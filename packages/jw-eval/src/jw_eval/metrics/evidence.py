"""Complete evidence: every expected span lies fully inside the union of what
was delivered (so the chain of an argument arrived whole)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from jw_eval.metrics.chars import ranges_by_doc
from jw_eval.spans import DocRange, ExpectedSpan, covered_length

__all__ = ["complete_evidence"]


def complete_evidence(delivered: Iterable[DocRange], expected: Sequence[ExpectedSpan]) -> float:
    if not expected:
        raise ValueError("a question needs at least one expected span")
    got = ranges_by_doc(delivered)
    for e in expected:
        rs = got.get(e.doc_id, [])
        if covered_length(rs, [(e.start, e.end)]) < e.end - e.start:
            return 0.0
    return 1.0
