"""A folder is all or nothing: when the write fails part-way (a full disk, a
statement the database refuses at the sixth of ten sources), neither SQLite
nor PostgreSQL keeps any source of the folder, what was stored before is
intact, and the message names the cause (a full disk is not "damage")."""

from __future__ import annotations

import contextlib
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from jw_cli.app import main
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import StoreError
from jw_rag.ingest import ingest_folder, ingest_text
from jw_rag.store import open_store
from jw_rag.store.sqlite_store import SQLiteStore

WORDS = "alpha beta gamma delta soul water garden river stone light".split()


def _folder(root: Path, n: int = 10) -> Path:
    folder = root / "lib"
    folder.mkdir()
    for i in range(n):
        rng = random.Random(i)
        paragraphs = (" ".join(rng.choice(WORDS) for _ in range(80)) for _ in range(40))
        (folder / f"s{i}.txt").write_text("\n\n".join(paragraphs), "utf-8")
    return folder


def _kept(tmp_path: Path) -> Path:
    kept = tmp_path / "kept.txt"
    kept.write_text("A source stored before the folder.\n", "utf-8")
    return kept


def _sources(store: object) -> dict[str, int]:
    return dict(store.stats()["per_source"])  # type: ignore[attr-defined]


def test_sqlite_full_disk_stores_nothing_and_says_so(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=32))
    ingest_text(store, _kept(tmp_path))
    before = _sources(store)
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages + 40}")  # room for about 2 sources
    with pytest.raises(StoreError) as info:
        ingest_folder(store, folder)
    assert str(info.value) == (
        f"the disk holding store {tmp_path / 's.sqlite'} is full (database or disk is full): "
        "nothing was written; free space on it (or move the store to a disk with room) and retry"
    )
    assert _sources(store) == before == {"kept": 1}
    store._conn.execute("PRAGMA max_page_count = 1073741823")
    assert len(ingest_folder(store, folder).results) == 10  # with room, all of it
    store.close()


@contextlib.contextmanager
def _tiny_disk(where: Path, size: str) -> Iterator[Path]:
    """A real file system of ``size`` mounted at ``where`` (needs root)."""
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


@pytest.mark.skipif(shutil.which("mount") is None, reason="needs mount(8)")
def test_cli_folder_on_a_full_disk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    folder = _folder(tmp_path)
    with _tiny_disk(tmp_path / "disk", "400k") as disk:
        store = disk / "store.sqlite"
        assert main(["--store", str(store), "rag", "ingest", "text", str(_kept(tmp_path))]) == 0
        capsys.readouterr()
        code = main(["--store", str(store), "rag", "ingest", "text", str(folder)])
        out, err = capsys.readouterr()
        assert code == 1 and out == ""
        assert err == (
            f"error: the disk holding store {store} is full (database or disk is full): nothing "
            "was written; free space on it (or move the store to a disk with room) and retry\n"
        )
        assert main(["--store", str(store), "rag", "stats", "--json"]) == 0
        assert '"per_source": {\n    "kept": 1\n  }' in capsys.readouterr().out


_SQLITE_TRIGGER = (
    "CREATE TRIGGER refuse_sixth BEFORE INSERT ON sources WHEN NEW.source_id = 'lib/s5' "
    "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
)
_PG_TRIGGER = """
CREATE FUNCTION refuse_sixth() RETURNS trigger AS $$
BEGIN
  IF NEW.source_id = 'lib/s5' AND NEW.content_hash IS NOT NULL THEN
    RAISE EXCEPTION 'refused by the test';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER refuse_sixth BEFORE INSERT OR UPDATE ON jw_sources
  FOR EACH ROW EXECUTE FUNCTION refuse_sixth();
"""


def _refuse_sixth(location: str) -> None:
    if location.startswith("postgresql"):
        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute(_PG_TRIGGER)
    else:
        import sqlite3

        conn = sqlite3.connect(location)
        conn.execute(_SQLITE_TRIGGER)
        conn.commit()
        conn.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_write_failing_midway_keeps_none_of_the_folder(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    if backend == "postgres":
        location = request.getfixturevalue("pg_database")()
    else:
        location = str(tmp_path / "s.sqlite")
    folder = _folder(tmp_path)
    with open_store(location, embedder=FakeEmbedder(dim=32)) as store:
        ingest_text(store, _kept(tmp_path))
    _refuse_sixth(location)
    with open_store(location, embedder=FakeEmbedder(dim=32)) as store:
        with pytest.raises(StoreError, match="refused by the test"):
            ingest_folder(store, folder)
        assert _sources(store) == {"kept": 1}
        assert {h.chunk.source_id for h in store.search("garden river", k=50, mode="bm25")} <= {
            "kept"
        }


def test_a_store_without_batches_says_what_was_stored(tmp_path: Path) -> None:
    """A third-party store without transactions writes its batches with
    ``write_one_at_a_time``: the failure names the sources it kept and those it
    did not."""

    class OneAtATime:
        def __init__(self) -> None:
            self.kept: list[str] = []

        def replace_source(self, source_id: str, chunks: object, **_: object) -> bool:
            if source_id == "c":
                raise OSError(28, "No space left on device")
            self.kept.append(source_id)
            return True

    from jw_rag.store import SourceWrite, write_one_at_a_time

    store = OneAtATime()
    writes = [SourceWrite(s, []) for s in "abcde"]
    with pytest.raises(StoreError) as info:
        write_one_at_a_time(store, writes)  # type: ignore[arg-type]
    assert store.kept == ["a", "b"]
    assert str(info.value) == (
        "No space left on device; this store writes one source at a time: stored 2 of 5 "
        "sources before the failure (a, b), not stored: c, d, e"
    )


def test_batch_refuses_one_chunk_id_in_two_sources(tmp_path: Path) -> None:
    from jw_rag.errors import ConfigError
    from jw_rag.model import Chunk
    from jw_rag.store import SourceWrite

    with SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=8)) as store:
        writes = [
            SourceWrite("a", [Chunk("same", "text a", "a")]),
            SourceWrite("b", [Chunk("same", "text b", "b")]),
        ]
        with pytest.raises(ConfigError, match="chunk id 'same' is in sources 'a' and 'b'"):
            store.replace_sources(writes)
        assert store.stats()["chunks"] == 0
