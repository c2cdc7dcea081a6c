"""Wrong input refused at the edges: languages, text that is really another
kind, chunker input that is not paragraphs; and the one control-character rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_rag.chunkers import get_chunker
from jw_rag.chunkers.embedding_chunker import EmbeddingChunker
from jw_rag.embed.fake import FakeEmbedder
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import (
    ingest_article,
    ingest_jw_library_backup,
    ingest_jwpub,
    ingest_markdown,
    ingest_text,
    load_documents,
    parse_article,
    parse_markdown,
    parse_text,
)
from jw_rag.store import SQLiteStore
from tests.jwpub.jw_formats_builder import zip_bytes

ARTICLE = b"""<!DOCTYPE html><html lang="en"><head><title>T</title></head><body><article>
<h1>Title</h1><p data-pid="1">The first paragraph says something true.</p>
<p data-pid="2">The second paragraph says something else.</p></article></body></html>"""


@pytest.fixture
def sqlite(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "index.sqlite", FakeEmbedder(dim=32))


@pytest.mark.parametrize("language", ["xx", "Klingon", "zz-ZZ", "fr"])
def test_unknown_language_refused_everywhere(tmp_path: Path, sqlite: SQLiteStore, language: str):
    page = tmp_path / "page.html"
    page.write_bytes(ARTICLE)
    with pytest.raises(ConfigError, match=r"unknown language .*use one of en, es, pt, auto"):
        ingest_article(sqlite, page, language=language)
    for ingest in (ingest_jwpub, ingest_jw_library_backup):  # checked before the file is read
        with pytest.raises(ConfigError, match="unknown language"):
            ingest(sqlite, tmp_path / "absent", language=language)
    assert sqlite.stats()["chunks"] == 0


def test_auto_language_detects_from_the_text(tmp_path: Path, sqlite: SQLiteStore) -> None:
    page = tmp_path / "page.html"
    page.write_bytes(ARTICLE.replace(b'lang="en"', b'lang="pt"'))
    assert ingest_article(sqlite, page).language == "pt"  # the page's own declaration
    assert ingest_article(sqlite, page, language="auto").language == "en"  # detected
    assert ingest_article(sqlite, page, language="ES").language == "es"


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (ARTICLE, "article"),
        (b"\n  <html><body><p>x</p></body></html>", "article"),
        (b"<?xml version='1.0'?>\n<!-- c -->\n<html><p>x</p></html>", "article"),
        (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "pdf"),
        (
            zip_bytes({"mimetype": b"application/epub+zip", "META-INF/container.xml": b"<c/>"}),
            "epub",
        ),
        (zip_bytes({"manifest.json": b"{}", "contents": b"PK"}), "jwpub"),
        (zip_bytes({"manifest.json": b"{}", "userData.db": b"SQLite format 3\x00"}), "backup"),
    ],
)
def test_text_ingest_refuses_other_kinds_naming_them(
    tmp_path: Path, sqlite: SQLiteStore, data: bytes, kind: str
) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(data)
    with pytest.raises(
        IngestError, match=rf"ingest it as {kind} \(`jw rag ingest {kind} \.\.\.`\)"
    ):
        ingest_text(sqlite, path)
    assert sqlite.stats()["chunks"] == 0


def test_text_ingest_refuses_other_zip_and_keeps_prose(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(zip_bytes({"a.txt": b"hello"}))
    with pytest.raises(IngestError, match="is a ZIP archive, not text; unpack it"):
        parse_text(path)
    path.write_text("Use <b> for bold, <html> for pages.\n\n%PDF is a signature.\n", "utf-8")
    assert [p.text for p in parse_text(path).paragraphs][1] == "%PDF is a signature."


def test_load_documents_names_the_kind_for_a_jwpub_without_extension(tmp_path: Path) -> None:
    path = tmp_path / "publication"
    path.write_bytes(zip_bytes({"manifest.json": b"{}", "contents": b"PK"}))
    with pytest.raises(IngestError, match=r"is a JWPUB.*`jw rag ingest jwpub \.\.\.`"):
        load_documents(path)


OFFLINE_CHUNKERS = ["paragraph", "semantic", "structure", "page", "parent-child"]
DOC = "The first paragraph is here.\nIts second line.\n\n  \nSecond paragraph, alone.\r\n\r\nThird."


@pytest.mark.parametrize("name", OFFLINE_CHUNKERS)
def test_chunk_takes_a_string_as_one_document(name: str) -> None:
    chunker = get_chunker(name)
    blocks = [
        "The first paragraph is here.\nIts second line.",
        "Second paragraph, alone.",
        "Third.",
    ]
    got = chunker.chunk(DOC, "d", metadata={"language": "en"})
    want = chunker.chunk(blocks, "d", metadata={"language": "en"})
    assert [(c.text, c.metadata["span"]) for c in got] == [
        (c.text, c.metadata["span"]) for c in want
    ]
    assert max(c.span.end_para for c in got) == 2  # three paragraphs, not one per character


def test_embedding_chunker_takes_a_string_too() -> None:
    chunker = EmbeddingChunker(embedder=FakeEmbedder(dim=16), min_chars=0)
    got = chunker.chunk(DOC, "d", metadata={"language": "en"})
    assert max(c.span.end_para for c in got) == 2


@pytest.mark.parametrize("name", [*OFFLINE_CHUNKERS, "embedding"])
@pytest.mark.parametrize("bad", [b"bytes are not text", 42, {"text": "a mapping"}, None])
def test_chunk_refuses_other_input_in_one_line(name: str, bad: object) -> None:
    chunker = (
        EmbeddingChunker(embedder=FakeEmbedder(dim=16))
        if name == "embedding"
        else get_chunker(name)
    )
    with pytest.raises(TypeError, match=r"^paragraphs must be a str \(one document\)") as info:
        chunker.chunk(bad, "d")  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


# -- control characters -----------------------------------------------------

_FILLER = "Plain words fill the first four kibibytes of this file. " * 80  # > 4 KiB
_CONTROLS = "".join(chr(c) for c in range(32) if chr(c) not in "\t\n\r")


def _assert_clean(texts: list[str]) -> None:
    assert texts and not any(ch in t for t in texts for ch in _CONTROLS)


def test_nul_after_the_first_4kib_is_removed_for_every_text_kind(tmp_path: Path) -> None:
    late = f"{_FILLER}\n\nA NUL\x00 here, a bell\x07 and an escape\x1b there.\n"
    (tmp_path / "t.txt").write_text(late, "utf-8")
    (tmp_path / "m.md").write_text("# Heading\n\n" + late + "\n## Late\x07 head\n\nx\n", "utf-8")
    html = f"<html><body><article><p>{_FILLER}</p><p>Tab\there\x00 NUL\x0b.</p></article></body></html>"
    (tmp_path / "a.html").write_text(html, "utf-8")
    for doc in (parse_text(tmp_path / "t.txt"), parse_markdown(tmp_path / "m.md")):
        _assert_clean([p.text for p in doc.paragraphs] + [doc.title])
        assert "A NUL here, a bell and an escape there." in doc.text
    article = parse_article(tmp_path / "a.html")
    _assert_clean([p.text for p in article.paragraphs])
    assert article.paragraphs[-1].text == "Tab here NUL."


def test_nul_text_stored_the_same_by_sqlite(tmp_path: Path, sqlite: SQLiteStore) -> None:
    path = tmp_path / "late.txt"
    path.write_bytes(_FILLER.encode() + b"\n\nEnd\x00 of\x01 file.\n")
    ingest_text(sqlite, path)
    md = tmp_path / "late-notes.md"
    md.write_bytes(b"# T\n\n" + _FILLER.encode() + b"\n\nEnd\x00 of\x01 file.\n")
    ingest_markdown(sqlite, md)
    rows = [r[0] for r in sqlite._conn.execute("SELECT text FROM chunks WHERE chunker != 'window'")]
    _assert_clean(rows)
    assert sum("End of file." in r for r in rows) == 2
