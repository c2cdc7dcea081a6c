"""How often paragraphs open with a continuation or closure marker, per language."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from jw_eval.datasets.model import Dataset
from jw_rag.chunkers import load_markers

__all__ = ["marker_rates"]


def marker_rates(dataset: Dataset) -> dict[str, dict[str, Any]]:
    """Per document language: non-empty non-heading paragraphs, and the
    fraction whose start matches a continuation / closure marker (``None``
    when the language has no marker data)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for doc in dataset.documents.values():
        lang = doc.language or "und"
        markers = load_markers(lang)
        c = counts[lang]
        for p in doc.paragraphs:
            if p.kind == "heading" or not p.text.strip():
                continue
            c[0] += 1
            if markers is not None:
                c[1] += markers.continuation(p.text) is not None
                c[2] += markers.closure(p.text) is not None
    out: dict[str, dict[str, Any]] = {}
    for lang, (n, cont, clos) in sorted(counts.items()):
        has = load_markers(lang) is not None
        out[lang] = {
            "paragraphs": n,
            "continuation_rate": cont / n if has and n else None,
            "closure_rate": clos / n if has and n else None,
        }
    return out
