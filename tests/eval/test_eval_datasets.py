"""Dataset loaders on small fixtures: SQuAD repairs and drops, Chroma offsets, YAML pids."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_eval.datasets import (
    detect_format,
    load_chroma,
    load_dataset,
    load_squad,
    locate_answer,
    split_blank_lines,
)
from jw_rag.errors import ConfigError, IngestError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "eval"
BUNDLED = (
    Path(__file__).resolve().parents[2] / "packages" / "jw-eval" / "fixtures" / "chunker_bench"
)


def _texts(ds, q):
    return [ds.documents[e.doc_id].text[e.start : e.end] for e in q.expected]


def test_squad_answers_located_repaired_and_dropped() -> None:
    ds = load_squad(FIXTURES / "squad_tiny.json")
    assert [q.id for q in ds.queries] == ["lh-1", "lh-2", "lh-3", "hb-1", "hb-2", "hb-4"]
    assert {q.language for q in ds.queries} == {"en"}
    got = {q.id: _texts(ds, q) for q in ds.queries}
    assert got["lh-1"] == ["Alexandria"]  # wrong answer_start, re-found
    assert got["hb-2"] == ["waggle dance"]  # re-found case-insensitively
    assert got["hb-4"] == ["late summer"]
    assert ds.stats == {
        "answers_offset": 4,
        "answers_refound": 1,
        "answers_refound_ci": 1,
        "answers_not_found": 1,
        "questions_dropped": 1,
        "skipped_impossible": 1,
    }
    doc = ds.documents["Honeybees"]
    assert len(doc.paragraphs) == 3 and doc.text.count("\n\n") == 2


def test_locate_answer_prefers_the_nearest_occurrence() -> None:
    ctx = "cat dog cat dog cat"
    assert locate_answer(ctx, "cat", 9) == (8, "refound")
    assert locate_answer(ctx, "cat", 8) == (8, "offset")
    assert locate_answer(ctx, "DOG", 0) == (4, "refound_ci")
    assert locate_answer(ctx, "eel", 0) is None


def test_language_can_be_forced() -> None:
    ds = load_dataset(FIXTURES / "squad_tiny.json", language="es")
    assert {q.language for q in ds.queries} == {"es"}


def test_chroma_references_keep_their_exact_characters() -> None:
    ds = load_chroma(FIXTURES / "chroma")
    assert ds.stats == {"questions_without_corpus": 1}
    assert len(ds.documents["garden"].paragraphs) == 4
    assert _texts(ds, ds.queries[1]) == [
        "the club holds 420 dollars",
        "held in the library on the first Monday of May",
    ]
    assert ds.queries[1].multi_span


def test_split_blank_lines_keeps_offsets() -> None:
    text = "a b\n\n\nc\n  \nd\n"
    parts = split_blank_lines(text)
    assert parts == [(0, "a b"), (6, "c"), (11, "d\n")]
    assert all(text[o : o + len(p)] == p for o, p in parts)


def test_format_detection_and_errors(tmp_path: Path) -> None:
    assert detect_format(FIXTURES / "squad_tiny.json") == "squad"
    assert detect_format(FIXTURES / "chroma") == "chroma"
    bad = tmp_path / "x.json"
    bad.write_text('{"rows": []}')
    with pytest.raises(IngestError, match="not SQuAD"):
        detect_format(bad)
    with pytest.raises(ConfigError, match="unknown dataset format"):
        load_dataset(bad, format="csv")
    with pytest.raises(IngestError, match="does not exist"):
        load_dataset(tmp_path / "missing.json")


def test_limit_is_the_first_questions_in_file_order() -> None:
    ds = load_squad(FIXTURES / "squad_tiny.json")
    assert [q.id for q in ds.limited(2).queries] == ["lh-1", "lh-2"]
    with pytest.raises(ValueError, match="limit"):
        ds.limited(0)


def test_yaml_queries_cite_whole_paragraphs(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus" / "en"
    corpus.mkdir(parents=True)
    (corpus / "hope.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Hope</title></head>'
        '<body><article id="article"><header><h1>Hope</h1></header><div class="bodyTxt">'
        '<p data-pid="1" id="p1"><span class="parNum">1</span> Hope is an anchor for the soul.</p>'
        "<h2>Why hope matters</h2>"
        '<p data-pid="2" id="p2"><span class="parNum">2</span> However, hope must rest on facts.</p>'
        "</div></article></body></html>",
        encoding="utf-8",
    )
    queries = tmp_path / "q.yaml"
    queries.write_text(
        "- id: en-hope-01\n  language: en\n  query: Why does hope need facts?\n"
        "  expected_citations:\n    - {doc: en/hope, pids: [1, 2]}\n",
        encoding="utf-8",
    )
    ds = load_dataset(tmp_path)
    (q,) = ds.queries
    assert _texts(ds, q) == ["Hope is an anchor for the soul.", "However, hope must rest on facts."]
    queries.write_text(queries.read_text().replace("[1, 2]", "[7]"), encoding="utf-8")
    with pytest.raises(IngestError, match="pid 7"):
        load_dataset(tmp_path)


def test_bundled_corpus_loads_when_present() -> None:
    if not (BUNDLED / "doctrinal_queries.yaml").is_file():
        pytest.skip("bundled corpus not present")
    ds = load_dataset(BUNDLED)
    assert set(ds.languages()) <= {"en", "es", "pt"}
    for q in ds.queries:
        for text in _texts(ds, q):
            assert text.strip() and text == text.strip()
