"""An embedding cache that cannot be used never stops a search or an ingest:
on a full disk, in a folder that cannot be made, or at a path holding someone
else's file, the embedder goes on without it after one warning naming the
cause, and the other file is left exactly as it was."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.embed import CachedEmbedder, EmbeddingCache, FakeEmbedder
from jw_rag.embed.cache import CACHE_FILENAME


@pytest.fixture
def store(garden_store: Path) -> Path:
    return garden_store


def _search(
    capsys: pytest.CaptureFixture[str],
    store: Path,
    cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, list[str], str]:
    monkeypatch.setenv("JW_CACHE_DIR", str(cache_dir))
    capsys.readouterr()
    code = main(
        ["--store", str(store), "--embedder", "fake:16", "rag", "search", "water", "--json"]
    )
    out, err = capsys.readouterr()
    return code, [h["source_id"] for h in json.loads(out)] if out else [], err


def test_search_with_a_full_disk_under_the_cache(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("mount") is None:
        pytest.skip("needs mount(8)")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.strip()}")
    try:
        (disk / "fill").write_bytes(b"\0" * 60_000)  # what is left cannot hold a database
        code, hits, err = _search(capsys, store, disk / "cache", monkeypatch)
    finally:
        subprocess.run(["umount", str(disk)], check=False)
    assert (code, hits) == (0, ["garden"])
    assert err == (
        f"warning: the disk holding the embedding cache {disk / 'cache' / CACHE_FILENAME} is "
        "full (database or disk is full); free space or set JW_CACHE_DIR to a disk with room; "
        "embedding without the cache for now\n"
    )


def test_search_when_the_cache_folder_cannot_be_made(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go")
    code, hits, err = _search(capsys, store, blocker / "cache", monkeypatch)
    assert (code, hits) == (0, ["garden"])
    assert err.startswith(
        f"warning: cannot create the embedding cache directory {blocker / 'cache'}"
    )
    assert err.endswith("; embedding without the cache for now\n") and err.count("\n") == 1


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_someone_elses_database_at_the_cache_path_is_left_alone(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "project"
    cache_dir.mkdir()
    foreign = cache_dir / CACHE_FILENAME
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
    conn.execute("INSERT INTO invoices VALUES (1, 9.5)")
    conn.commit()
    conn.close()
    before = _digest(foreign)
    code, hits, err = _search(capsys, store, cache_dir, monkeypatch)
    assert (code, hits) == (0, ["garden"])
    assert err == (
        f"warning: {foreign} is a database with other tables (invoices), not an embedding "
        "cache, so it is left as it is; set JW_CACHE_DIR to another directory; embedding "
        "without the cache for now\n"
    )
    assert _digest(foreign) == before
    assert sorted(p.name for p in cache_dir.iterdir()) == [CACHE_FILENAME]


def test_library_embeds_without_an_unusable_cache_and_warns_once(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    embedder = CachedEmbedder(FakeEmbedder(dim=8), EmbeddingCache(blocker / CACHE_FILENAME))
    with pytest.warns(RuntimeWarning, match="cannot create the embedding cache directory") as w:
        first = embedder.embed(["a", "b"])
        second = embedder.embed(["a", "c"])
    assert len(w) == 1 and first.shape == (2, 8) and second.shape == (2, 8)
    assert (first[0] == second[0]).all() and blocker.read_text() == "not a folder"
