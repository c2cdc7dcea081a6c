"""What the surface fuzz (test_fuzz_cli.py, test_fuzz_mcp.py) found, each kept
as an exact case: deleting a source that is not stored changed the store; an
unknown chunker option was reported as a Python ``TypeError``; a verse marker
that is a digit but no number (``²``, or thousands of digits) ended the Bible
reader with ``ValueError``; over MCP a loop of symbolic links was a bare
"Error executing tool"; a malformed URL (``http://[::1``) was a traceback in
``jw`` and a bare error over MCP; an empty path named the current folder (the
CLI ingested the folder it ran in, the MCP server its first root, whole)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.chunkers import get_chunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import parse_bible_chapter
from jw_rag.store import SQLiteStore
from tests.robust.hostile_files import snapshot


def _jw(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(argv))
    return code, err.getvalue()


def test_deleting_a_source_that_is_not_stored_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    store, text = tmp_path / "s.sqlite", tmp_path / "kept.txt"
    text.write_text("Water for the garden.\n", "utf-8")
    assert _jw("--store", str(store), "rag", "ingest", "text", str(text))[0] == 0
    before = snapshot(store)
    for source in ("", "nope"):
        code, err = _jw("--store", str(store), "rag", "delete", "--source", source)
        assert code == 1 and err == f"error: no source {source!r} in {store}: `jw rag stats` " \
            "lists the stored source ids\n"  # fmt: skip
    assert snapshot(store) == before  # the change counter too
    with SQLiteStore(store, FakeEmbedder()) as s:
        assert s.delete_source("nope") == 0 and s.delete_source("kept") == 1
        assert s.stats()["sources"] == 0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("paragraph:target_chars=0",
         "chunker 'paragraph' has no option 'target_chars'; its options are: max_chars, min_chars"),
        ("structure:nope=1", "chunker 'structure' has no option 'nope'; its options are: "
         "max_chars, min_chars, prefix_headings, separator"),
        ("llm:zzz=1", "chunker 'llm' has no option 'zzz'; check its spelling or leave it out"),
    ],
)  # fmt: skip
def test_an_unknown_chunker_option_names_the_options(spec: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        get_chunker(spec)
    assert str(caught.value) == message


def test_verse_markers_that_are_no_numbers(tmp_path: Path) -> None:
    page = tmp_path / "john-3.html"
    page.write_text("<html><body><h1>John 3</h1><p><sup>²</sup>Squared.</p></body></html>", "utf-8")
    with pytest.raises(IngestError, match="no verses found"):
        parse_bible_chapter(page)
    digits = "9" * 5000
    page.write_text(f"<html><body><h1>John 3</h1><p><sup>16</sup>For God. <sup>{digits}</sup>"
                    "Long. <sup>17</sup>Sent.</p></body></html>", "utf-8")  # fmt: skip
    doc = parse_bible_chapter(page)
    assert [(p.id, p.text) for p in doc.paragraphs] == [
        ("john:3:16", "For God. Long."),
        ("john:3:17", "Sent."),
    ]


def test_a_symlink_loop_is_one_line_over_mcp(tmp_path: Path) -> None:
    from jw_mcp.roots import allowed_roots, confined_source

    loop = tmp_path / "loop.txt"
    loop.symlink_to(loop)
    with pytest.raises(ConfigError) as caught:
        confined_source(str(loop), allowed_roots([str(tmp_path)]), None)
    assert str(caught.value) == f"{loop} is a loop of symbolic links: pass the file itself"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[::1", "Invalid IPv6 URL"),
        ("http://127.0.0.1:x/", "Port could not be cast to integer value as 'x'"),
    ],
)
def test_a_malformed_url_is_one_line(url: str, why: str) -> None:
    from jw_rag.ingest._source import fetch_url

    with pytest.raises(IngestError) as caught:
        fetch_url(url)
    assert str(caught.value) == f"{url}: not a valid URL: {why}; check the address"


def test_an_empty_path_is_refused_not_read_as_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jw_mcp.roots import allowed_roots, confined_source
    from jw_rag.ingest import load_documents, load_folder

    monkeypatch.setenv("JW_EMBEDDER", "fake")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "here.txt").write_text("A file in the current folder.\n", "utf-8")
    store = tmp_path / "s.sqlite"
    for argv in (["rag", "ingest", "text", ""], ["rag", "ingest", "text", " ", "--skip-bad"],
                 ["rag", "chunk", ""]):  # fmt: skip
        code, err = _jw("--store", str(store), *argv)
        assert code == 1 and err.count("\n") == 1, (argv, err)
    assert _jw("--store", str(store), "rag", "ingest", "text", "")[1] == (
        "error: the path is empty; pass a file, a folder or an http(s) URL\n"
    )
    assert not store.exists()
    for call in (load_documents, load_folder):
        with pytest.raises(IngestError, match="the path is empty"):
            call("")
    with pytest.raises(ConfigError, match="the path is empty: pass a file under the allowed"):
        confined_source("", allowed_roots([str(tmp_path)]), None)
