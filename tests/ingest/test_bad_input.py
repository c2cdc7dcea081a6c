"""Bad input: a one-line IngestError naming the file, and the store left unchanged."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from jw_rag.errors import IngestError
from jw_rag.ingest import (
    ingest_article,
    ingest_bible_chapter,
    ingest_epub,
    ingest_markdown,
    ingest_pdf,
    ingest_text,
    load_documents,
)


def _zip_bytes() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("a.txt", "not a book")
    return buf.getvalue()


CASES: list[tuple[str, str, bytes | None, Callable, str]] = [
    ("empty-html", "page.html", b"", ingest_article, "is empty"),
    ("blank-html", "page.html", b"  \n\t ", ingest_article, "is empty"),
    (
        "no-paragraphs",
        "page.html",
        b"<html><body><div></div></body></html>",
        ingest_article,
        "no paragraphs found",
    ),
    (
        "binary-html",
        "page.html",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20,
        ingest_article,
        "binary data",
    ),
    (
        "cp1252-html",
        "page.html",
        "<p>Canción</p>".encode("cp1252"),
        ingest_article,
        "iconv -f cp1252",
    ),
    ("missing-file", "absent.html", None, ingest_article, "no such file"),
    (
        "cp1252-text",
        "notes.txt",
        "Coração e canção\n".encode("cp1252"),
        ingest_text,
        "looks like cp1252",
    ),
    (
        "unknown-8bit",
        "notes.txt",
        b"abc \x81\x8d\x8f\x90\x9d end",
        ingest_text,
        "encoding is unknown",
    ),
    ("binary-text", "notes.txt", b"\x00\x01\x02\x03" * 50, ingest_text, "binary data"),
    ("empty-text", "notes.txt", b"\n\n", ingest_text, "is empty"),
    ("empty-markdown", "a.md", b"", ingest_markdown, "is empty"),
    ("not-a-pdf", "doc.pdf", b"hello, I am text", ingest_pdf, "not a PDF"),
    ("broken-pdf", "doc.pdf", b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog", ingest_pdf, "broken PDF"),
    ("zip-not-epub", "book.epub", _zip_bytes(), ingest_epub, "not an EPUB"),
    ("not-a-zip", "book.epub", b"plain text, not a zip", ingest_epub, "not a zip archive"),
    ("bible-binary", "john-3.html", b"\x00\xff" * 100, ingest_bible_chapter, "binary data"),
    ("bible-empty", "john-3.txt", b"", ingest_bible_chapter, "is empty"),
]


@pytest.mark.parametrize(
    ("name", "data", "ingest", "match"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_bad_input_leaves_store_unchanged(
    tmp_path: Path, store, name: str, data: bytes | None, ingest: Callable, match: str
) -> None:
    path = tmp_path / name
    if data is not None:
        path.write_bytes(data)
    before = dict(store.sources)
    with pytest.raises(IngestError) as err:
        ingest(store, path)
    message = str(err.value)
    assert match in message
    assert str(path) in message
    assert "\n" not in message
    assert store.calls == [] and store.sources == before


def test_failed_reingest_keeps_previous_chunks(fixtures: Path, tmp_path: Path, store) -> None:
    page = tmp_path / "article.html"
    page.write_bytes((fixtures / "article_en.html").read_bytes())
    ingest_article(store, page)
    kept = list(store.sources["article"])
    page.write_bytes(b"")
    with pytest.raises(IngestError):
        ingest_article(store, page)
    assert store.sources["article"] == kept


def test_directory_and_unknown_kind(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="is a directory"):
        ingest_text(None, tmp_path)  # type: ignore[arg-type]
    with pytest.raises(IngestError, match="no supported files"):
        load_documents(tmp_path)
    with pytest.raises(ValueError, match="valid kinds"):
        load_documents(tmp_path, kind="docx")
