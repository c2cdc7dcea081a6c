"""``--chunker llm:provider=fake`` from the command line says what the fake
provider needs and what to use instead (it was a TypeError about ``answers``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main


def test_fake_provider_from_the_command_line_names_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("A note about gardens.\n\nAnother about water.\n", encoding="utf-8")
    code = main(["rag", "chunk", str(note), "--chunker", "llm:provider=fake"])
    out, err = capsys.readouterr()
    assert code != 0 and out == ""
    assert err == (
        "error: the fake provider needs its answers (resolve('fake', answers=[...]) or "
        "FakeProvider(answers) in Python); for an offline stand-in from the command line "
        "use provider=heuristic\n"
    )
