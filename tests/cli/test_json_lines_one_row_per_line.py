"""`jw rag search --json` writes one compact row per line: a source id taken from
a file name holding a line or paragraph separator (U+2028, U+2029, U+0085) keeps
it as its \\u escape, so any line splitter (Python's str.splitlines, a log
viewer) reads one row per line; the JSON reads back the id as it is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jw_cli.json_text import json_text

ODD = "x\u2028y\u2029z\x85w"


def test_separators_are_escaped_and_read_back() -> None:
    text = json_text({"id": ODD, "n": 1}, indent=None)
    assert text == '{"id":"x\\u2028y\\u2029z\\u0085w","n":1}'
    assert json.loads(text) == {"id": ODD, "n": 1}
    assert json_text([ODD]).splitlines() == ["[", '  "x\\u2028y\\u2029z\\u0085w"', "]"]


def test_search_json_is_one_row_per_line(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / f"{ODD}.txt").write_text("Text about lamps.\n", encoding="utf-8")
    (folder / "plain.txt").write_text("More about lamps.\n", encoding="utf-8")
    env = os.environ | {"JW_HOME": str(tmp_path), "JW_EMBEDDER": "fake", "LC_ALL": "C.UTF-8"}
    env.pop("JW_STORE", None)
    code = "import sys; from jw_cli.app import main; sys.exit(main())"

    def jw(*argv: str) -> bytes:
        done = subprocess.run(
            [sys.executable, "-c", code, *argv], capture_output=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    jw("rag", "ingest", "text", str(folder))
    out = jw("rag", "search", "lamps", "--json").decode("utf-8")
    lines = out.splitlines()
    assert len(lines) == 4 and lines[0] == "[" and lines[-1] == "]"
    rows = [json.loads(line.rstrip(",")) for line in lines[1:-1]]
    assert {r["source_id"] for r in rows} == {f"notes/{ODD}", "notes/plain"}
    assert json.loads(out) == rows
