"""``jw rag chunk FOLDER --skip-bad``: the good files are chunked and shown,
each bad one is listed with its reason, in the words and the JSON shape of
``jw rag ingest KIND FOLDER --skip-bad`` (the same code says both)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_cli.json_text import json_text
from jw_cli.views import chunk_dict
from jw_rag.errors import IngestError
from jw_rag.ingest import SkippedFile, chunk_document, load_documents
from jw_rag.ingest.pipeline import chunk_documents
from jw_rag.model import Document, Paragraph

RAW = os.fsdecode(b"caf\xe9.txt")  # a name that is not UTF-8, as Python reads it


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def jw(home: Path, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = os.environ | {"JW_HOME": str(home), "JW_EMBEDDER": "fake", "LC_ALL": "C.UTF-8"}
    env.pop("JW_STORE", None)
    code = "import sys; from jw_cli.app import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, env=env, timeout=120
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """``lib``: two good files (one of an odd name), an empty one and one whose name is not UTF-8."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.txt").write_text("Alpha one.\n\nAlpha two.\n", encoding="utf-8")
    (lib / "b \u00f1 \u200b;'\".txt").write_text("Beta text.\n", encoding="utf-8")
    (lib / "empty.txt").write_bytes(b"")
    (lib / RAW).write_text("Gamma text.\n", encoding="utf-8")
    return lib


def test_without_skip_bad_one_bad_file_still_fails_the_folder_in_one_line(
    tmp_path: Path, folder: Path
) -> None:
    done = jw(tmp_path, "rag", "chunk", str(folder))
    err = done.stderr.decode("utf-8", "backslashreplace")
    assert (done.returncode, done.stdout) == (1, b"")
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err


def test_json_has_the_shape_and_the_reasons_of_ingest_skip_bad(
    tmp_path: Path, folder: Path
) -> None:
    done = jw(tmp_path, "rag", "chunk", str(folder), "--skip-bad", "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    stored = jw(tmp_path, "rag", "ingest", "text", str(folder), "--skip-bad", "--json")
    assert stored.returncode == 0, stored.stderr
    ingested = json.loads(stored.stdout)
    assert list(got) == list(ingested) == ["sources", "skipped"]
    assert got["skipped"] == ingested["skipped"]
    assert [s["path"] for s in got["skipped"]] == [str(folder / RAW), str(folder / "empty.txt")]
    assert got["skipped"][0]["reason"].startswith("the path is not UTF-8")
    # the sources are what `jw rag chunk` shows of each good file, in the order ingest gives
    assert [s["source_id"] for s in got["sources"]] == [s["source_id"] for s in ingested["sources"]]
    good = [d for d in load_documents(folder / "a.txt")] + load_documents(
        next(folder.glob("b *.txt"))
    )
    want = [[chunk_dict(c) for c in chunk_document(d)] for d in good]
    assert [
        [{**c, "id": None, "source_id": None} for c in s["chunks"]] for s in got["sources"]
    ] == [[{**c, "id": None, "source_id": None} for c in chunks] for chunks in want]
    # written a chunk at a time, the text is what one JSON writer prints of the whole
    assert done.stdout.decode("utf-8").rstrip("\n") == json_text(got)


def test_lines_list_each_skipped_file_as_ingest_does_then_the_counts(
    tmp_path: Path, folder: Path
) -> None:
    done = jw(tmp_path, "rag", "chunk", str(folder), "--skip-bad")
    assert done.returncode == 0, done.stderr
    stored = jw(tmp_path, "rag", "ingest", "text", str(folder), "--skip-bad")
    skipped = [ln for ln in stored.stdout.splitlines() if ln.startswith(b"skipped ")]
    lines = done.stdout.splitlines()
    assert len(skipped) == 2 and lines[-3:-1] == skipped
    assert lines[-1] == b"2 sources, 2 chunks; 2 files skipped"


def test_a_folder_of_bad_files_only_is_one_error_after_the_list(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lib = tmp_path / "bad"
    lib.mkdir()
    (lib / "x.txt").write_bytes(b"")
    (lib / "y.txt").write_bytes(b"  \n\t\n")
    code, out, err = run(capsys, "rag", "chunk", str(lib), "--skip-bad", "--json")
    assert code == 1
    assert json.loads(out) == {
        "sources": [],
        "skipped": [
            {"path": str(lib / "x.txt"), "reason": "is empty; pass a file with text"},
            {"path": str(lib / "y.txt"), "reason": json.loads(out)["skipped"][1]["reason"]},
        ],
    }
    assert err == (
        f"error: {lib}: all 2 files were skipped as bad, nothing chunked (first: {lib / 'x.txt'}"
        " is empty; pass a file with text); fix the files or chunk another folder\n"
    )


@pytest.mark.parametrize("what", ["file", "url", "missing"])
def test_skip_bad_for_what_is_no_folder_is_refused_as_ingest_refuses_it(
    capsys: pytest.CaptureFixture[str], folder: Path, what: str
) -> None:
    source = {
        "file": str(folder / "a.txt"),
        "url": "https://example.org/x.html",
        "missing": str(folder / "nope"),
    }[what]
    code, out, err = run(capsys, "rag", "chunk", source, "--skip-bad")
    assert (code, out) == (2, "")
    assert err == f"error: --skip-bad applies to a folder, and {source} is not one; drop it\n"
    assert run(capsys, "rag", "ingest", "text", source, "--skip-bad")[2] == err


def test_an_empty_folder_says_so_with_or_without_skip_bad(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "none").mkdir()
    code, out, err = run(capsys, "rag", "chunk", str(tmp_path / "none"), "--skip-bad")
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert "no supported files" in err
    assert run(capsys, "rag", "chunk", str(tmp_path / "none"))[2] == err


def test_chunk_documents_leaves_out_a_file_its_chunker_cannot_chunk() -> None:
    good = Document("a", [Paragraph("Some text.")], metadata={"source": "/x/a.txt"})
    blank = Document("b", [Paragraph("   ")], metadata={"source": "/x/b.txt"})
    skipped: list[SkippedFile] = []
    got = chunk_documents([good, blank], skipped=skipped)
    assert [(d.source_id, [c.text for c in cs]) for d, cs in got] == [("a", ["Some text."])]
    assert skipped == [SkippedFile("/x/b.txt", "b: the document has no text to index")]
    with pytest.raises(IngestError, match="^b: the document has no text to index$"):
        chunk_documents([good, blank])
    assert chunk_documents([]) == [] and chunk_documents([], skipped=skipped) == []
