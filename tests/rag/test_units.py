"""Retrieval units (jw_rag.units): golden cases for each rule, invariants for any text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag._lines import MAX_WRAP
from jw_rag.chunker import chunk_paragraphs
from jw_rag.errors import ConfigError
from jw_rag.ingest._html import clean_lines
from jw_rag.model import Chunk, Paragraph, Span, rebuild_text
from jw_rag.units import DEFAULT_UNITS, NO_UNITS, UnitRules, passages


def _sentences(n: int, word: str = "argument") -> str:
    return " ".join(
        f"Sentence {i} makes one more point about the {word} at hand." for i in range(n)
    )


def _units(paras: list, rules: UnitRules = DEFAULT_UNITS) -> list[Chunk]:
    return passages(chunk_paragraphs(paras, "s"), paras, rules)


def test_long_paragraph_cut_into_balanced_passages_at_sentence_ends() -> None:
    para = _sentences(20)  # 20 sentences of ~58 characters
    units = _units([para])
    assert [len(u.text) for u in units] == [599, 609]
    assert all(u.text.endswith(".") for u in units)
    assert [u.metadata["unit"] for u in units] == ["passage", "passage"]
    assert [u.metadata["para_ids"] for u in units] == [[0], [0]]
    assert units[0].metadata["next_id"] == units[1].id
    assert units[1].metadata["prev_id"] == units[0].id


def test_medium_chunks_are_kept_as_the_chunker_made_them() -> None:
    paras = [_sentences(5), _sentences(6)]
    chunks = chunk_paragraphs(paras, "s")
    assert passages(chunks, paras) == chunks
    assert all(a is b for a, b in zip(passages(chunks, paras), chunks, strict=True))


def test_runs_of_short_rows_are_grouped_up_to_the_passage_size() -> None:
    rows = [f"Row {i}: revenue {i * 100} and cost {i * 40}." for i in range(30)]
    units = _units(rows)
    assert all(len(u.text) <= 500 for u in units)
    assert len(units) < len(rows) / 5
    assert [pid for u in units for pid in u.metadata["para_ids"]] == list(range(30))
    assert units[0].metadata["unit"] == "grouped"


def test_a_group_never_crosses_a_heading_or_a_page_break() -> None:
    paras = [
        Paragraph("Alpha row one.", heading_path=("A",), page=1),
        Paragraph("Alpha row two.", heading_path=("A",), page=1),
        Paragraph("Beta row one.", heading_path=("B",), page=1),
        Paragraph("Beta row two.", heading_path=("B",), page=2),
    ]
    chunks = [
        Chunk(f"s:{i}", p.text, "s", {
            "span": Span(i, 0, i, len(p.text)).to_dict(), "para_ids": [i],
            "heading_path": list(p.heading_path), "pages": [p.page], "merge_reason": None,
        })
        for i, p in enumerate(paras)
    ]  # fmt: skip
    units = passages(chunks, paras)
    assert [u.text for u in units] == [
        "Alpha row one.\n\nAlpha row two.",
        "Beta row one.",
        "Beta row two.",
    ]
    assert units[0].metadata["pages"] == [1]


def test_line_structured_block_is_cut_at_line_breaks() -> None:
    block = "\n".join(f"[10:{i:02d}] ana: message number {i} in the chat log" for i in range(40))
    units = _units([block], DEFAULT_UNITS)
    assert len(units) >= 3
    for u in units:
        assert u.text.startswith("[10:") and u.text.endswith("chat log")


def test_paragraphs_on_lines_of_their_own_are_cut_as_paragraphs_would_be() -> None:
    # text with no blank line (text extracted without paragraph breaks): a line
    # longer than split_above is a paragraph of its own, cut into passages that
    # never run across its line breaks; the shorter lines between are packed
    lines = [_sentences(12), _sentences(22), _sentences(5), _sentences(4)]
    assert [len(line) for line in lines] == [721, 1331, 299, 239]
    units = _units(["\n".join(lines)])
    assert [u.text for u in units[:1] + units[4:]] == [lines[0], f"{lines[2]}\n{lines[3]}"]
    assert " ".join(u.text for u in units[1:4]) == lines[1]  # as a 1,331-character paragraph
    assert [len(u.text) for u in units[1:4]] == [419, 484, 426]
    assert all(u.metadata["unit"] == "passage" for u in units)


def test_a_heading_line_goes_with_the_paragraph_after_it() -> None:
    heading, body, tail = "= Gameplay =", _sentences(22), _sentences(12)
    units = _units(["\n".join([_sentences(12), heading, body, tail])])
    assert units[1].text.startswith(f"{heading}\n{body[:40]}")
    assert " ".join(u.text for u in units[1:-1]) == f"{heading}\n{body}"
    assert units[-1].text == tail


def test_hard_wrapped_prose_is_read_as_sentences_not_lines() -> None:
    words = _sentences(20).split(" ")  # ~1,200 characters: more than split_above
    lines, line = [], ""
    for w in words:
        if len(line) + len(w) + 1 > 72:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    lines.append(line)
    wrapped = "\n".join(lines)
    units = _units([wrapped])
    assert len(units) == 2
    assert all(u.text.endswith(".") for u in units)


def test_text_without_any_boundary_is_cut_at_spaces() -> None:
    para = " ".join(["word"] * 500)  # 2,499 characters, no sentence end
    units = _units([para])
    assert len(units) >= 4
    assert all(not u.text.startswith(" ") and not u.text.endswith(" ") for u in units)
    assert " ".join(u.text for u in units) == " ".join(
        c.text for c in chunk_paragraphs([para], "s")
    )


def test_text_without_spaces_is_cut_at_the_passage_size() -> None:
    para = "x" * 5000
    units = _units([para])
    lengths = [len(u.text) for u in units]
    assert lengths[:8] == [500] * 8 and max(lengths) <= DEFAULT_UNITS.split_above
    assert "".join(u.text for u in units) == para


def test_a_huge_paragraph_is_cut_in_linear_time() -> None:
    import time

    small, large = _sentences(2_000), _sentences(16_000)  # ~120 kB and ~1 MB
    took = []
    for para in (small, large):
        times = []
        for _ in range(3):  # the fastest of three: a busy machine slows single runs at random
            start = time.perf_counter()
            units = _units([para])
            times.append(time.perf_counter() - start)
        took.append(min(times))
        assert max(len(u.text) for u in units) <= DEFAULT_UNITS.split_above
    assert took[1] / took[0] < 24, took  # 8x the text: ~8x when linear, 64x when quadratic


def test_a_long_paragraph_leaves_no_oversized_last_passage() -> None:
    # sentences of uneven length (~70 characters): each passage used to end a
    # little short of its share and the shortfall piled up in the last one
    # (68 kB gave a last passage of 1,354 characters, 10 MB one of 190,000)
    import random

    rng = random.Random(1)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    para = " ".join(" ".join(rng.choice(words) for _ in range(12)) + "." for _ in range(1000))
    units = _units([para])
    assert max(len(u.text) for u in units) <= DEFAULT_UNITS.split_above
    assert " ".join(u.text for u in units) == para


def test_argued_merges_are_never_cut() -> None:
    text = _sentences(20)
    chunk = Chunk("s:0", text, "s", {
        "span": Span(0, 0, 0, len(text)).to_dict(), "para_ids": [0],
        "merge_reason": "continuation_marker",
    })  # fmt: skip
    assert passages([chunk], [text]) == [chunk]


def test_chunks_whose_text_is_not_their_span_are_kept() -> None:
    text = _sentences(20)
    chunk = Chunk("s:0", "Heading\n" + text, "s", {
        "span": Span(0, 0, 0, len(text)).to_dict(), "para_ids": [0], "merge_reason": None,
    })  # fmt: skip
    assert passages([chunk], [text]) == [chunk]


def test_no_units_keeps_the_chunks() -> None:
    paras = [_sentences(30), "tiny", "tiny too"]
    chunks = chunk_paragraphs(paras, "s")
    assert passages(chunks, paras, NO_UNITS) == chunks


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"passage_chars": -1}, "passage_chars must be an integer >= 0"),
        ({"passage_chars": "500"}, "passage_chars must be an integer >= 0"),
        ({"split_above": 100}, "split_above (100) must be >= passage_chars"),
        ({"group_below": 900}, "group_below (900) must be <= passage_chars"),
        ({"window_chars": True}, "window_chars must be an integer >= 0"),
    ],
)
def test_bad_rules_are_one_line_errors(options: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        UnitRules(**options)


def test_passage_chars_zero_alone_turns_units_off() -> None:
    # as the UnitRules docstring says; it was refused for the default group_below
    rules = UnitRules(passage_chars=0)
    assert not rules.active
    paras = [_sentences(30), "tiny", "tiny too"]
    chunks = chunk_paragraphs(paras, "s")
    assert passages(chunks, paras, rules) == chunks


def test_rules_identity_names_every_value() -> None:
    assert DEFAULT_UNITS.identity() == "u200.500.1.1100.3000.2000"
    assert UnitRules(passage_chars=400, split_above=600).identity() != DEFAULT_UNITS.identity()
    # a prefix weight is named; weight 0 (the default) names the rules as before it existed
    assert UnitRules(prefix_weight=0.3).identity() == "u200.500.1.1100.3000.2000.t0.3"
    assert UnitRules(prefix_weight=0.5).identity() != UnitRules(prefix_weight=0.3).identity()


_word = st.text(alphabet="abcdefghij", min_size=1, max_size=12)
_sentence = st.builds(
    lambda ws, end: " ".join(ws).capitalize() + end,
    st.lists(_word, min_size=1, max_size=30),
    st.sampled_from([".", "!", "?", "", ":"]),
)
_paragraph = st.builds(
    lambda ss, sep: sep.join(ss), st.lists(_sentence, min_size=1, max_size=40),
    st.sampled_from([" ", "\n", "  "]),
)  # fmt: skip
_rules = st.builds(
    lambda p, extra, g, w: UnitRules(passage_chars=p, split_above=p + extra, group_below=min(g, p),
                                     window_chars=w),
    st.integers(50, 800), st.integers(0, 600), st.integers(0, 300), st.just(2000),
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(paras=st.lists(_paragraph, min_size=1, max_size=12), rules=_rules)
def test_units_cover_the_chunks_exactly_in_order(paras: list[str], rules: UnitRules) -> None:
    _check_units_cover(paras, rules)


_line = st.one_of(
    _sentence,
    st.builds(" ".join, st.lists(_word, min_size=8, max_size=16)),  # a wrap-width line
    st.sampled_from(
        ["- item one", "2. second", "| a | b |", "Ana: hi", "[10:01] ok", "  indented"]
    ),
    st.just(""),
)
#: Paragraphs as the text reader lays them out: its lines of their own kept, wraps joined.
_read_paragraph = st.lists(_line, min_size=1, max_size=30).map(
    lambda lines: clean_lines("\n".join(lines))
)


@settings(max_examples=150, deadline=None)
@given(paras=st.lists(_read_paragraph, min_size=1, max_size=8), rules=_rules)
def test_units_of_the_readers_line_layout_cover_the_chunks_exactly(
    paras: list[str], rules: UnitRules
) -> None:
    paras = [p for p in paras if p.strip()] or ["x"]
    _check_units_cover(paras, rules)


def _check_units_cover(paras: list[str], rules: UnitRules) -> None:
    chunks = chunk_paragraphs(paras, "s")
    units = passages(chunks, paras, rules)
    # every unit's text is exactly the source text its span designates
    for u in units:
        assert rebuild_text(paras, u.metadata["span"]) == u.text
        assert u.text.strip()

    # units are in reading order, do not overlap, and cover every chunk's characters
    def key(s: Span, end: bool) -> tuple[int, int]:
        return (s.end_para, s.end_char) if end else (s.start_para, s.start_char)

    for a, b in zip(units, units[1:], strict=False):
        assert key(a.span, True) <= key(b.span, False)
    assert "".join("".join(c.text.split()) for c in chunks) == "".join(
        "".join(u.text.split()) for u in units
    )
    # ids are unique and the chain links them in order
    assert len({u.id for u in units}) == len(units)
    for i, u in enumerate(units):
        assert u.metadata["prev_id"] == (units[i - 1].id if i else None)
        assert u.metadata["next_id"] == (units[i + 1].id if i + 1 < len(units) else None)
    # a unit made here is never longer than the chunk it came from allows
    for u in units:
        if u.metadata.get("unit") == "grouped":
            assert len(u.text) <= rules.passage_chars


def test_page_chunks_with_a_carried_sentence_give_each_passage_once(tmp_path) -> None:
    # the page chunker starts a page's first chunk with the previous page's
    # last sentence; cut into passages, that sentence came out twice with one
    # id and the store refused the PDF ("chunk id ... appears twice")
    import random

    from jw_rag.embed import FakeEmbedder
    from jw_rag.ingest import ingest_documents
    from jw_rag.ingest.pipeline import chunk_document
    from jw_rag.model import Document
    from jw_rag.store import SQLiteStore

    rng = random.Random(1)
    words = "the a of argument reason claim evidence because therefore however people".split()

    def sentence(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n)).capitalize() + "."

    found = 0
    for _ in range(300):
        paras = [
            Paragraph(
                " ".join(sentence(rng.randint(3, 60)) for _ in range(rng.randint(1, 25))), page=page
            )  # fmt: skip
            for page in range(1, rng.randint(2, 6))
            for _ in range(rng.randint(1, 4))
        ]
        doc = Document("f", paras, title="t")
        units = chunk_document(doc, chunker="page")
        assert len({u.id for u in units}) == len(units)
        spans = [(u.span.start_para, u.span.start_char, u.span.end_para, u.span.end_char)
                 for u in units]  # fmt: skip
        assert len(set(spans)) == len(spans)  # no passage twice
        for u in units:
            assert u.text == rebuild_text(paras, u.span) and u.text.strip()
            carried = u.metadata.get("overlap")
            assert not carried or (carried["start_para"], carried["start_char"]) == (
                u.span.start_para, u.span.start_char
            )  # fmt: skip
        found += any(u.metadata.get("overlap") for u in chunk_document(doc, chunker="page"))
    assert found  # the fixture does carry sentences over pages
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    try:
        [result] = ingest_documents(store, [doc], chunker="page")
        assert store.stats()["chunks"] == result.chunks
    finally:
        store.close()


_own_line = st.lists(_sentence, min_size=1, max_size=25).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(_own_line, min_size=2, max_size=10), rules=_rules)
def test_no_passage_runs_across_the_end_of_a_paragraph_on_a_line_of_its_own(
    lines: list[str], rules: UnitRules
) -> None:
    block = "\n".join(lines)
    _check_units_cover([block], rules)
    units = passages(chunk_paragraphs([block], "s"), [block], rules)
    own, ends, pos = [], [], 0
    for i, line in enumerate(lines):
        after_a_wrap = i > 0 and len(lines[i - 1]) <= MAX_WRAP  # the break before may be a wrap
        own.append(len(line) > max(rules.split_above, MAX_WRAP) and not after_a_wrap)
        ends.append(pos + len(line))
        pos += len(line) + 1
    # a long line followed, later in the block, by another long line ends a passage
    edges = [ends[i] for i in range(len(lines)) if own[i] and any(own[i + 1 :])]
    for u in units:
        a, b = u.span.start_char, u.span.end_char
        assert not any(a < edge < b for edge in edges), (a, b, edges)


def test_a_huge_one_line_paragraph_is_cut_in_time_linear_in_its_size() -> None:
    # each passage's paragraph ids checked the whole paragraph for text: a
    # 4 MB line took ~14 times as long as a 1 MB one, not ~4
    import time

    def seconds(size: int) -> float:
        text = "word " * (size // 5)
        chunks = chunk_paragraphs([text], "s")
        times = []
        for _ in range(2):  # the faster of two: a busy machine slows one run, not both
            start = time.perf_counter()
            passages(chunks, [text])
            times.append(time.perf_counter() - start)
        return min(times)

    seconds(200_000)  # warm up
    assert seconds(4_000_000) < 8 * seconds(1_000_000)
