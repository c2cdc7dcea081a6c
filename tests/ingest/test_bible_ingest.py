"""Bible chapters: verse ids, the accepted shapes, per-verse chunking."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_rag.chunkers import get_chunker
from jw_rag.errors import IngestError
from jw_rag.ingest import book_slug, chunk_document, ingest_bible_chapter, parse_bible_chapter
from jw_rag.model import rebuild_text


def _verses(doc) -> list[tuple[str, str]]:
    return [(p.id, p.text) for p in doc.paragraphs]


def test_wol_ids_give_book_chapter_and_join_parts(fixtures: Path) -> None:
    doc = parse_bible_chapter(fixtures / "john-3.html")
    assert doc.source_id == "john:3"
    assert doc.language == "en"
    assert doc.metadata["book"] == "john" and doc.metadata["chapter"] == 3
    assert _verses(doc) == [
        ("john:3:1", "Sample verse one introduces a man named Nicodemus."),
        ("john:3:2", "He came at night and spoke with quiet respect."),
        ("john:3:3", "In reply, a short answer was given."),
    ]
    assert {p.kind for p in doc.paragraphs} == {"verse"}


def test_plain_text_one_verse_per_line(fixtures: Path) -> None:
    doc = parse_bible_chapter(fixtures / "psalm-23.txt", book="Psalms")
    assert doc.source_id == "psalms:23"  # chapter from the heading line, book from the caller
    assert doc.title == "Psalm 23"
    assert _verses(doc) == [
        ("psalms:23:1", "Sample line one of a short psalm."),
        ("psalms:23:2", "Sample line two, which the editor wrapped onto a second line."),
        ("psalms:23:3", "Sample line three ends the excerpt."),
    ]


def test_sup_markers_and_verse_spans(tmp_path: Path) -> None:
    markers = tmp_path / "chapter.html"
    markers.write_text(
        "<html><body><h1>1 Juan 4</h1><p><sup>7</sup> Texto de muestra siete."
        "<sup>8</sup> Texto <i>de</i> muestra ocho.</p><p><sup>9</sup> Nueve.</p></body></html>",
        encoding="utf-8",
    )
    doc = parse_bible_chapter(markers)
    assert doc.source_id == "1-juan:4"
    assert _verses(doc) == [
        ("1-juan:4:7", "Texto de muestra siete."),
        ("1-juan:4:8", "Texto de muestra ocho."),
        ("1-juan:4:9", "Nueve."),
    ]
    spans = tmp_path / "spans.html"
    spans.write_text(
        '<html><body><span class="verse" data-verse="1">Um.</span>'
        '<span class="verse"><sup>2</sup> Dois.</span><span class="verse">3 Três.</span></body></html>',
        encoding="utf-8",
    )
    doc = parse_bible_chapter(spans, book="Gênesis", chapter=2)
    assert _verses(doc) == [
        ("genesis:2:1", "Um."),
        ("genesis:2:2", "Dois."),
        ("genesis:2:3", "Três."),
    ]


def test_book_slug() -> None:
    assert book_slug("1 John") == "1-john"
    assert book_slug("Génesis") == "genesis"
    assert book_slug("Song of Solomon") == "song-of-solomon"


def test_chapter_from_url(fixtures: Path, http_base: str, store) -> None:
    doc = parse_bible_chapter(f"{http_base}/john-3.html")
    assert [p.id for p in doc.paragraphs] == ["john:3:1", "john:3:2", "john:3:3"]
    assert ingest_bible_chapter(store, f"{http_base}/john-3.html").source_id == "john:3"


def test_no_chunk_spans_two_verses_and_links_cover_the_chapter(fixtures: Path, store) -> None:
    result = ingest_bible_chapter(store, fixtures / "john-3.html", chunker="semantic")
    chunks = store.sources["john:3"]
    assert result.chunks == 3 == len(chunks)  # short verses would merge if chunked together
    doc = parse_bible_chapter(fixtures / "john-3.html")
    assert [c.metadata["para_ids"] for c in chunks] == [["john:3:1"], ["john:3:2"], ["john:3:3"]]
    assert [c.metadata["chunk_index"] for c in chunks] == [0, 1, 2]
    assert [c.metadata["prev_id"] for c in chunks] == [None, chunks[0].id, chunks[1].id]
    assert [c.metadata["next_id"] for c in chunks] == [chunks[1].id, chunks[2].id, None]
    assert len({c.id for c in chunks}) == 3
    for c in chunks:
        assert rebuild_text(doc.paragraphs, c.metadata["span"]) == c.text
        assert c.metadata["chunker"] == "semantic" and c.metadata["language"] == "en"


def test_over_long_verse_still_splits(tmp_path: Path) -> None:
    text = tmp_path / "long-1.txt"
    long_verse = " ".join(f"Sentence number {i} is here." for i in range(12))
    text.write_text(f"1 Short one.\n2 {long_verse}\n3 Short three.\n", encoding="utf-8")
    doc = parse_bible_chapter(text)
    chunks = chunk_document(doc, chunker=get_chunker("paragraph", max_chars=100, min_chars=10))
    ids = [c.metadata["para_ids"] for c in chunks]
    assert ids[0] == ["long:1:1"] and ids[-1] == ["long:1:3"]
    middle = chunks[1:-1]
    assert len(middle) >= 3 and all(c.metadata["para_ids"] == ["long:1:2"] for c in middle)
    assert all(len(c.text) <= 100 for c in chunks)
    assert " ".join(c.text for c in middle) == long_verse
    assert [c.metadata["chunk_index"] for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert rebuild_text(doc.paragraphs, c.metadata["span"]) == c.text


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("<html><body><p>No verse numbers here.</p></body></html>", "no verses found"),
        ("Just a line of prose.\nAnother line.\n", "no verses found"),
        ("1 One.\n1 One again.\n", "verse 1 appears twice"),
    ],
)
def test_bad_chapters(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "x-1.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(IngestError, match=match):
        parse_bible_chapter(path)


def test_unknown_book_and_chapter_needs_the_caller(tmp_path: Path) -> None:
    path = tmp_path / "verses.txt"
    path.write_text("1 One.\n2 Two.\n", encoding="utf-8")
    with pytest.raises(IngestError, match="pass book= and chapter="):
        parse_bible_chapter(path)
    assert parse_bible_chapter(path, book="Ruth", chapter=1).source_id == "ruth:1"


def test_html_fragment_without_html_element(tmp_path: Path) -> None:
    path = tmp_path / "ruth-2.html"
    path.write_text(
        "<span><sup>1</sup> Uno.</span> <span><sup>2</sup> Dos.</span>", encoding="utf-8"
    )
    assert _verses(parse_bible_chapter(path)) == [("ruth:2:1", "Uno."), ("ruth:2:2", "Dos.")]
