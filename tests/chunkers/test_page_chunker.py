"""The page chunker: pages as units, the carried sentence flagged as overlap, fallback."""

from __future__ import annotations

import pytest

from jw_rag.chunkers import PageChunker, ParagraphChunker, SemanticChunker, get_chunker
from jw_rag.chunkers.validate import ProvenanceError, check_chunks
from jw_rag.errors import ConfigError
from jw_rag.model import Chunk, Paragraph
from tests.chunkers.chunker_helpers import summary

EN = {"language": "en"}
PAGED = [
    Paragraph("First page opens. Last of page one.", id="a", page=1),
    Paragraph("Page two text. More.", id="b", page=2),
    Paragraph("Cont two.", id="c", page=2),
    Paragraph("Three.", id="d", page=3),
]


def test_one_chunk_per_page_with_the_previous_last_sentence_carried() -> None:
    chunks = get_chunker("page").chunk(PAGED, "d", metadata=EN)
    check_chunks(PAGED, chunks)
    assert summary(chunks, "page", "pages", "overlap", "para_ids") == [
        ("First page opens. Last of page one.", (0, 0, 0, 35), 1, [1], None, ["a"]),
        (
            "Last of page one.\n\nPage two text. More.\n\nCont two.",
            (0, 18, 2, 9),
            2,
            [1, 2],
            {"start_para": 0, "start_char": 18, "end_para": 0, "end_char": 35},
            ["a", "b", "c"],
        ),
        (
            "Cont two.\n\nThree.",
            (2, 0, 3, 6),
            3,
            [2, 3],
            {"start_para": 2, "start_char": 0, "end_para": 2, "end_char": 9},
            ["c", "d"],
        ),
    ]


def test_the_overlap_is_excluded_from_coverage() -> None:
    chunks = PageChunker().chunk(PAGED, "d", metadata=EN)
    unflagged = [Chunk(c.id, c.text, c.source_id, dict(c.metadata)) for c in chunks]
    for c in unflagged:
        c.metadata.pop("overlap", None)
    with pytest.raises(ProvenanceError, match="covered twice|starts before"):
        check_chunks(PAGED, unflagged)


def test_without_overlap_pages_are_disjoint() -> None:
    chunks = PageChunker(overlap=False).chunk(PAGED, "d", metadata=EN)
    check_chunks(PAGED, chunks)
    assert [(c.text, c.metadata["page"], "overlap" in c.metadata) for c in chunks] == [
        ("First page opens. Last of page one.", 1, False),
        ("Page two text. More.\n\nCont two.", 2, False),
        ("Three.", 3, False),
    ]


def test_a_long_page_is_split_and_only_its_first_chunk_carries_overlap() -> None:
    long_page = "Words on page two go on. " * 4  # 99 characters once trimmed
    paras = [
        Paragraph("Intro. Tail sentence.", page=1),
        Paragraph(long_page, page=2),
        Paragraph("Unpaged note.", page=None),  # belongs to page 2
    ]
    chunks = PageChunker(max_chars=60, min_chars=0).chunk(paras, "d", metadata=EN)
    check_chunks(paras, chunks)
    assert summary(chunks, "page", "pages", "overlap") == [
        ("Intro. Tail sentence.", (0, 0, 0, 21), 1, [1], None),
        (
            "Tail sentence.\n\nWords on page two go on. Words on page two go on.",
            (0, 7, 1, 49),
            2,
            [1, 2],
            {"start_para": 0, "start_char": 7, "end_para": 0, "end_char": 21},
        ),
        ("Words on page two go on. Words on page two go on.", (1, 50, 1, 99), 2, [2], None),
        ("Unpaged note.", (2, 0, 2, 13), 2, [2], None),
    ]


def test_a_last_sentence_longer_than_overlap_chars_is_not_carried() -> None:
    paras = [Paragraph("A long closing sentence here.", page=1), Paragraph("Next.", page=2)]
    chunks = PageChunker(overlap_chars=10).chunk(paras, "d", metadata=EN)
    check_chunks(paras, chunks)
    assert [(c.text, c.metadata.get("overlap")) for c in chunks] == [
        ("A long closing sentence here.", None),
        ("Next.", None),
    ]


def test_no_pages_falls_back_to_the_paragraph_rules() -> None:
    paras = ["One paragraph here.", "Another one."]
    chunks = PageChunker(min_chars=0).chunk(paras, "d", metadata=EN)
    check_chunks(paras, chunks)
    assert summary(chunks, "fallback", "page") == [
        ("One paragraph here.", (0, 0, 0, 19), "no_pages", None),
        ("Another one.", (1, 0, 1, 12), "no_pages", None),
    ]


@pytest.mark.parametrize("chunker", [ParagraphChunker(), SemanticChunker()], ids=repr)
def test_every_chunker_carries_pages(chunker: object) -> None:
    paras = [
        Paragraph("Short.", page=4),
        Paragraph("Still short.", page=5),
        Paragraph("A paragraph long enough to end a chunk on its own merits. " * 2, page=5),
        Paragraph("Alone on page six, and long enough to stand by itself here.", page=6),
    ]
    chunks = chunker.chunk(paras, "d", metadata=EN)  # type: ignore[attr-defined]
    check_chunks(paras, chunks)
    assert [c.metadata["pages"] for c in chunks] == [[4, 5], [6]]


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="overlap_chars"):
        PageChunker(overlap_chars=0)
