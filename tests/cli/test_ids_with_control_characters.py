"""A file name may hold a newline, a tab or a terminal escape sequence, and a
folder's file gives its id from its name. Those ids were printed raw: the
"one line per source" ingest output broke in two, and the escape sequence
reached the terminal. Lines and tables now show such an id escaped, as the
left-out notes show file names; JSON keeps it as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jw_cli.app import main

NAMES = {"new\nline": "'odd/new\\nline'", "tab\tname": "'odd/tab\\tname'",
         "esc\x1b[31mred": "'odd/esc\\x1b[31mred'"}  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ids_with_control_characters_are_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    monkeypatch.setenv("COLUMNS", "400")
    odd = tmp_path / "odd"
    odd.mkdir()
    for name in NAMES:
        (odd / f"{name}.txt").write_text(f"A note about hope, {len(name)}.\n", encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    code, out, err = run(capsys, "--store", store, "rag", "ingest", "text", str(odd))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 4 and "\x1b" not in out
    assert sorted(line.split(": ")[0] for line in lines[:3]) == sorted(NAMES.values())
    code, out, _ = run(capsys, "--store", store, "rag", "search", "hope")
    assert code == 0 and "\x1b" not in out and all(shown in out for shown in NAMES.values())
    code, out, _ = run(capsys, "--store", store, "rag", "stats")
    assert code == 0 and "\x1b" not in out and "'odd/tab\\tname': 1" in out
    code, out, _ = run(capsys, "--store", store, "rag", "search", "hope", "--json")
    assert {h["source_id"] for h in json.loads(out)} == {f"odd/{n}" for n in NAMES}
    code, out, _ = run(capsys, "--store", store, "rag", "delete", "--source", "odd/tab\tname")
    assert (code, out) == (0, "deleted 1 chunk of 'odd/tab\\tname'\n")
    code, out, _ = run(capsys, "rag", "chunk", str(odd / "esc\x1b[31mred.txt"))
    assert code == 0 and "\x1b" not in out and "'esc\\x1b[31mred': 1 chunk (paragraph)" in out
