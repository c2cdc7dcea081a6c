"""A folder of saved wol pages holds articles and Bible chapters, both HTML.
Read as ``article`` it read the chapters as articles (one prose chunk, no verse
ids, labelled an article); now each kind takes its own pages and names the
others, with the kind that reads them, in its one warning line, and a chapter
given alone as an article is refused, naming ``bible``."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from jw_rag.errors import IngestError
from jw_rag.ingest import (
    collecting_left_out,
    ingest,
    ingest_article,
    load_documents,
    load_folder,
)
from jw_rag.ingest._left_out import NAMED_TYPES
from jw_rag.ingest.loader import EXTENSIONS

ARTICLE = (
    '<!DOCTYPE html><html lang="en"><head><title>Keeping Bees</title></head><body><article>'
    '<h1>Keeping Bees</h1><p data-pid="1" id="p1">Bees need water near the hive.</p>'
    '<p data-pid="2" id="p2">A calm keeper moves slowly.</p></article></body></html>'
)
CHAPTER = (
    '<!DOCTYPE html><html lang="en"><head><title>Ruth {n} | Sample</title></head><body>'
    '<article><h1>Ruth {n}</h1><p data-pid="1" class="sb">'
    '<span class="v" id="v8-{n}-1-1">1 Sample verse one of chapter {n}.</span>'
    '<span class="v" id="v8-{n}-2-1">2 Sample verse two.</span></p></article></body></html>'
)


def _wol(root: Path, chapters: int = 1) -> Path:
    wol = root / "wol"
    wol.mkdir(parents=True)
    (wol / "bees.html").write_text(ARTICLE, encoding="utf-8")
    for n in range(1, chapters + 1):
        (wol / f"ruth-{n}.html").write_text(CHAPTER.format(n=n), encoding="utf-8")
    return wol


def test_article_takes_the_articles_and_names_the_chapters_for_bible(tmp_path: Path) -> None:
    wol = _wol(tmp_path)
    with pytest.warns(UserWarning) as caught:
        docs = load_documents(wol, kind="article")
    assert [(d.source_id, d.metadata["format"]) for d in docs] == [("wol/bees", "article")]
    assert [str(w.message) for w in caught] == [
        f"{wol}: left out 1 Bible chapter page (ruth-1.html); ingest the folder again as "
        "bible to store them"
    ]


def test_bible_takes_the_chapters_and_names_the_articles(tmp_path: Path) -> None:
    wol = _wol(tmp_path)
    with pytest.warns(UserWarning) as caught:
        docs = load_documents(wol, kind="bible")
    assert [(d.source_id, d.metadata["format"]) for d in docs] == [("ruth:1", "bible_chapter")]
    assert [p.id for p in docs[0].paragraphs] == ["ruth:1:1", "ruth:1:2"]
    assert docs[0].metadata["source"] == str(wol / "ruth-1.html")  # where it came from
    assert [str(w.message) for w in caught] == [
        f"{wol}: left out 1 article page (bees.html); ingest the folder again as article "
        "to store them"
    ]


def test_both_kinds_store_the_whole_folder_each_page_once(tmp_path: Path, store) -> None:
    wol = _wol(tmp_path, chapters=2)
    with collecting_left_out() as left:
        stored = ingest(store, "article", wol) + ingest(store, "bible", wol)
    assert [r.source_id for r in stored] == ["wol/bees", "ruth:1", "ruth:2"]
    assert [x.files for x in left] == [2, 1]


def test_a_chapter_page_given_alone_as_an_article_is_refused_naming_bible(
    tmp_path: Path, store
) -> None:
    wol = _wol(tmp_path)
    with pytest.raises(IngestError) as err:
        ingest_article(store, wol / "ruth-1.html")
    assert str(err.value) == (
        f"{wol / 'ruth-1.html'} is a Bible chapter page (it carries wol verse ids), not an "
        "article; ingest it as bible (`jw rag ingest bible ...`, or the MCP ingest tool's "
        "kind bible_chapter)"
    )
    assert store.sources == {}


def test_a_folder_of_chapters_only_read_as_articles_is_an_error_naming_bible(
    tmp_path: Path,
) -> None:
    wol = _wol(tmp_path, chapters=2)
    (wol / "bees.html").unlink()
    with pytest.raises(IngestError) as err:
        load_documents(wol, kind="article")
    assert str(err.value) == (
        f"{wol}: nothing to read as article, left out 2 Bible chapter pages (ruth-1.html, "
        "ruth-2.html); ingest the folder again as bible (bible_chapter in the MCP ingest "
        "tool) to store them"
    )


def test_chapters_without_wol_ids_are_still_read_as_chapters(tmp_path: Path) -> None:
    """Only a page the Bible reader cannot read is left to ``article``: a chapter
    marked with <sup> numbers, in data-pid paragraphs, is read verse by verse,
    and a page with neither verses nor data-pid paragraphs still fails the folder."""
    folder = tmp_path / "chapters"
    folder.mkdir()
    (folder / "ruth-2.html").write_text(
        '<html><body><h1>Ruth 2</h1><p data-pid="1"><sup>1</sup> One. <sup>2</sup> Two.</p>'
        "</body></html>",
        encoding="utf-8",
    )
    docs = load_documents(folder, kind="bible")
    assert [p.id for p in docs[0].paragraphs] == ["ruth:2:1", "ruth:2:2"]
    (folder / "ruth-3.html").write_text("<html><body><p>No verses.</p></body></html>", "utf-8")
    with pytest.raises(IngestError, match=r"ruth-3\.html: no verses found"):
        load_documents(folder, kind="bible")


def test_a_folder_with_nothing_of_any_kind_is_one_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(IngestError, match="no supported files"):
        load_documents(empty, kind="article")
    (empty / "photo.jpg").write_bytes(b"\xff\xd8")
    (empty / "README").write_text("x", encoding="utf-8")
    with pytest.raises(IngestError, match="no supported files"):
        load_folder(empty, kind="article", skip_bad=True)


def test_the_note_stays_short_however_many_files_are_left_out(tmp_path: Path) -> None:
    """3,000 files of 1,500 made-up types, 400 chapter pages and names holding
    a newline, an invalid UTF-8 byte and 400 characters: one line under 1,000
    characters, at most 3 names per group, each cut to 60 and printable."""
    wol = _wol(tmp_path, chapters=400)
    for i in range(1500):
        (wol / f"f{i}.x{i}").write_bytes(b"")
        (wol / f"g{i}.x{i}").write_bytes(b"")
    (wol / "line\nbreak.jpg").write_bytes(b"")
    (wol / ("a" * 250 + ".jpg")).write_bytes(b"")
    deep = wol / ("a" * 200) / ("b" * 200)
    deep.mkdir(parents=True)
    (deep / "ruth-402.html").write_text(CHAPTER.format(n=402), encoding="utf-8")
    (wol / "zz.\u00e9\u00e9\u00e9").write_bytes(b"")
    odd = wol / b"bad-\xff.html".decode("utf-8", "surrogateescape")
    odd.write_text(CHAPTER.format(n=401), encoding="utf-8")
    with collecting_left_out() as left:
        docs, _ = load_folder(wol, kind="article")
    assert [d.source_id for d in docs] == ["wol/bees"]
    (note,) = left
    assert note.files == 3000 + 402 + 3
    line = note.message
    assert len(line) - len(str(wol)) < 1000 and line.isprintable(), line
    line.encode("utf-8")  # no lone surrogate left to fail a terminal or a JSON reply
    json.dumps([note.message, [g.examples for g in note.groups]], ensure_ascii=False).encode()
    assert len(note.groups) <= len(EXTENSIONS) + 1 + NAMED_TYPES + 1
    assert all(len(g.examples) <= 3 and all(len(e) <= 60 for e in g.examples) for g in note.groups)
    pages = next(g for g in note.groups if g.page)
    assert pages.files == 402 and "and 399 more" in line
    assert pages.examples[:2] == ("a" * 57 + "...", "'bad-\\udcff.html'")  # escaped, not raw
    assert note.groups[-1].what == "other types"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_folder(wol, kind="article")
    assert [str(w.message) for w in caught] == [line]  # one warning, the same line
