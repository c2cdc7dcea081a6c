"""``jw rag chunk`` takes one source and reads its kind from it. Given a kind
first, as ``jw rag ingest text notes`` is spelled, or several sources, it
said Typer's three lines ("Got unexpected extra argument(s)"); it now says
one line naming the problem and the command to run."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "my notes"
    folder.mkdir()
    (folder / "a.txt").write_text("Lamps need oil.\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("kind", ["text", "Bible", "bible_chapter", "jw_library_backup"])
def test_a_kind_word_first_is_one_line_with_the_command_to_run(
    capsys: pytest.CaptureFixture[str], notes: Path, kind: str
) -> None:
    code, out, err = run(capsys, "rag", "chunk", kind, str(notes))
    assert (code, out) == (2, "")
    assert err == (
        f"error: jw rag chunk takes no kind ({kind!r}): it reads each file's kind from its "
        f"extension; run: jw rag chunk '{notes}'\n"
    )
    assert run(capsys, "rag", "chunk", str(notes), "--json")[0] == 0  # what it says works


def test_several_sources_are_one_line(capsys: pytest.CaptureFixture[str], notes: Path) -> None:
    code, out, err = run(capsys, "rag", "chunk", str(notes), "b.txt", "--json")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "takes one source, got 2" in err and "'b.txt'" in err


def test_thousands_of_extra_words_stay_one_short_line(
    capsys: pytest.CaptureFixture[str], notes: Path
) -> None:
    code, _, err = run(capsys, "rag", "chunk", str(notes), *(["x" * 10_000] * 5_000))
    assert code == 2 and err.count("\n") == 1 and len(err) < 2_500
    assert "got 5001" in err and "and 4996 more" in err
