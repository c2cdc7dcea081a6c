"""HTML given as Markdown or text is refused in one line naming the kind to
use (``article``), through the library, the CLI and whatever the page looks
like (a full document or a fragment in a ``.html`` file); nothing is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.errors import IngestError
from jw_rag.ingest.markdown import parse_markdown
from jw_rag.ingest.text import parse_text

PAGES = {
    "page.html": "<!DOCTYPE html>\n<html><body><h1>Alma</h1><p>El alma muere.</p></body></html>",
    "bom.html": "\ufeff  <html lang='es'><p>El alma muere.</p></html>",
    "comment.htm": "<!-- saved --><!doctype html><p>El alma muere.</p>",
    "fragment.html": "<div><p>El alma muere.</p></div>",
    "page.md": "<!doctype html>\n<html><p>A page named .md.</p></html>",
}


@pytest.mark.parametrize("name", sorted(PAGES))
@pytest.mark.parametrize("parse", [parse_markdown, parse_text], ids=["markdown", "text"])
def test_library_refuses_html_as_text_kinds(tmp_path: Path, name: str, parse) -> None:
    path = tmp_path / name
    path.write_text(PAGES[name], encoding="utf-8")
    with pytest.raises(IngestError) as err:
        parse(path)
    message = str(err.value)
    assert "\n" not in message and "is HTML" in message and "ingest it as article" in message


def test_markdown_with_inline_html_is_still_markdown(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nSome <b>bold</b> words.\n\n<div>a block</div>\n", encoding="utf-8")
    doc = parse_markdown(path)
    assert [p.text for p in doc.paragraphs][0] == "Notes"


@pytest.mark.parametrize("kind", ["markdown", "text"])
def test_cli_refuses_html_in_one_line_and_stores_nothing(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    page = tmp_path / "page.html"
    page.write_text(PAGES["page.html"], encoding="utf-8")
    store = tmp_path / "s.sqlite"
    code = main(["--store", str(store), "rag", "ingest", kind, str(page)])
    err = capsys.readouterr().err
    assert code == 1
    assert err == (
        f"error: {page} is HTML, not {'Markdown' if kind == 'markdown' else 'text'}; "
        "ingest it as article (`jw rag ingest article ...`)\n"
    )
    assert main(["--store", str(store), "rag", "ingest", "article", str(page)]) == 0
    assert "page: 1 chunk" in capsys.readouterr().out
