"""Dataset shapes: golden layouts of a small document, and Hypothesis proofs
that every answer offset is carried exactly (same words, whitespace only
where there was whitespace) for random documents and spans."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_core import split_sentences
from jw_eval.bench import DEFAULT_DATASET
from jw_eval.datasets import load_dataset
from jw_eval.datasets.model import BenchDocument, BenchQuery, Dataset
from jw_eval.shapes import (
    ROW_WIDTHS,
    SHAPES,
    WRAP_COLUMN,
    _long_groups,
    check_shape,
    reshape,
    reshape_document,
)
from jw_eval.spans import ExpectedSpan
from jw_rag.errors import ConfigError
from jw_rag.model import Paragraph

REPO = Path(__file__).resolve().parents[2]
BUNDLED = DEFAULT_DATASET
SQUAD = REPO / "tests" / "fixtures" / "eval" / "squad_tiny.json"

P1 = (
    "The soul dies. It is not immortal, says the text in many places and "
    "plainly so at Ezekiel 18:4, where it is written."
)
P2 = "Second  paragraph\nwith a line."
P3 = "¿Muere el alma? Sí."
P4 = "Fourth."
DOC = BenchDocument(
    "d",
    [Paragraph("Heading", id="h", kind="heading"), Paragraph(P1, id="a"), Paragraph(P2),
     Paragraph(P3, id="c"), Paragraph(P4, id="d")],
    "en",
)  # fmt: skip

GOLDEN: dict[str, list[tuple[str | None, str]]] = {
    "joined": [("h-d", "\n".join(["Heading", P1, P2, P3, P4]))],
    "sentences": [
        ("h.1", "Heading"),
        ("a.1", "The soul dies."),
        ("a.2", P1[len("The soul dies. ") :]),
        ("2.1", P2),
        ("c.1", "¿Muere el alma?"),
        ("c.2", "Sí."),
        ("d.1", "Fourth."),
    ],
    "wrapped": [
        ("h", "Heading"),
        (
            "a",
            "The soul dies. It is not immortal, says the text in many places and\n"
            "plainly so at Ezekiel 18:4, where it is written.",
        ),
        ("2", P2),
        ("c", P3),
        ("d", P4),
    ],
    "long": [("h-a", f"Heading {P1}"), ("2-d", f"{P2} {P3} {P4}")],
    "rows": [
        ("h.1", "Heading"),
        # widths in turn: 60 ("Heading"), 90, 120, ...
        (
            "a.1",
            "The soul dies. It is not immortal, says the text in many places and plainly so at Ezekiel",
        ),
        ("a.2", "18:4, where it is written."),
        ("2.1", "Second  paragraph with a line."),
        ("c.1", P3),
        ("d.1", P4),
    ],
}


@pytest.mark.parametrize("shape", SHAPES)
def test_golden_layout_of_a_small_document(shape: str) -> None:
    new, offsets = reshape_document(DOC, shape)
    assert [(p.id, p.text) for p in new.paragraphs] == GOLDEN[shape]
    # each phrase crosses a line break (wrapped, joined), a paragraph break
    # (rows, sentences) or a line break of the source ("paragraph\nwith").
    for phrase in ("and plainly so", "Ezekiel 18:4", "paragraph\nwith", "Heading", "alma? Sí"):
        start = DOC.text.index(phrase)
        a, b = offsets.span(start, start + len(phrase))
        assert new.text[a:b].split() == phrase.split()
    assert new.language == "en" and new.doc_id == "d"


def test_golden_offsets_of_one_span_per_shape() -> None:
    start = DOC.text.index("Ezekiel")  # 9 ("Heading\n\n") + 82
    assert start == 91 and DOC.text[start - 3 : start + 12] == "at Ezekiel 18:4"
    got = {s: reshape_document(DOC, s)[1].span(start - 3, start + 12) for s in SHAPES}
    # joined/long: "Heading" is followed by one character, not two; sentences:
    # "dies. " became "dies.\n\n"; rows: the break after "Ezekiel" is "\n\n"
    # where a space was; wrapped: a space became "\n" (same length).
    assert got == {
        "joined": (87, 102),
        "sentences": (89, 104),
        "wrapped": (88, 103),
        "long": (87, 102),
        "rows": (88, 104),
    }


def test_paragraph_kinds_and_pages_follow_the_first_old_paragraph() -> None:
    doc = BenchDocument(
        "x", [Paragraph("Title", kind="heading", page=3), Paragraph("Body.", page=4)]
    )
    joined, _ = reshape_document(doc, "joined")
    assert joined.paragraphs[0].kind == "p" and joined.paragraphs[0].page == 3
    rows, _ = reshape_document(doc, "rows")
    assert [(p.kind, p.page) for p in rows.paragraphs] == [("heading", 3), ("p", 4)]


def test_unknown_shape_is_one_line_naming_the_shapes() -> None:
    with pytest.raises(ConfigError) as err:
        check_shape("tables")
    assert str(err.value) == (
        "unknown shape 'tables': use one of joined, sentences, wrapped, long, rows"
    )
    with pytest.raises(ConfigError, match="use one of"):
        reshape(Dataset("d", "yaml", {}, []), "Joined")


def test_long_groups_are_two_or_three() -> None:
    assert [_long_groups(n) for n in range(1, 9)] == [
        [1], [2], [3], [2, 2], [2, 3], [2, 2, 2], [2, 3, 2], [2, 3, 3],
    ]  # fmt: skip
    for n in range(2, 200):
        sizes = _long_groups(n)
        assert sum(sizes) == n and set(sizes) <= {2, 3}


# --- Hypothesis: random documents and spans ---------------------------------

_CHARS = st.sampled_from(
    list("abcXYZ.!?¿¡,;:'\"()") + ["Sr.", "e.g.", "3.5", "word", "Ábc", "ÇÃO", "\u200b"]
)
_SPACE = st.sampled_from(
    [" ", " ", " ", "  ", "\n", "\t", "\u00a0", "\u2028", " \n ", "\n\n", "\x1f"]
)
_TOKENS = st.lists(st.one_of(_CHARS, _SPACE, st.text(min_size=1, max_size=12)), max_size=60)
_PARAGRAPH = _TOKENS.map("".join)
_DOCS = st.lists(_PARAGRAPH, min_size=1, max_size=9).map(
    lambda ps: BenchDocument("doc", [Paragraph(p) for p in ps], "en")
)


def _check_document(doc: BenchDocument, shape: str, spans: list[tuple[int, int]]) -> BenchDocument:
    new, offsets = reshape_document(doc, shape)
    old = doc.text
    assert new.text.split() == old.split()  # no word lost, split or joined
    for start, end in spans:
        mapped = offsets.span(start, end)
        if not old[start:end].strip():
            assert mapped is None
            continue
        assert mapped is not None
        a, b = mapped
        assert new.text[a:b].split() == old[start:end].split()
        body = old[start:end].strip()
        assert new.text[a] == body[0] and new.text[b - 1] == body[-1]
    for i, ch in enumerate(old):  # every non-whitespace character has its image
        if not ch.isspace():
            j = offsets(i)
            assert j is not None and new.text[j] == ch
    return new


def _spans(draw: st.DrawFn, n: int) -> list[tuple[int, int]]:
    out = []
    for _ in range(12):
        a = draw(st.integers(0, n))
        out.append((a, draw(st.integers(a, n))))
    return out


@st.composite
def _doc_and_spans(draw: st.DrawFn) -> tuple[BenchDocument, list[tuple[int, int]]]:
    doc = draw(_DOCS)
    return doc, _spans(draw, len(doc.text))


def _has_words(p: Paragraph) -> bool:
    return bool(p.text.split())


@settings(max_examples=120, deadline=None)
@given(_doc_and_spans(), st.sampled_from(SHAPES))
def test_offsets_stay_exact_for_random_documents(
    case: tuple[BenchDocument, list[tuple[int, int]]], shape: str
) -> None:
    doc, spans = case
    _check_document(doc, shape, spans)


@settings(max_examples=80, deadline=None)
@given(_DOCS)
def test_each_shape_has_its_layout(doc: BenchDocument) -> None:
    full = [p for p in doc.paragraphs if _has_words(p)]
    if not full:
        assert reshape_document(doc, "rows")[0] is doc  # nothing to lay out
        return
    joined = _check_document(doc, "joined", [])
    assert len(joined.paragraphs) == 1
    assert all(run.count("\n") <= 1 for run in _whitespace_runs(joined.text))

    sentences = _check_document(doc, "sentences", [])
    assert len(sentences.paragraphs) == sum(len(split_sentences(p.text)) for p in full)

    wrapped = _check_document(doc, "wrapped", [])
    assert [p.text.split() for p in wrapped.paragraphs] == [p.text.split() for p in full]
    for p in wrapped.paragraphs:
        for line in p.text.split("\n"):
            assert len(line) <= WRAP_COLUMN or len(line.split()) <= 1

    long = _check_document(doc, "long", [])
    if len(full) == len(doc.paragraphs):
        assert len(long.paragraphs) == len(_long_groups(len(doc.paragraphs)))

    rows = _check_document(doc, "rows", [])
    for p in rows.paragraphs:
        assert "\n" not in p.text
        assert len(p.text) <= max(ROW_WIDTHS) or len(p.text.split()) == 1


def _whitespace_runs(text: str) -> list[str]:
    import re

    return re.findall(r"\s+", text)


# --- whole datasets ---------------------------------------------------------


def _check_dataset(before: Dataset, after: Dataset) -> None:
    assert [q.id for q in after.queries] == [q.id for q in before.queries]
    assert after.documents.keys() == before.documents.keys()
    for q0, q1 in zip(before.queries, after.queries, strict=True):
        for e0, e1 in zip(q0.expected, q1.expected, strict=True):
            old = before.documents[e0.doc_id].text[e0.start : e0.end]
            new = after.documents[e1.doc_id].text[e1.start : e1.end]
            assert new.split() == old.split() and e1.gain == e0.gain
    assert after.stats["shape_questions_dropped"] == 0


@pytest.mark.parametrize("shape", SHAPES)
def test_bundled_corpus_and_squad_carry_every_answer(shape: str) -> None:
    for path in (BUNDLED, SQUAD):
        ds = load_dataset(path)
        _check_dataset(ds, reshape(ds, shape))


def test_span_without_text_is_dropped_and_counted() -> None:
    doc = BenchDocument("d", [Paragraph("One. Two."), Paragraph("  ")])
    queries = [
        BenchQuery("blank", "q", None, (ExpectedSpan("d", 4, 5),)),
        BenchQuery("half", "q", None, (ExpectedSpan("d", 11, 13), ExpectedSpan("d", 4, 8))),
    ]
    out = reshape(Dataset("t", "yaml", {"d": doc}, queries, {"questions": 2}), "sentences")
    assert [q.id for q in out.queries] == ["half"]
    assert out.queries[0].expected == (ExpectedSpan("d", 6, 9),)  # "Two" in "One.\n\nTwo."
    assert out.stats == {
        "questions": 2,
        "shape_spans_without_text": 2,
        "shape_questions_dropped": 1,
    }


def test_empty_documents_are_left_as_they_are() -> None:
    for doc in (BenchDocument("e", []), BenchDocument("w", [Paragraph(" \n "), Paragraph("")])):
        for shape in SHAPES:
            new, offsets = reshape_document(doc, shape)
            assert new is doc and offsets.span(0, len(doc.text)) is None


def test_a_huge_document_reshapes_in_time() -> None:
    words = [f"word{i % 97}." if i % 13 == 0 else f"Word{i % 89}" for i in range(40_000)]
    paragraphs = [Paragraph(" ".join(words[i : i + 100])) for i in range(0, len(words), 100)]
    doc = BenchDocument("big", paragraphs, "en")
    assert len(doc.text) > 250_000
    for shape in SHAPES:
        t0 = time.perf_counter()
        new, offsets = reshape_document(doc, shape)
        assert time.perf_counter() - t0 < 5.0
        assert new.text.split() == doc.text.split()
        assert offsets.span(len(doc.text) - 10, len(doc.text)) is not None


def test_reshaping_from_threads_gives_the_same_dataset() -> None:
    ds = load_dataset(BUNDLED)
    out: list[Dataset] = []
    threads = [threading.Thread(target=lambda: out.append(reshape(ds, "rows"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    texts = [{d: doc.text for d, doc in r.documents.items()} for r in out]
    spans = [[q.expected for q in r.queries] for r in out]
    assert len(out) == 4 and all(t == texts[0] for t in texts) and all(s == spans[0] for s in spans)


SHARED = REPO.parent / "shared" / "bench-data"


@pytest.mark.parametrize(
    "rel", ["argument", "argument-long", "xquad/xquad.es.json", "faquad/dataset.json", "chroma"]
)
def test_shared_sets_carry_every_answer_in_every_shape(rel: str) -> None:
    path = SHARED / rel
    if not path.exists():
        pytest.skip(f"needs ../shared/bench-data/{rel}")
    ds = load_dataset(path)
    for shape in SHAPES:
        _check_dataset(ds, reshape(ds, shape))
