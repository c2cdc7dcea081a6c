"""Folder ingest with and without ``--skip-bad``, on a small folder of good and
bad files generated here: exact output of both modes (the temp dir shown as
<DIR>), and what the store holds afterwards."""

from __future__ import annotations

import json
import re
import sqlite3
import zipfile
from pathlib import Path

import pytest

import jw_rag.ingest._source as source
from jw_cli.app import main
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import IngestError
from jw_rag.ingest import ingest_folder, ingest_text
from jw_rag.store import SQLiteStore
from tests.robust.hostile_files import PNG, epub_bytes, snapshot

GOOD = "Gardens need water every morning.\n\nThe soil keeps it for the roots.\n"


def _text_folder(root: Path) -> Path:
    lib = root / "lib"
    (lib / "sub").mkdir(parents=True)
    (lib / "a-good.txt").write_text(GOOD, "utf-8")
    (lib / "b-empty.txt").write_bytes(b"")
    (lib / "c-latin.txt").write_bytes("Canción del árbol".encode("cp1252"))
    (lib / "d-binary.txt").write_bytes(PNG)
    (lib / "e-big.txt").write_text("word " * 4000, "utf-8")  # over the 8 KiB cap set below
    (lib / "sub" / "f-good.md").write_text("Rivers run to the sea.\n", "utf-8")
    return lib


def _bomb_epub(path: Path) -> Path:
    path.write_bytes(epub_bytes())
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("big.xhtml", b"\0" * (4 * 1024 * 1024))
    return path


def _epub_folder(root: Path) -> Path:
    books = root / "books"
    books.mkdir()
    (books / "a-good.epub").write_bytes(epub_bytes())
    (books / "b-not-zip.epub").write_bytes(b"plain text, not a zip")
    (books / "c-truncated.epub").write_bytes(epub_bytes()[:300])
    _bomb_epub(books / "d-bomb.epub")
    return books


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store that already holds one source, and an 8 KiB cap on every read."""
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    monkeypatch.setattr(source, "MAX_SOURCE_BYTES", 8192)
    path = tmp_path / "store.sqlite"
    (tmp_path / "kept.txt").write_text("A source stored before.\n", "utf-8")
    assert main(["--store", str(path), "rag", "ingest", "text", str(tmp_path / "kept.txt")]) == 0
    return path


def _run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, _shown(out, tmp_path), _shown(err, tmp_path)


def _shown(text: str, tmp_path: Path) -> str:
    """``text`` with the temp dir as <DIR> and a bomb's ratio (zlib's build decides it) as N."""
    return re.sub(r"unpacks \d+ times", "unpacks N times", text.replace(str(tmp_path), "<DIR>"))


def _stored(store: Path) -> dict[str, list[str]]:
    conn = sqlite3.connect(store)
    rows = conn.execute("SELECT source_id, text FROM chunks ORDER BY source_id, ord").fetchall()
    conn.close()
    out: dict[str, list[str]] = {}
    for source_id, text in rows:
        out.setdefault(source_id, []).append(text)
    return out


TEXT_SKIPPED = [
    "skipped <DIR>/lib/b-empty.txt is empty; pass a file with text",
    "skipped <DIR>/lib/c-latin.txt is not UTF-8 (byte 0xf3 at offset 5); it looks like "
    "cp1252/latin-1: convert it with `iconv -f cp1252 -t utf-8` and ingest the converted file",
    "skipped <DIR>/lib/d-binary.txt holds binary data, not text; check the file",
    "skipped <DIR>/lib/e-big.txt is larger than 8 KiB; split it before ingesting",
]
#: Each skipped file's JSON: its path, and the problem alone (the path was said
#: twice, the reason repeating it)
EPUB_SKIPPED = [
    {
        "path": "<DIR>/books/b-not-zip.epub",
        "reason": "is not an EPUB (not a zip archive); check the file",
    },
    {
        "path": "<DIR>/books/c-truncated.epub",
        "reason": "is not an EPUB (not a zip archive); check the file",
    },
    {
        "path": "<DIR>/books/d-bomb.epub",
        "reason": "member 'big.xhtml' unpacks N times its size "
        "(a decompression bomb?); it is not a publication this reads",
    },
]


def test_without_skip_bad_one_bad_file_fails_the_folder(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _text_folder(tmp_path)
    before = snapshot(store)
    code, out, err = _run(
        capsys, tmp_path, "--store", str(store), "rag", "ingest", "text", str(lib)
    )
    assert (code, out) == (1, "")
    assert err == "error: <DIR>/lib/b-empty.txt is empty; pass a file with text\n"
    assert snapshot(store) == before


def test_skip_bad_stores_the_good_files_and_lists_the_bad(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _text_folder(tmp_path)
    argv = ("--store", str(store), "rag", "ingest", "text", str(lib), "--skip-bad")
    code, out, err = _run(capsys, tmp_path, *argv)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "lib/a-good: 1 chunk, chunker paragraph, language en (stored)",
        "lib/sub/f-good: 1 chunk, chunker paragraph, language en (stored)",
        *TEXT_SKIPPED,
        "2 sources, 2 stored, 2 chunks; 4 files skipped",
    ]
    assert _stored(store) == {
        "kept": ["A source stored before."],
        "lib/a-good": [GOOD.strip()],
        "lib/sub/f-good": ["Rivers run to the sea."],
    }


def test_skip_bad_json_lists_the_skipped_files(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    books = _epub_folder(tmp_path)
    argv = ("--store", str(store), "rag", "ingest", "epub", str(books), "--skip-bad", "--json")
    code, out, err = _run(capsys, tmp_path, *argv)
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "sources": [
            {
                "source_id": "books/a-good/ch1",
                "chunks": 1,
                "skipped": False,
                "chunker": "paragraph",
                "language": "en",
            }
        ],
        "skipped": EPUB_SKIPPED,
    }
    assert _stored(store) == {
        "books/a-good/ch1": ["One\n\nA paragraph of the chapter."],
        "kept": ["A source stored before."],
    }
    code, out, err = _run(capsys, tmp_path, *argv[:-2])  # the same folder, all or nothing
    assert (code, out) == (1, "")
    assert (
        err
        == "error: <DIR>/books/b-not-zip.epub is not an EPUB (not a zip archive); check the file\n"
    )


def test_a_folder_of_bad_files_only_is_an_error_after_the_list(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _text_folder(tmp_path)
    for good in (lib / "a-good.txt", lib / "sub" / "f-good.md"):
        good.unlink()
    before = snapshot(store)
    argv = ("--store", str(store), "rag", "ingest", "text", str(lib), "--skip-bad")
    code, out, err = _run(capsys, tmp_path, *argv)
    assert code == 1
    assert out.splitlines() == [*TEXT_SKIPPED, "0 sources, 0 stored, 0 chunks; 4 files skipped"]
    assert err == (
        "error: <DIR>/lib: all 4 text files were skipped as bad, nothing stored (first: "
        "<DIR>/lib/b-empty.txt is empty; pass a file with text); "
        "fix the files or ingest another folder\n"
    )
    assert snapshot(store) == before


def test_with_json_a_folder_of_bad_files_only_lists_them_as_json(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--json`` keeps stdout JSON when every file was skipped: the list of
    skipped files (the lines said them as text), then the error on stderr."""
    lib = _text_folder(tmp_path)
    for good in (lib / "a-good.txt", lib / "sub" / "f-good.md"):
        good.unlink()
    before = snapshot(store)
    argv = ("--store", str(store), "rag", "ingest", "text", str(lib), "--skip-bad", "--json")
    code, out, err = _run(capsys, tmp_path, *argv)
    assert code == 1
    assert json.loads(out)["sources"] == []
    skipped = json.loads(out)["skipped"]
    assert [f"skipped {s['path']} {s['reason']}" for s in skipped] == TEXT_SKIPPED
    assert [s["reason"] for s in skipped] == [
        "is empty; pass a file with text",
        "is not UTF-8 (byte 0xf3 at offset 5); it looks like cp1252/latin-1: convert it with "
        "`iconv -f cp1252 -t utf-8` and ingest the converted file",
        "holds binary data, not text; check the file",
        "is larger than 8 KiB; split it before ingesting",
    ]
    assert err.startswith("error: <DIR>/lib: all 4 text files were skipped as bad, nothing stored")
    assert err.count("\n") == 1
    assert snapshot(store) == before


def test_the_count_of_bad_files_is_of_the_kind_asked_for(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two bad text files beside a page and a picture: the error counts the two
    text files, the warning the two others."""
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in ("a.txt", "b.txt"):
        (lib / name).write_bytes(b"")
    (lib / "x.html").write_text("<html><body><p>Hi there.</p></body></html>", "utf-8")
    (lib / "p.jpg").write_bytes(b"x")
    before = snapshot(store)
    argv = ("--store", str(store), "rag", "ingest", "text", str(lib), "--skip-bad")
    code, _, err = _run(capsys, tmp_path, *argv)
    assert code == 1
    assert err.splitlines()[-1] == (
        "error: <DIR>/lib: all 2 text files were skipped as bad, nothing stored (first: "
        "<DIR>/lib/a.txt is empty; pass a file with text); fix the files or ingest another folder"
    )
    assert snapshot(store) == before


def test_skip_bad_is_for_folders(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = str(tmp_path / "kept.txt")
    code, out, err = _run(capsys, tmp_path, "rag", "ingest", "text", kept, "--skip-bad")
    assert (code, out) == (2, "")
    assert err == "error: --skip-bad applies to a folder, and <DIR>/kept.txt is not one; drop it\n"


def test_ingest_folder_from_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "MAX_SOURCE_BYTES", 8192)
    lib = _text_folder(tmp_path)
    for name in ("g-good.epub", "h-bomb.epub"):
        (lib / name).write_bytes(epub_bytes())
    _bomb_epub(lib / "h-bomb.epub")
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    ingest_text(store, tmp_path / "lib" / "a-good.txt", source_id="kept")
    before = store.stats()
    with pytest.raises(IngestError, match=r"b-empty\.txt is empty"):
        ingest_folder(store, lib)  # the kind of each file from its extension
    assert store.stats() == before
    done = ingest_folder(store, lib, skip_bad=True, language="es")
    assert [(r.source_id, r.language) for r in done.results] == [
        ("lib/a-good", "es"),
        ("lib/g-good/ch1", "es"),
        ("lib/sub/f-good", "es"),
    ]
    assert [Path(s.path).name for s in done.skipped] == [
        "b-empty.txt",
        "c-latin.txt",
        "d-binary.txt",
        "e-big.txt",
        "h-bomb.epub",
    ]
    assert "decompression bomb" in done.skipped[-1].reason
    assert all("\n" not in s.reason for s in done.skipped)
    assert all(s.path not in s.reason for s in done.skipped)
    assert done.skipped[0].reason == "is empty; pass a file with text"
    assert store.stats()["sources"] == before["sources"] + 3
