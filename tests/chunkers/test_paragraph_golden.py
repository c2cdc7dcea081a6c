"""Back-compat: chunk_paragraphs' output is frozen in tests/golden/.

The golden files were written once by this test with JW_REGEN_GOLDEN=1; a
difference means chunk_paragraphs changed behaviour, which it must never do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jw_rag.chunker import chunk_paragraphs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "chunking"
GOLDEN = Path(__file__).resolve().parent.parent / "golden"
CASES = [
    (lang, params)
    for lang in ("en", "es", "pt")
    for params in ({}, {"max_chars": 400, "min_chars": 80}, {"max_chars": 200, "min_chars": 120})
]


def _name(lang: str, params: dict[str, int]) -> str:
    suffix = "-".join(f"{k}{v}" for k, v in sorted(params.items())) or "defaults"
    return f"chunk_paragraphs-{lang}-{suffix}.json"


@pytest.mark.parametrize(("lang", "params"), CASES, ids=[_name(*c) for c in CASES])
def test_chunk_paragraphs_matches_golden(lang: str, params: dict[str, int]) -> None:
    fixture = json.loads((FIXTURES / f"{lang}.json").read_text("utf-8"))
    chunks = chunk_paragraphs(fixture["paragraphs"], fixture["source_id"], **params)
    got = [
        {"id": c.id, "text": c.text, "source_id": c.source_id, "metadata": c.metadata}
        for c in chunks
    ]
    path = GOLDEN / _name(lang, params)
    if os.environ.get("JW_REGEN_GOLDEN") == "1" and not path.exists():
        path.write_text(json.dumps(got, ensure_ascii=False, indent=1) + "\n", "utf-8")
    expected = json.loads(path.read_text("utf-8"))
    assert got == expected


def test_plain_strings_and_paragraph_objects_chunk_alike() -> None:
    from jw_rag.model import Paragraph

    fixture = json.loads((FIXTURES / "es.json").read_text("utf-8"))
    plain = chunk_paragraphs(fixture["paragraphs"], "s")
    wrapped = chunk_paragraphs([Paragraph(t) for t in fixture["paragraphs"]], "s")
    assert [c.text for c in plain] == [c.text for c in wrapped]
    ided = chunk_paragraphs(
        [Paragraph(t, id=f"p{i + 1}") for i, t in enumerate(fixture["paragraphs"])], "s"
    )
    assert ided[0].metadata["para_ids"] == ["p1", "p2"]
    assert plain[0].metadata["para_ids"] == [0, 1]


def test_rejects_impossible_sizes() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        chunk_paragraphs(["x"], "s", max_chars=0)
    with pytest.raises(ValueError, match="min_chars"):
        chunk_paragraphs(["x"], "s", max_chars=100, min_chars=200)
