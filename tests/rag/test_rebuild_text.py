"""rebuild_text: the exact text a span designates."""

from __future__ import annotations

from jw_rag.chunkers import SemanticChunker
from jw_rag.model import Span, rebuild_text


def test_whitespace_at_the_joins_is_left_out() -> None:
    paras = ["First one.  ", "   ", "  Middle. ", "  However, last one."]
    span = Span(start_para=0, start_char=0, end_para=3, end_char=len(paras[3]))
    assert rebuild_text(paras, span) == "First one.\n\nMiddle.\n\nHowever, last one."


def test_single_paragraph_span_is_a_slice() -> None:
    assert rebuild_text(["  abc def  "], Span(0, 2, 0, 5)) == "abc"


def test_a_packed_chunk_never_passes_its_cap_when_paragraphs_are_indented() -> None:
    # Regression: the last paragraph's leading spaces used to be counted in the
    # text but not in the size budget, so the chunk came out 2 chars over.
    paras = [
        "",
        "",
        "Inmortal. Alma hombre alma alma  creen. Alma alma Jehová verdad... Hombre! Alma  del  alma.” El alma verdad.",
        "Inmortal. Inmortal.” El Jehová alma. Alma Jehová Jehová.",
        "  Sin embargo, Alma alma... Inmortal 3:16.” El el el del alma alma 3:16 creen creen. El del Jehová "
        "Jehová  verdad. Alma inmortal creen. El el el alma inmortal inmortal alma Jehová  el  personas.",
    ]
    chunker = SemanticChunker(max_chars=300, min_chars=80, target_chars=250, overflow=0.2)
    for chunk in chunker.chunk(paras, "d", metadata={"language": "es"}):
        assert len(chunk.text) <= chunker.cap
        assert chunk.text == rebuild_text(paras, chunk.metadata["span"])
