"""Writes are all-or-nothing, even when the writing process is killed, and
concurrent writers lose nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from jw_rag.store import SQLiteStore
from tests.store.store_helpers import CountingEmbedder, make_chunks

REPO = Path(__file__).resolve().parents[2]  # the child scripts import tests.store


def _snapshot(path: Path) -> dict[str, Any]:
    with SQLiteStore(path, embedder=CountingEmbedder()) as s:
        st = s.stats()
        st.pop("size_bytes")
        ids = [f"book:{i}" for i in range(400)] + ["other:0", "other:1"]
        return {
            "stats": st,
            "chunks": s.get(ids),
            "parents": s.get_parents(["book:p0"]),
            "source": {k: v for k, v in (s.get_source("book") or {}).items()},
            "bm25": [h.chunk.id for h in s.search("lamps oil number5", k=5, mode="bm25")],
            "dense": [h.chunk.id for h in s.search("old paragraph 3 of book", k=5)],
        }


def _seed(path: Path) -> None:
    from jw_rag.model import Chunk

    with SQLiteStore(path, embedder=CountingEmbedder()) as s:
        parent = Chunk("book:p0", "the old parent", "book")
        s.replace_source(
            "book", make_chunks("book", 300, "old"), content_hash="v1", parents=[parent]
        )
        s.add(make_chunks("other", 2))


class _Boom(RuntimeError):
    pass


def test_exception_mid_write_leaves_store_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    _seed(path)
    before = _snapshot(path)

    class Failing(SQLiteStore):
        batches = 0

        def _insert_batch(self, *args: Any) -> None:
            super()._insert_batch(*args)
            Failing.batches += 1
            if Failing.batches == 3:
                raise _Boom("disk full")

    with Failing(path, embedder=CountingEmbedder()) as s:
        with pytest.raises(_Boom):
            s.replace_source("book", make_chunks("book", 5000, "new"), content_hash="v2")
        # The same connection keeps working after the rollback.
        assert s.stats()["chunks"] == before["stats"]["chunks"]
    assert _snapshot(path) == before


CHILD = textwrap.dedent(
    """
    import time
    from pathlib import Path
    from tests.store.store_helpers import CountingEmbedder, make_chunks
    from jw_rag.store.sqlite_store import SQLiteStore

    class Pausing(SQLiteStore):
        rows = 0
        def _insert_batch(self, conn, rows, *args):
            super()._insert_batch(conn, rows, *args)
            Pausing.rows += len(rows)
            if Pausing.rows >= 8000:  # well inside the transaction, pages spilled to disk
                Path({marker!r}).write_text("writing")
                time.sleep(600)

    store = Pausing({path!r}, embedder=CountingEmbedder())
    store._conn.execute("PRAGMA cache_size = -2000")  # small cache: uncommitted pages spill to disk
    store.replace_source("book", make_chunks("book", 20000, "new"), content_hash="v2")
    """
)


def test_killed_process_mid_replace_leaves_store_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    marker = tmp_path / "marker"
    _seed(path)
    before = _snapshot(path)
    script = CHILD.format(marker=str(marker), path=str(path))
    child = subprocess.Popen([sys.executable, "-c", script], cwd=REPO)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert child.poll() is None, "the writer exited before it was killed"
            assert time.monotonic() < deadline, "the writer never reached the write phase"
            time.sleep(0.05)
        wal = Path(f"{path}-wal")
        # Uncommitted pages really reached the disk before the kill.
        assert wal.exists() and wal.stat().st_size > 1_000_000
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
    assert _snapshot(path) == before
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # and it still takes writes
    with SQLiteStore(path, embedder=CountingEmbedder()) as s:
        assert s.replace_source("book", make_chunks("book", 10, "new"), content_hash="v2")
        assert s.stats()["per_source"] == {"book": 10, "other": 2}


WRITER = textwrap.dedent(
    """
    import time
    from pathlib import Path
    from tests.store.store_helpers import CountingEmbedder, make_chunks
    from jw_rag.store import SQLiteStore

    start = Path({start!r})
    while not start.exists():
        time.sleep(0.01)
    store = SQLiteStore({path!r}, embedder=CountingEmbedder())
    for i in range(25):
        sid = "{name}-" + str(i)
        store.replace_source(sid, make_chunks(sid, 40, "{name}"), content_hash="h")
        store.add(make_chunks(sid + "-extra", 3))
    store.close()
    """
)


def test_two_processes_ingesting_concurrently_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    start = tmp_path / "go"
    SQLiteStore(path, embedder=CountingEmbedder()).close()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WRITER.format(start=str(start), path=str(path), name=name),
            ],
            cwd=REPO,
            stderr=subprocess.PIPE,
        )
        for name in ("alpha", "beta")
    ]
    start.write_text("go")
    for p in procs:
        _, err = p.communicate(timeout=240)
        assert p.returncode == 0, err.decode()
    with SQLiteStore(path, embedder=CountingEmbedder()) as s:
        st = s.stats()
        assert st["chunks"] == 2 * 25 * 43
        assert st["sources"] == 2 * 25 * 2
        assert all(n == 40 for sid, n in st["per_source"].items() if not sid.endswith("extra"))
        hits = s.search("alpha", k=5, mode="bm25", filters={"source_id": "alpha-24"})
        assert len(hits) == 5
