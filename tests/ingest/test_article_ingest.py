"""wol-style articles: exact parse, URL fetching, ingest through chunkers."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_rag.chunkers import get_chunker
from jw_rag.chunkers.fakes import FakeChunker
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import ingest_article, parse_article
from jw_rag.model import Paragraph, rebuild_text

TITLE = "Why Keep a Garden Journal?"
WRITE = (TITLE, "What to Write Down")
LAYOUT = (*WRITE, "A Simple Layout")
BACK = (TITLE, "Reading It Back")

EXPECTED = [
    Paragraph(TITLE, None, None, (TITLE,), "heading"),
    Paragraph(
        "A journal turns a season of guesses into a record you can learn from.", "1", None, (TITLE,)
    ),
    Paragraph("What to Write Down", None, None, WRITE, "heading"),
    Paragraph(
        "Note the date of each sowing and the weather that week. Proverbs 21:5 observes "
        "that the plans of the diligent lead to success.",
        "2",
        None,
        WRITE,
    ),
    Paragraph(
        "Record what failed as well as what thrived; the failures teach more.", "3", None, WRITE
    ),
    Paragraph("A Simple Layout", None, None, LAYOUT, "heading"),
    Paragraph(
        "One page per bed, one line per visit, is enough for most gardeners.", "4", None, LAYOUT
    ),
    Paragraph("Reading It Back", None, None, BACK, "heading"),
    Paragraph(
        "Each winter, read the whole journal and choose three changes for spring "
        "(compare Luke 14:28).",
        "5",
        None,
        BACK,
    ),
    Paragraph("* A notebook or a spreadsheet serves equally well.", None, None, BACK, "note"),
]


def test_parse_article_exact(fixtures: Path) -> None:
    doc = parse_article(fixtures / "article_en.html")
    assert doc.source_id == "article_en"
    assert doc.title == TITLE
    assert doc.language == "en"
    assert doc.paragraphs == EXPECTED
    assert doc.metadata["format"] == "article"


def test_parse_article_without_article_element_uses_body(tmp_path: Path) -> None:
    page = tmp_path / "plain.html"
    page.write_text(
        '<html lang="pt-BR"><head><title>Título da página</title></head><body>'
        '<p data-pid="7">7 Texto do parágrafo.</p><p>Sem número.</p></body></html>',
        encoding="utf-8",
    )
    doc = parse_article(page)
    assert doc.title == "Título da página"
    assert doc.language == "pt"
    assert [(p.text, p.id) for p in doc.paragraphs] == [
        ("Texto do parágrafo.", "7"),
        ("Sem número.", None),
    ]


def test_leading_number_is_stripped_only_when_it_is_the_pid(tmp_path: Path) -> None:
    page = tmp_path / "n.html"
    page.write_text(
        '<article><p data-pid="2">1914 was a year.</p><p data-pid="3">3. Numbered.</p></article>',
        encoding="utf-8",
    )
    assert [p.text for p in parse_article(page).paragraphs] == ["1914 was a year.", "Numbered."]


def test_non_utf8_html_with_declared_charset_is_decoded(tmp_path: Path) -> None:
    page = tmp_path / "latin.html"
    page.write_bytes(
        '<html><head><meta charset="iso-8859-1"></head><body><article>'
        '<p data-pid="1">1 Canción del corazón.</p></article></body></html>'.encode("latin-1")
    )
    assert parse_article(page).paragraphs[0].text == "Canción del corazón."


def test_ingest_article_chunks_keep_pids_headings_and_title(fixtures: Path, store) -> None:
    result = ingest_article(store, fixtures / "article_en.html")
    assert result.source_id == "article_en"
    assert result.chunker == "paragraph"
    assert result.language == "en"
    assert not result.skipped
    chunks = store.sources["article_en"]
    assert result.chunks == len(chunks) > 0
    doc = parse_article(fixtures / "article_en.html")
    cited = [pid for c in chunks for pid in c.metadata["para_ids"]]
    for pid in ["1", "2", "3", "4", "5"]:
        assert cited.count(pid) == 1
    for c in chunks:
        assert c.metadata["title"] == TITLE
        assert c.metadata["language"] == "en"
        assert rebuild_text(doc.paragraphs, c.metadata["span"]) == c.text
        assert c.metadata["embed_prefix"].startswith(TITLE)
    by_pid = {pid: c for c in chunks for pid in c.metadata["para_ids"]}
    assert by_pid["5"].metadata["heading_path"][-1] in ("Reading It Back", TITLE)


def test_reingest_unchanged_is_skipped_and_new_chunker_replaces(fixtures: Path, store) -> None:
    first = ingest_article(store, fixtures / "article_en.html")
    again = ingest_article(store, fixtures / "article_en.html")
    assert again.skipped and again.chunks == first.chunks
    other = ingest_article(store, fixtures / "article_en.html", chunker="semantic")
    assert not other.skipped and other.chunker == "semantic"
    assert {c.metadata["chunker"] for c in store.sources["article_en"]} == {"semantic"}
    resized = ingest_article(
        store,
        fixtures / "article_en.html",
        chunker=get_chunker("semantic", max_chars=60, min_chars=20),
    )
    assert not resized.skipped  # chunker parameters are part of the hash


def test_chunker_instance_env_var_and_overrides(fixtures: Path, store, monkeypatch) -> None:
    fake = FakeChunker("fake-two", group=2)
    result = ingest_article(
        store, fixtures / "article_en.html", chunker=fake, language="es", source_id="es/x"
    )
    assert fake.calls == ["es/x"]
    assert result.chunker == "fake-two" and result.source_id == "es/x"
    assert store.sources["es/x"][0].metadata["language"] == "es"
    monkeypatch.setenv("JW_CHUNKER", "semantic")
    assert ingest_article(store, fixtures / "article_en.html").chunker == "semantic"
    with pytest.raises(ConfigError):
        ingest_article(store, fixtures / "article_en.html", chunker="nope")
    with pytest.raises(ConfigError, match="unknown language"):
        ingest_article(store, fixtures / "article_en.html", language="Klingon")


def test_article_from_url_and_redirect(fixtures: Path, http_base: str, store) -> None:
    doc = parse_article(f"{http_base}/article_en.html")
    assert doc.paragraphs == EXPECTED
    assert doc.source_id == "127.0.0.1:" + http_base.rsplit(":", 1)[1] + "/article_en"
    moved = parse_article(f"{http_base}/moved")
    assert moved.metadata["source"].endswith("/article_en.html")
    assert ingest_article(store, f"{http_base}/article_en.html", source_id="web").chunks > 0


def test_url_http_error_is_one_line(http_base: str, store) -> None:
    url = f"{http_base}/missing.html"
    with pytest.raises(IngestError) as err:
        ingest_article(store, url)
    msg = str(err.value)
    assert url in msg and "HTTP 404" in msg and "\n" not in msg
    assert store.calls == []


def test_url_offline_is_one_line(closed_port: int, store) -> None:
    url = f"http://127.0.0.1:{closed_port}/a.html"
    with pytest.raises(IngestError) as err:
        ingest_article(store, url)
    msg = str(err.value)
    assert url in msg and "network" in msg and "\n" not in msg
    assert store.calls == []
