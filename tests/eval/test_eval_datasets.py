"""Dataset loaders on small fixtures: SQuAD repairs and drops, Chroma offsets, YAML pids."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_eval.bench import DEFAULT_DATASET
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
BUNDLED = DEFAULT_DATASET


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


ES_DOC = "# El alma\n\nEl alma es la persona misma, según la Biblia.\n\nSin embargo, muchos creen que el alma sigue viviendo después de la muerte.\n"
PT_DOC = "# A alma\n\nA alma é a própria pessoa, segundo a Bíblia.\n\nNo entanto, muitos acreditam que a alma continua vivendo depois da morte.\n"


def _argument_layout(root: Path) -> Path:
    import json

    for lang, doc in (("es", ES_DOC), ("pt", PT_DOC)):
        (root / "corpus" / lang).mkdir(parents=True)
        (root / "corpus" / lang / f"{lang}_alma.md").write_text(doc, "utf-8")
    lines = []
    for lang, doc in (("es", ES_DOC), ("pt", PT_DOC)):
        second = doc.split("\n\n")[2].strip()
        start = doc.index(second)
        lines.append(
            json.dumps(
                {
                    "id": f"{lang}-1",
                    "language": lang,
                    "doc_id": f"{lang}_alma",
                    "question": "¿Qué creen muchos?" if lang == "es" else "O que muitos acreditam?",
                    "references": [{"start": start, "end": start + len(second), "text": second}],
                }
            )
        )
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return root


def test_questions_jsonl_loads_corpus_per_language(tmp_path: Path) -> None:
    root = _argument_layout(tmp_path)
    assert detect_format(root) == "jsonl" and detect_format(root / "questions.jsonl") == "jsonl"
    ds = load_dataset(root)
    assert ds.format == "jsonl" and ds.languages() == {"es": 1, "pt": 1}
    assert {d: doc.language for d, doc in ds.documents.items()} == {
        "es_alma": "es",
        "pt_alma": "pt",
    }
    assert _texts(ds, ds.queries[0]) == [ES_DOC.split("\n\n")[2].strip()]
    only = load_dataset(root / "questions.jsonl", language="pt")
    assert [q.id for q in only.queries] == ["pt-1"] and list(only.documents) == ["pt_alma"]
    with pytest.raises(IngestError, match="no usable questions"):
        load_dataset(root, language="en")


def test_chroma_layout_detects_or_takes_the_language(tmp_path: Path) -> None:
    import csv
    import json

    (tmp_path / "corpora").mkdir()
    (tmp_path / "corpora" / "alma.md").write_text(ES_DOC, "utf-8")
    second = ES_DOC.split("\n\n")[2].strip()
    start = ES_DOC.index(second)
    refs = json.dumps([{"content": second, "start_index": start, "end_index": start + len(second)}])
    with (tmp_path / "questions_df.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(
            [["question", "references", "corpus_id"], ["¿Qué creen?", refs, "alma"]]
        )
    detected = load_dataset(tmp_path)
    assert detected.documents["alma"].language == "es" and detected.languages() == {"es": 1}
    forced = load_dataset(tmp_path, language="pt")
    assert forced.documents["alma"].language == "pt" and forced.queries[0].language == "pt"
    with pytest.raises(ConfigError, match="unknown language"):
        load_dataset(tmp_path, language="x")


_QUESTION = '{"id": "q", "language": "en", "doc_id": "d", "question": "Cats?", "references": %s}'


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("5", "line 1: a question needs doc_id, question, references"),  # was a TypeError
        ("null", "line 1: a question needs doc_id, question, references"),
        (_QUESTION % '"x"', "line 1: references must be a list of"),
        (_QUESTION % "[5]", "line 1: references must be a list of"),
        (_QUESTION % '[{"start": "a", "end": 3}]', "line 1: references must be a list of"),
        (_QUESTION % '[{"start": 0.5, "end": 3}]', "line 1: references must be a list of"),
        (_QUESTION.replace('"Cats?"', "5") % "[]", "line 1: question must be non-empty text"),
        (_QUESTION.replace('"d"', "5") % "[]", "line 1: doc_id must be non-empty text, got 5"),
        (_QUESTION.replace('"en"', "5") % "[]", "line 1: language must be a code such as en"),
    ],
)
def test_a_misshapen_question_line_is_one_line_naming_it(
    tmp_path: Path, line: str, message: str
) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "d.md").write_text("Cats purr.\n\nDogs bark.\n", "utf-8")
    (tmp_path / "questions.jsonl").write_text(line + "\n", "utf-8")
    with pytest.raises(IngestError, match=message) as err:
        load_dataset(tmp_path)
    assert "\n" not in str(err.value)


def _squad(tmp_path: Path, qa: dict, paragraphs: object = None) -> Path:
    import json

    para = {"context": "Cats purr at night.", "qas": [qa]}
    data = {"data": [{"title": "t", "paragraphs": [para] if paragraphs is None else paragraphs}]}
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


_ANSWER = {"text": "purr", "answer_start": 5}


@pytest.mark.parametrize(
    ("qa", "paragraphs", "message"),
    [
        ({"id": "a", "question": "Cats?", "answers": [_ANSWER]}, "x", r"paragraphs must be a list"),
        ({"id": "a", "question": "Cats?", "answers": "purr"}, None, r"qas\[a\]\.answers must be"),
        (
            {"id": "a", "question": "Cats?", "answers": [{"text": "purr", "answer_start": "x"}]},
            None,
            "answer_start must be a whole number, got 'x'",
        ),
        # a missing question was a KeyError, None the query "None"
        ({"id": "a", "answers": [_ANSWER]}, None, "question must be non-empty text, got None"),
        ({"id": "a", "question": None, "answers": [_ANSWER]}, None, "question must be non-empty"),
    ],
)
def test_a_misshapen_squad_entry_is_one_line_naming_it(
    tmp_path: Path, qa: dict, paragraphs: object, message: str
) -> None:
    with pytest.raises(IngestError, match=message) as err:
        load_squad(_squad(tmp_path, qa, paragraphs))
    assert "\n" not in str(err.value)
    ok = {"id": "a", "question": "Cats?", "answers": [{"text": "purr", "answer_start": "5"}]}
    assert [q.query for q in load_squad(_squad(tmp_path, ok)).queries] == ["Cats?"]
