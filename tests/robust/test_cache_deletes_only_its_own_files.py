"""The LLM chunker's answer cache writes and deletes only in a directory of its
own, and there only files named as its entries: a ``cache_dir`` pointed at a
project (``package.json``, files that look like entries) with
``cache_max_bytes=0`` loses nothing."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.chunkers import get_chunker
from jw_rag.chunkers.chunk_cache import ChunkCache
from jw_rag.errors import ConfigError

NOTE = (
    "Many believe the soul survives death.\n\n"
    "However, Ezekiel 18:4 says the soul who sins will die.\n\n"
    "Gardens need water in summer.\n"
)
ENTRY = "ab" + "0" * 62
MARKER_NAME = "CACHEDIR.TAG"


def _project(root: Path) -> dict[Path, bytes]:
    """A folder that is not a cache: files at the top and one level down,
    some named like cache entries."""
    files = {
        root / "package.json": b'{"name": "app"}',
        root / "src" / "settings.json": b"{}",
        root / "ab" / f"{ENTRY}.json": b'{"mine": true}',
        root / "cd" / "notes.json": b"[]",
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files


def _unchanged(files: dict[Path, bytes]) -> bool:
    return all(p.read_bytes() == data for p, data in files.items())


def test_cli_chunk_with_a_project_as_cache_dir_deletes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    files = _project(project)
    note = tmp_path / "note.txt"
    note.write_text(NOTE, "utf-8")
    spec = f"llm:provider=heuristic,cache_dir={project},cache_max_bytes=0"
    code = main(["rag", "chunk", str(note), "--chunker", spec])
    out, err = capsys.readouterr()
    assert _unchanged(files)
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("*")) == [
        "ab", f"ab/{ENTRY}.json", "cd", "cd/notes.json", "package.json", "src", "src/settings.json"
    ]  # fmt: skip
    assert code == 2 and out == ""
    assert err == (
        f"error: chunk cache_dir {project} holds files the LLM chunker's cache did not write "
        "(e.g. cd/notes.json); it writes and deletes only in a directory of its own: give a "
        "new or empty directory\n"
    )


def test_a_new_directory_becomes_the_cache_and_is_capped(tmp_path: Path) -> None:
    cache_dir = tmp_path / "answers"
    chunker = get_chunker(f"llm:provider=heuristic,cache_dir={cache_dir},cache_max_bytes=0")
    chunker.chunk(NOTE, "note")
    assert (cache_dir / MARKER_NAME).is_file()
    # capped at 0: its own entry is written, then evicted; the marker stays
    assert [p.name for p in cache_dir.rglob("*.json")] == []
    assert (cache_dir / MARKER_NAME).is_file()


def test_files_added_to_its_own_directory_are_never_deleted(tmp_path: Path) -> None:
    cache = ChunkCache(tmp_path / "c", max_bytes=10**9)
    cache.put(ENTRY, {"pad": "x" * 100})
    strangers = {
        tmp_path / "c" / "ab" / "notes.json": b"{}",
        tmp_path / "c" / "ab" / ("ab" + "1" * 62 + ".json.bak"): b"{}",
        tmp_path / "c" / "zz" / ("ab" + "2" * 62 + ".json"): b"{}",
        tmp_path / "c" / "readme.txt": b"hello",
    }
    for path, data in strangers.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    outside = tmp_path / "outside.json"
    outside.write_bytes(b"{}")
    os.symlink(outside, tmp_path / "c" / "ab" / ("ab" + "3" * 62 + ".json"))
    old = tmp_path / "c" / "ab" / ".tmp-user.txt"
    old.write_bytes(b"x")
    os.utime(old, (1000, 1000))
    assert ChunkCache(tmp_path / "c", max_bytes=0).enforce_cap() == 1
    assert _unchanged(strangers) and outside.read_bytes() == b"{}" and old.exists()
    assert not (tmp_path / "c" / "ab" / f"{ENTRY}.json").exists()


def test_a_cache_written_before_the_marker_is_adopted(tmp_path: Path) -> None:
    legacy = tmp_path / "legacy"
    (legacy / "ab").mkdir(parents=True)
    (legacy / "ab" / f"{ENTRY}.json").write_text(json.dumps({"format": 1, "key": ENTRY}))
    cache = ChunkCache(legacy, max_bytes=0)
    assert not (legacy / MARKER_NAME).exists()  # nothing written until first use
    cache.get(ENTRY)  # first use enforces the cap
    assert (legacy / MARKER_NAME).is_file() and not (legacy / "ab" / f"{ENTRY}.json").exists()


@pytest.mark.parametrize("make", ["file", "foreign-tag"])
def test_other_directories_are_refused_before_anything_is_written(
    tmp_path: Path, make: str
) -> None:
    target = tmp_path / "t"
    if make == "file":
        target.write_text("not a directory")
        expected = "is not a directory"
    else:
        target.mkdir()
        (target / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
        (target / "build.bin").write_bytes(b"\0")
        expected = "holds files the LLM chunker's cache did not write (e.g. build.bin)"
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(ConfigError, match=re.escape(expected)):
        ChunkCache(target, max_bytes=0)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10"])
def test_cache_max_bytes_must_be_a_whole_number(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ConfigError, match="cache_max_bytes must be a whole number >= 0"):
        ChunkCache(tmp_path / "c", max_bytes=bad)  # type: ignore[arg-type]
