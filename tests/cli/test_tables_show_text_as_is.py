"""The tables of ``jw rag search``, ``chunk`` and ``stats`` and the ingest
progress bar show source ids and text as they are. They were read as rich
markup: a folder called ``Notes [draft]`` was shown as ``Notes `` (an id no
``--source`` finds), a snippet lost ``[bold]``-like words, and a document
holding ``[/b]`` (a forum post in BBCode) stopped every search that hit it
with "unexpected MarkupError"."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from jw_cli import progress
from jw_cli.app import main

TEXT = "A post about hope [/b] with [bold]tags[/bold] and [red]colour[/]."


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    monkeypatch.setenv("COLUMNS", "400")  # one line per row: the cells are not folded
    folder = tmp_path / "Notes [draft]"
    folder.mkdir()
    (folder / "[en] post.txt").write_text(TEXT + "\n", encoding="utf-8")
    path = str(tmp_path / "s.sqlite")
    assert main(["--store", path, "rag", "ingest", "text", str(folder)]) == 0
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_shows_ids_and_text_as_they_are(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code, out, err = run(capsys, "--store", store, "rag", "search", "hope [/b]")
    assert (code, err) == (0, "")
    assert "1 hit for 'hope [/b]'" in out
    assert "Notes [draft]/[en] post" in out and TEXT in out


def test_chunk_and_stats_show_ids_and_text_as_they_are(
    store: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code, out, err = run(capsys, "rag", "chunk", str(tmp_path / "Notes [draft]"))
    assert (code, err) == (0, "")
    assert "Notes [draft]/[en] post: 1 chunk (paragraph)" in out and TEXT in out
    code, out, err = run(capsys, "--store", store, "rag", "stats")
    assert (code, err) == (0, "") and "Notes [draft]/[en] post: 1" in out


def test_the_progress_bar_shows_its_label_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = io.StringIO()
    monkeypatch.setattr(
        progress, "Console", lambda **_: Console(file=shown, width=200, force_terminal=False)
    )
    with progress.stderr_progress() as start:
        start("text /home/me/[/b]/Notes [draft]", 1)(1)
    assert "text /home/me/[/b]/Notes [draft]" in shown.getvalue()
