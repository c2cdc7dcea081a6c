"""Markdown and plain text: exact structure on small files, invariants on generated ones."""

from __future__ import annotations

import textwrap
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.chunkers import get_chunker
from jw_rag.ingest import ingest_markdown, ingest_text, parse_markdown, parse_text
from jw_rag.model import Paragraph

TOOLS = ("Field Guide", "Tools")


def test_markdown_structure(fixtures: Path) -> None:
    doc = parse_markdown(fixtures / "guide.md")
    assert doc.title == "Field Guide"
    assert doc.paragraphs == [
        Paragraph("Field Guide", heading_path=("Field Guide",), kind="heading"),
        Paragraph("A short introduction that wraps onto two lines.", heading_path=("Field Guide",)),
        Paragraph("Tools", heading_path=TOOLS, kind="heading"),
        Paragraph("- a trowel\n- a notebook\n  with a pencil", heading_path=TOOLS, kind="list"),
        Paragraph("```text\nkeep this\n\nexactly\n```", heading_path=TOOLS, kind="code"),
        Paragraph("Closing Notes", heading_path=("Field Guide", "Closing Notes"), kind="heading"),
        Paragraph("Done for now.", heading_path=("Field Guide", "Closing Notes")),
    ]


def test_markdown_front_matter_rules_and_closing_hashes(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_text(
        '---\ntitle: "Front Title"\ntags: [a]\n---\n\n## Part ##\n\nText.\n\n---\n\n### Deeper\n'
        "\n    indented code\n\nAfter.\n",
        encoding="utf-8",
    )
    doc = parse_markdown(path)
    assert doc.title == "Front Title"
    assert [(p.text, p.kind, p.heading_path) for p in doc.paragraphs] == [
        ("Part", "heading", ("Part",)),
        ("Text.", "p", ("Part",)),
        ("Deeper", "heading", ("Part", "Deeper")),
        ("    indented code", "code", ("Part", "Deeper")),
        ("After.", "p", ("Part", "Deeper")),
    ]


def test_text_paragraphs(fixtures: Path, store) -> None:
    doc = parse_text(fixtures / "notes.txt")
    assert doc.paragraphs == [
        Paragraph("First paragraph of plain notes, wrapped by hand."),
        Paragraph("Second paragraph."),
        Paragraph("Third paragraph after a whitespace-only line."),
    ]
    one_each = get_chunker("paragraph", min_chars=0)
    result = ingest_text(store, fixtures / "notes.txt", language="en", chunker=one_each)
    assert result.source_id == "notes" and result.language == "en"
    # three short paragraphs: one retrieval unit that names all three (jw_rag.units)
    assert [c.metadata["para_ids"] for c in store.sources["notes"]] == [[0, 1, 2]]


def test_ingest_markdown_heading_path_reaches_chunks(fixtures: Path, store) -> None:
    chunker = get_chunker("semantic", min_chars=0)
    ingest_markdown(store, fixtures / "guide.md", chunker=chunker, language="en")
    paths = {tuple(c.metadata.get("heading_path", ())) for c in store.sources["guide"]}
    assert paths == {("Field Guide",), TOOLS}


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzáéíóúñãç", min_size=1, max_size=8)
_PARA = st.lists(_WORD, min_size=1, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(paras=st.lists(_PARA, min_size=1, max_size=15), wrap=st.integers(1, 5))
def test_text_round_trip(tmp_path_factory, paras: list[str], wrap: int) -> None:
    """Paragraphs separated by blank lines come back in order with every word;
    between two of a paragraph's lines there is a space or a line break."""
    blocks = []
    for p in paras:
        words = p.split(" ")
        blocks.append("\n".join(" ".join(words[i : i + wrap]) for i in range(0, len(words), wrap)))
    path = tmp_path_factory.mktemp("rt") / "t.txt"
    path.write_text("\n\n  \n".join(blocks) + "\n", encoding="utf-8")
    assert [p.text.replace("\n", " ") for p in parse_text(path).paragraphs] == paras
    md = path.with_suffix(".md")
    md.write_text("# Head\n\n" + "\n\n".join(blocks), encoding="utf-8")
    doc = parse_markdown(md)
    assert [p.text.replace("\n", " ") for p in doc.paragraphs[1:]] == paras
    assert all(p.heading_path == ("Head",) for p in doc.paragraphs)


@settings(max_examples=60, deadline=None)
@given(paras=st.lists(_PARA, min_size=1, max_size=15), width=st.integers(20, 80))
def test_prose_wrapped_at_a_margin_comes_back_as_flowing_text(
    tmp_path_factory, paras: list[str], width: int
) -> None:
    """Prose hard-wrapped at any margin (each line broken where the next word
    would not fit) comes back exactly as the unwrapped paragraphs."""
    blocks = ["\n".join(textwrap.wrap(p, width, break_long_words=False)) for p in paras]
    path = tmp_path_factory.mktemp("wr") / "t.txt"
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    assert [p.text for p in parse_text(path).paragraphs] == paras
    md = path.with_suffix(".md")
    md.write_text("\n\n".join(blocks), encoding="utf-8")
    assert [p.text for p in parse_markdown(md).paragraphs] == paras
