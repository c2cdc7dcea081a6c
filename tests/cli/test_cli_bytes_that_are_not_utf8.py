"""Bytes that are not UTF-8 on the command line (a Latin-1 terminal, a file
name from another system): an id, a query or a language holding them is one
line naming the option and asking for UTF-8, exit 2, never the codec's own
message; a file path holding them is read, then refused in one line, since
no store keeps it as an origin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import CORPUS

ALMA = CORPUS / "es" / "alma.html"


def jw(home: Path, *argv: str | bytes) -> subprocess.CompletedProcess[bytes]:
    env = os.environ | {"JW_HOME": str(home), "JW_EMBEDDER": "fake", "LC_ALL": "C.UTF-8"}
    env.pop("JW_STORE", None)
    code = "import sys; from jw_cli.app import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, env=env, timeout=120
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("home")
    assert jw(folder, "rag", "ingest", "article", str(ALMA)).returncode == 0
    return folder


CASES = [
    (["rag", "search", "alma", "--source", b"\xff"], "--source", "id"),
    (["rag", "search", "alma", "--source", "alma", "--source", b"caf\xe9"], "--source", "id"),
    (["rag", "delete", "--source", b"\xff"], "--source", "id"),
    (["rag", "search", b"alma \xff"], "QUERY", "query"),
    (["rag", "search", "alma", "--language", b"e\xf1"], "--language", "language"),
    (["rag", "ingest", "article", str(ALMA), "--source-id", b"\xff"], "--source-id", "id"),
    (["rag", "ingest", "article", str(ALMA), "--language", b"\xff"], "--language", "language"),
    (["rag", "search", "alma", "--source", b"x" * 100_000 + b"\xff"], "--source", "id"),
]


@pytest.mark.parametrize(("argv", "option", "noun"), CASES)
def test_text_options_holding_raw_bytes_are_one_line_naming_the_option(
    home: Path, argv: list[str | bytes], option: str, noun: str
) -> None:
    done = jw(home, *argv)
    err = done.stderr.decode("utf-8", "backslashreplace")
    assert done.returncode == 2, err
    assert err.startswith(f"error: {option} holds bytes that are not UTF-8 (b'"), err
    assert f"pass the {noun} in UTF-8" in err and "codec" not in err
    assert err.count("\n") == 1 and len(err) < 400 and done.stdout == b""
    assert b'"chunks": 7' in jw(home, "rag", "stats", "--json").stdout  # nothing changed


def test_a_file_path_holding_raw_bytes_is_one_line_asking_for_a_utf8_name(
    tmp_path: Path,
) -> None:
    """The file is found and read (the path is not refused as text), but no
    store keeps UTF-8-less text as its id or origin: one line saying so."""
    raw = os.fsencode(tmp_path) + b"/caf\xe9.html"
    shutil.copy(ALMA, os.fsdecode(raw))
    for extra in ([], ["--source-id", "cafe"]):
        done = jw(tmp_path, "rag", "ingest", "article", raw, *extra)
        err = done.stderr.decode("utf-8", "backslashreplace")
        assert done.returncode == 1 and err.count("\n") == 1, err
        assert "caf\\udce9.html: the path is not UTF-8" in err, err
        assert "rename the file" in err and "codec" not in err
    done = jw(tmp_path, "rag", "ingest", "article", raw + b"x")  # a missing one is still missing
    assert done.returncode == 1 and b"no such file" in done.stderr.lower(), done.stderr


def test_a_folder_file_named_in_raw_bytes_is_left_out_by_skip_bad(tmp_path: Path) -> None:
    """``--skip-bad`` leaves out the one file whose name is not UTF-8 and stores
    the others; without it the folder is refused in one line, nothing stored."""
    lib = tmp_path / "lib"
    lib.mkdir()
    shutil.copy(ALMA, lib / "alma.html")
    shutil.copy(ALMA, os.fsdecode(os.fsencode(lib) + b"/caf\xe9.html"))
    done = jw(tmp_path, "rag", "ingest", "article", str(lib))
    err = done.stderr.decode("utf-8", "backslashreplace")
    assert done.returncode == 1 and err.count("\n") == 1, err
    assert "caf\\udce9.html: the path is not UTF-8" in err, err
    assert not (tmp_path / "store.sqlite").exists()  # nothing stored, not even a store
    done = jw(tmp_path, "rag", "ingest", "article", str(lib), "--skip-bad")
    out = done.stdout.decode("utf-8", "backslashreplace")
    assert done.returncode == 0, done.stderr
    assert out.startswith("lib/alma: 7 chunks") and "1 source, 1 stored" in out, out
    assert "caf\\xe9.html: the path is not UTF-8" in out, out  # the name's own bytes
    assert b'"sources": 1' in jw(tmp_path, "rag", "stats", "--json").stdout


def test_a_file_path_holding_raw_bytes_is_chunked_and_diffed(tmp_path: Path) -> None:
    """`jw rag chunk` and `jw rag diff` store nothing, so a file name that is not
    UTF-8 is no matter: the chunks are shown and the page written, the name's byte
    escaped in the JSON (valid UTF-8, the name read back is the file's) and in the
    page, never a codec's message."""
    raw = os.fsencode(tmp_path) + b"/caf\xe9.html"
    shutil.copy(ALMA, os.fsdecode(raw))
    done = jw(tmp_path, "rag", "chunk", raw, "--chunker", "parent-child", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(b'"chunker": "parent-child"') == 7 and b"caf\xe9" not in done.stdout
    value = json.loads(done.stdout.decode("utf-8"))  # UTF-8 JSON, the byte as its escape
    assert os.fsencode(value[0]["chunks"][0]["metadata"]["source"]) == raw
    page = tmp_path / "diff.html"
    done = jw(tmp_path, "rag", "diff", raw, "--html", str(page))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert "caf\\udce9" in page.read_text(encoding="utf-8")


def test_the_json_of_a_folder_with_such_names_is_utf8(tmp_path: Path) -> None:
    """``--json`` gives UTF-8 JSON whatever the file names: a name's byte that
    is not UTF-8 is written as its ``\\u`` escape (the text lines keep the
    name's own bytes), and ``os.fsencode`` of the name read back is the file's."""
    lib = tmp_path / "lib"
    (lib / "sub").mkdir(parents=True)
    shutil.copy(ALMA, lib / "alma.html")
    raw = os.fsencode(lib) + b"/caf\xe9.html"
    shutil.copy(ALMA, os.fsdecode(raw))
    (lib / os.fsdecode(b"sub/pic\xe9.jpg")).write_bytes(b"\xff\xd8\xff")
    done = jw(tmp_path, "rag", "ingest", "article", str(lib), "--skip-bad", "--json")
    assert done.returncode == 0, done.stderr
    value = json.loads(done.stdout.decode("utf-8"))
    assert [s["source_id"] for s in value["sources"]] == ["lib/alma"]
    assert [os.fsencode(s["path"]) for s in value["skipped"]] == [raw]
    assert "\\udce9" in done.stdout.decode("utf-8")
    assert value["left_out"][0]["files"] == 1
