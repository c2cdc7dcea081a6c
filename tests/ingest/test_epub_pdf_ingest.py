"""EPUB chapters (fixtures built with ebooklib) and PDF pages (hand-written PDFs)."""

from __future__ import annotations

import io
import warnings
import zipfile
from pathlib import Path

import pypdf
import pytest
from ebooklib import epub

from jw_rag.errors import IngestError
from jw_rag.ingest import ingest_epub, ingest_pdf, parse_epub, parse_pdf
from jw_rag.ingest.pdf import dehyphenate_join
from jw_rag.model import Paragraph


def make_epub(path: Path) -> Path:
    book = epub.EpubBook()
    book.set_identifier("sample-book-1")
    book.set_title("Sample Handbook")
    book.set_language("es")
    cover = epub.EpubHtml(title="Cover", file_name="cover.xhtml", lang="es")
    cover.content = '<html><body><img src="cover.png" alt=""/></body></html>'
    one = epub.EpubHtml(title="Uno", file_name="text/ch1.xhtml", lang="es")
    one.content = (
        "<html><body><h1>Capítulo uno</h1><p>Primer párrafo del capítulo.<sup>1</sup></p>"
        "<h2>Una sección</h2><p>Segundo párrafo,\n   con saltos.</p></body></html>"
    )
    two = epub.EpubHtml(title="Dos", file_name="text/ch2.xhtml", lang="es")
    two.content = "<html><body><h1>Capítulo dos</h1><ul><li>Un punto.</li></ul></body></html>"
    for item in (cover, one, two):
        book.add_item(item)
    book.toc = [one, two]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = [cover, one, two]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        epub.write_epub(str(path), book)
    return path


def test_epub_chapters_in_spine_order(tmp_path: Path) -> None:
    docs = parse_epub(make_epub(tmp_path / "manual.epub"))
    assert [d.source_id for d in docs] == ["manual/text/ch1", "manual/text/ch2"]
    assert [d.title for d in docs] == ["Capítulo uno", "Capítulo dos"]
    assert {d.language for d in docs} == {"es"}
    assert docs[0].paragraphs == [
        Paragraph("Capítulo uno", heading_path=("Capítulo uno",), kind="heading"),
        Paragraph("Primer párrafo del capítulo.", heading_path=("Capítulo uno",)),
        Paragraph("Una sección", heading_path=("Capítulo uno", "Una sección"), kind="heading"),
        Paragraph("Segundo párrafo, con saltos.", heading_path=("Capítulo uno", "Una sección")),
    ]
    assert docs[1].paragraphs[1] == Paragraph(
        "Un punto.", heading_path=("Capítulo dos",), kind="list"
    )
    assert docs[0].metadata["book_title"] == "Sample Handbook"


def test_ingest_epub_stores_each_chapter(tmp_path: Path, store) -> None:
    results = ingest_epub(store, make_epub(tmp_path / "m.epub"), source_id="libro")
    assert [r.source_id for r in results] == ["libro/text/ch1", "libro/text/ch2"]
    assert all(r.language == "es" and not r.skipped for r in results)
    assert set(store.sources) == {"libro/text/ch1", "libro/text/ch2"}
    again = ingest_epub(store, tmp_path / "m.epub", source_id="libro")
    assert all(r.skipped for r in again)


def test_zip_that_is_not_an_epub(tmp_path: Path, store) -> None:
    path = tmp_path / "fake.epub"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("readme.txt", "hello")
    path.write_bytes(buf.getvalue())
    with pytest.raises(IngestError, match="fake.epub is a zip archive but not an EPUB"):
        ingest_epub(store, path)
    assert store.calls == []


PAGES = [
    [
        (72, 720, "Chapter One", 18),
        (72, 690, "The first line of a para-"),
        (72, 676, "graph continues here."),
        (72, 640, "A second paragraph starts"),
        (72, 626, "after a wider gap."),
        (300, 40, "1"),
    ],
    [(72, 720, "Page two carries on."), (72, 706, "Still the same paragraph."), (300, 40, "2")],
    [(72, 720, "Section Two", 15), (72, 690, "Last words.")],
]


def test_pdf_paragraphs_keep_pages_and_headings(tmp_path: Path, make_pdf) -> None:
    doc = parse_pdf(make_pdf(tmp_path / "guide.pdf", PAGES))
    h1 = ("Chapter One",)
    assert doc.paragraphs == [
        Paragraph("Chapter One", page=1, heading_path=h1, kind="heading"),
        Paragraph("The first line of a paragraph continues here.", page=1, heading_path=h1),
        Paragraph("A second paragraph starts after a wider gap.", page=1, heading_path=h1),
        Paragraph("Page two carries on. Still the same paragraph.", page=2, heading_path=h1),
        Paragraph("Section Two", page=3, heading_path=(*h1, "Section Two"), kind="heading"),
        Paragraph("Last words.", page=3, heading_path=(*h1, "Section Two")),
    ]
    assert doc.title == "Chapter One" and doc.metadata["pages"] == 3


def test_ingest_pdf_chunks_carry_pages(tmp_path: Path, store, make_pdf) -> None:
    result = ingest_pdf(store, make_pdf(tmp_path / "g.pdf", PAGES), language="en")
    assert result.language == "en"
    pages = sorted({p for c in store.sources["g"] for p in c.metadata["pages"]})
    assert pages == [1, 2, 3]


def test_dehyphenate_join() -> None:
    assert dehyphenate_join(["a well-", "known co-", "Author"]) == "a wellknown co- Author"
    assert dehyphenate_join(["page 12-", "13 here"]) == "page 12- 13 here"


def test_encrypted_pdf_is_refused(tmp_path: Path, store, make_pdf) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", PAGES[:1])
    writer = pypdf.PdfWriter(clone_from=str(plain))
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as fh:
        writer.write(fh)
    with pytest.raises(IngestError, match=r"locked\.pdf is encrypted"):
        ingest_pdf(store, locked)
    assert store.calls == []


def test_pdf_without_text(tmp_path: Path, make_pdf) -> None:
    with pytest.raises(IngestError, match="no extractable text"):
        parse_pdf(make_pdf(tmp_path / "scan.pdf", [[]]))
