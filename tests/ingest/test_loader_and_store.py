"""load_documents dispatch, folder ids, the bundled corpus, and ingest into SQLiteStore."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jw_eval.bench import DEFAULT_DATASET
from jw_rag.chunkers import get_chunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import IngestError
from jw_rag.ingest import (
    KINDS,
    ingest_article,
    ingest_bible_chapter,
    ingest_document,
    ingest_pdf,
    load_documents,
)
from jw_rag.ingest import __all__ as ingest_all
from jw_rag.model import rebuild_text
from jw_rag.store import SQLiteStore

CORPUS = DEFAULT_DATASET / "corpus"


def test_public_names_exist() -> None:
    import jw_rag.ingest as ingest

    assert sorted(ingest_all) == sorted(set(ingest_all))
    assert all(hasattr(ingest, name) for name in ingest_all)
    assert set(KINDS) == {"article", "bible", "epub", "pdf", "markdown", "text"}


def test_dispatch_by_extension_and_content(fixtures: Path, tmp_path: Path, make_pdf) -> None:
    formats = {
        name: load_documents(fixtures / name)[0].metadata["format"]
        for name in ["article_en.html", "john-3.html", "guide.md", "notes.txt"]
    }
    assert formats == {
        "article_en.html": "article",
        "john-3.html": "bible_chapter",  # wol verse ids in an .html page
        "guide.md": "markdown",
        "notes.txt": "text",
    }
    assert load_documents(fixtures / "psalm-23.txt", kind="bible")[0].source_id == "psalm:23"
    odd = tmp_path / "download.bin"
    make_pdf(odd, [[(72, 700, "Content-sniffed PDF text.")]])
    assert load_documents(odd)[0].metadata["format"] == "pdf"
    page = tmp_path / "page"
    shutil.copy(fixtures / "article_en.html", page)
    assert load_documents(page)[0].metadata["format"] == "article"


def test_folder_ids_are_relative_paths(fixtures: Path, tmp_path: Path) -> None:
    root = tmp_path / "lib"
    (root / "en").mkdir(parents=True)
    (root / "es").mkdir()
    shutil.copy(fixtures / "article_en.html", root / "en" / "journal.html")
    shutil.copy(fixtures / "article_en.html", root / "es" / "journal.html")
    shutil.copy(fixtures / "notes.txt", root / "notes.txt")
    (root / "ignored.json").write_text("{}", encoding="utf-8")
    with pytest.warns(UserWarning, match=r"left out 1 file of a type no kind reads \(1 \.json\)$"):
        ids = [d.source_id for d in load_documents(root)]
    assert ids == ["lib/en/journal", "lib/es/journal", "lib/notes"]
    assert [d.source_id for d in load_documents(root / "es")] == ["es/journal"]


def test_a_folder_read_as_one_kind_takes_that_kinds_files(
    fixtures: Path, tmp_path: Path, make_pdf
) -> None:
    """`jw rag ingest pdf docs/` reads the PDFs and leaves the notes beside them
    out (it failed on the first: 'notes.txt is not a PDF'), with the ids the
    files have when the folder is read without a kind."""
    root = tmp_path / "docs"
    root.mkdir()
    make_pdf(root / "brochure.pdf", [[(72, 700, "Text of the brochure.")]])
    shutil.copy(fixtures / "guide.md", root / "guide.md")
    shutil.copy(fixtures / "notes.txt", root / "guide.txt")
    shutil.copy(fixtures / "article_en.html", root / "page.html")
    every = {d.source_id for d in load_documents(root)}
    assert every == {"docs/brochure", "docs/guide.md", "docs/guide.txt", "docs/page"}
    with pytest.warns(UserWarning) as caught:
        pdfs = load_documents(root, kind="pdf")
    assert [d.source_id for d in pdfs] == ["docs/brochure"]
    assert [str(w.message) for w in caught] == [
        f"{root}: left out 3 files that are not a PDF (1 .html, 1 .md, 1 .txt); ingest the "
        "folder again as article, markdown or text to store them"
    ]
    # plain text is Markdown and Markdown is text: a folder read as either takes both
    with pytest.warns(
        UserWarning, match=r"left out 2 files that are not text \(1 \.html, 1 \.pdf\)"
    ):
        assert [d.source_id for d in load_documents(root, kind="text")] == [
            "docs/guide.md", "docs/guide.txt"
        ]  # fmt: skip
    with pytest.warns(UserWarning, match="left out 3 files that are not HTML"):
        assert [d.source_id for d in load_documents(root, kind="article")] == ["docs/page"]
    (root / "brochure.pdf").unlink()
    with pytest.raises(IngestError) as err:
        load_documents(root, kind="pdf")
    assert str(err.value) == (
        f"{root} has no file that is a PDF (.pdf), only 1 .html, 1 .md, 1 .txt: ingest it "
        "as the kind of those files"
    )
    # a Bible chapter is an HTML page: a folder of chapters and notes reads the chapters
    bible = tmp_path / "bible"
    bible.mkdir()
    shutil.copy(fixtures / "john-3.html", bible / "john-3.html")
    shutil.copy(fixtures / "notes.txt", bible / "notes.txt")
    with pytest.warns(UserWarning, match="left out 1 file that is not a Bible chapter"):
        assert [d.metadata["format"] for d in load_documents(bible, kind="bible")] == [
            "bible_chapter"
        ]


def test_url_dispatch(http_base: str) -> None:
    assert load_documents(f"{http_base}/guide.md")[0].metadata["format"] == "markdown"
    assert load_documents(f"{http_base}/john-3.html")[0].source_id == "john:3"


def test_bundled_corpus_keeps_every_pid() -> None:
    if not CORPUS.is_dir():
        pytest.skip("benchmark corpus not present")
    docs = load_documents(CORPUS)
    assert len(docs) >= 10
    for doc in docs:
        lang = doc.source_id.split("/")[1]  # corpus/<lang>/<article>
        assert doc.language == lang
        pids = [p.id for p in doc.paragraphs if p.kind != "heading"]
        assert pids == [str(i) for i in range(1, len(pids) + 1)], doc.source_id
        assert all(p.text and not p.text[0].isdigit() for p in doc.paragraphs if p.id)
        assert doc.title


@pytest.fixture
def sqlite_store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "index.db", FakeEmbedder(dim=64))


def test_end_to_end_article_search(fixtures: Path, sqlite_store: SQLiteStore) -> None:
    first = ingest_article(sqlite_store, fixtures / "article_en.html", chunker="semantic")
    assert not first.skipped and first.chunks > 0
    assert ingest_article(sqlite_store, fixtures / "article_en.html", chunker="semantic").skipped
    hits = sqlite_store.search("weather sowing date", k=3, mode="bm25")
    assert hits and "2" in hits[0].chunk.metadata["para_ids"]
    assert hits[0].chunk.metadata["title"] == "Why Keep a Garden Journal?"
    dense = sqlite_store.search("journal winter spring changes", k=2, mode="dense")
    assert dense and dense[0].chunk.source_id == "article_en"


def test_end_to_end_bible_and_pdf(fixtures: Path, tmp_path: Path, sqlite_store, make_pdf) -> None:
    ingest_bible_chapter(sqlite_store, fixtures / "john-3.html")
    # the store also indexes window units (chunker "window"); a chunker filter leaves them out
    only = {"source_id": "john:3", "chunker": "paragraph"}
    hits = sqlite_store.search("Nicodemus", k=5, mode="bm25", filters=only)
    assert [h.chunk.metadata["para_ids"] for h in hits] == [["john:3:1"]]
    units = sqlite_store.search("Nicodemus", k=5, mode="bm25", filters={"source_id": "john:3"})
    assert all("john:3:1" in h.chunk.metadata["para_ids"] for h in units) and len(units) > 1
    pdf = make_pdf(
        tmp_path / "p.pdf", [[(72, 700, "Alpha page text.")], [(72, 700, "Beta zebra.")]]
    )
    ingest_pdf(sqlite_store, pdf, language="en", chunker=get_chunker("paragraph", min_chars=0))
    zebra = sqlite_store.search("zebra", k=1, mode="bm25", filters={"source_id": "p"})
    assert zebra[0].chunk.text == "Beta zebra."
    assert zebra[0].chunk.metadata["pages"] == [2]


def test_end_to_end_corpus_round_trip(sqlite_store: SQLiteStore) -> None:
    if not CORPUS.is_dir():
        pytest.skip("benchmark corpus not present")
    docs = load_documents(CORPUS / "es")
    results = [ingest_document(sqlite_store, doc, chunker="paragraph") for doc in docs]
    stats = sqlite_store.stats()
    assert stats["sources"] == len(docs)
    assert stats["chunks"] == sum(r.chunks for r in results)
    assert stats["languages"] == {"es": stats["chunks"]}
    doc = docs[0]
    hits = sqlite_store.search(doc.paragraphs[3].text, k=1, mode="bm25")
    chunk = hits[0].chunk
    assert chunk.source_id == doc.source_id
    assert rebuild_text(doc.paragraphs, chunk.metadata["span"]) == chunk.text


def test_linked_folders_and_broken_links_are_named_not_silently_passed_over(
    tmp_path: Path,
) -> None:
    """A folder's link to another folder is not followed (a link may loop back),
    and a link to nothing cannot be read: both were passed over without a word,
    so a library whose shared folder is linked in looked ingested whole."""
    lib, shared = tmp_path / "lib", tmp_path / "shared"
    lib.mkdir()
    shared.mkdir()
    (lib / "top.txt").write_text("Top note about hope.\n", encoding="utf-8")
    (shared / "s.txt").write_text("Shared note about the soul.\n", encoding="utf-8")
    (lib / "shared").symlink_to(shared)
    (lib / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    with pytest.warns(UserWarning) as caught:
        docs = load_documents(lib, kind="text")
    assert [d.source_id for d in docs] == ["lib/top"]
    assert [str(w.message) for w in caught] == [
        f"{lib}: left out 1 linked folder, which is not followed (shared) and 1 broken "
        "link (gone.txt); ingest a linked folder on its own to store its files"
    ]
    (lib / "top.txt").unlink()
    with pytest.raises(IngestError) as failed:
        load_documents(lib, kind="text")
    assert str(failed.value).startswith(f"{lib}: no supported files (")
    assert str(failed.value).endswith(
        "in this folder; it holds 1 linked folder, which is not followed (shared): "
        "ingest it on its own"
    )
