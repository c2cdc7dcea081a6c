"""What a new user's and an attacker's review of the trust fixes found, one
test per finding, each asserting what the user sees: the exit code or error
line, and the data still there."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

import anyio
import numpy as np
import pytest

from jw_cli.app import main
from jw_rag.chunkers.markers import MAX_MARKERS_BYTES
from jw_rag.embed.cache import EmbeddingCache, text_key
from jw_rag.embed.cached import CachedEmbedder
from jw_rag.embed.fake import FakeEmbedder
from jw_rag.errors import IngestError
from jw_rag.ingest import ingest_text
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore, before_writes
from tests.mcp.mcp_client import connect


def _texts(path: Path, source_id: str) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute(
            "SELECT text FROM chunks WHERE source_id = ? AND chunker != 'window'", (source_id,)
        ).fetchall()
    return [r[0] for r in rows]


def test_two_files_racing_for_one_source_id_never_overwrite_each_other(tmp_path: Path) -> None:
    """Two processes ingest different files under one id at the same time: each
    checked the id while it was free, so both used to report "stored" and the
    later one silently replaced the other without --replace."""
    path = tmp_path / "store.sqlite"
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text("The first file speaks of lamps.\n", "utf-8")
    second.write_text("The second file speaks of rivers.\n", "utf-8")
    mine, other = SQLiteStore(path, FakeEmbedder()), SQLiteStore(path, FakeEmbedder())
    raced = []

    def other_process_writes_first() -> None:
        if not raced:
            raced.append(True)
            ingest_text(other, second, source_id="notes")

    with before_writes(other_process_writes_first), pytest.raises(IngestError) as err:
        ingest_text(mine, first, source_id="notes")
    message = str(err.value)
    assert "\n" not in message
    assert str(second) in message and str(first) in message and "--replace" in message
    assert _texts(path, "notes") == ["The second file speaks of rivers."]
    assert mine.get_source("notes")["metadata"]["origin"] == second.as_posix()

    raced.clear()  # with --replace the later ingest wins, as asked
    with before_writes(other_process_writes_first):
        ingest_text(mine, first, source_id="notes", replace=True)
    assert _texts(path, "notes") == ["The first file speaks of lamps."]
    mine.close()
    other.close()


def test_agents_cannot_name_a_model_file_for_the_llm_chunker(tmp_path: Path) -> None:
    """``llm:provider=llamacpp,model=/etc/shadow`` from an agent used to be
    accepted: the server opened the file outside every root and the chunks'
    ``llm_status`` told the agent its first bytes (or that it did not exist)."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "note.txt").write_text("A note about gardens.\n\nHowever, another about water.\n")
    secret = tmp_path / "secret.gguf"
    secret.write_text("root:x:0:0\n")
    refusal = (
        "Error executing tool {tool}: chunker option {option!r} names a file, folder or model "
        "on the server: that is a server-side setting ($JW_CHUNKER), not taken from a client; "
        "drop it"
    )

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            error, message = await c.call("set_chunker", name="llm", options={"model": str(secret)})
            assert (error, message) == (True, refusal.format(tool="set_chunker", option="model"))
            error, message = await c.call(
                "ingest", kind="text", source="note.txt", chunker="llm",
                chunker_options={"provider": "llamacpp", "model": str(secret)},
            )  # fmt: skip
            assert (error, message) == (
                True, refusal.format(tool="ingest", option="provider"))  # fmt: skip
            error, message = await c.call(
                "set_chunker", name="llm", options={"provider": "anthropic"}
            )
            assert (error, message) == (
                True, refusal.format(tool="set_chunker", option="provider"))  # fmt: skip
            assert (await c.call("get_chunker"))[1]["chunker"] == "paragraph"
            error, result = await c.call("ingest", kind="text", source="note.txt")
            assert not error and result[0]["chunks"] >= 1  # the store is usable as before

    anyio.run(scenario)


def test_a_damaged_embedding_cache_entry_does_not_break_search(tmp_path: Path) -> None:
    """A cached vector whose bytes were damaged into NaN or infinity used to be
    served: every search for that question failed, blaming the embedder
    ("fix the embedder"), though the model and the store were fine."""
    inner = FakeEmbedder(dim=16)
    embedder = CachedEmbedder(inner, EmbeddingCache(tmp_path / "cache.sqlite"))
    store = SQLiteStore(tmp_path / "store.sqlite", embedder)
    (tmp_path / "lamps.txt").write_text("Lamps give light in the evening.\n", "utf-8")
    ingest_text(store, tmp_path / "lamps.txt")
    question, other = "Which lamps give light?", "Where is the light?"
    with closing(sqlite3.connect(tmp_path / "cache.sqlite")) as conn:
        for text, value in ((question, np.nan), (other, np.inf)):
            conn.execute(
                "INSERT OR REPLACE INTO embeddings (model_id, text_sha256, dim, vector) "
                "VALUES (?, ?, ?, ?)",
                (inner.model_id, text_key(text), 16, np.full(16, value, np.float32).tobytes()),
            )
        conn.commit()
    for text in (question, other):
        hits = retrieve(store, text, k=3, mode="dense")
        assert [h.chunk.source_id for h in hits] == ["lamps"]
        assert np.allclose(embedder.embed([text]), inner.embed([text]))
    store.close()


@pytest.mark.parametrize("kind", ["device", "fifo", "huge"])
def test_a_markers_path_that_is_no_regular_file_is_one_line(tmp_path: Path, kind: str) -> None:
    """``--chunker semantic:markers_path=/dev/zero`` grew to 14 GB before anything
    stopped it, and a FIFO waited for ever; each is now refused before it is read."""
    text = tmp_path / "note.txt"
    text.write_text("A note about gardens.\n\nHowever, another about water.\n")
    if kind == "device":
        markers = Path("/dev/zero")
        reason = "it is not a regular file (a FIFO, device or socket)"
    elif kind == "fifo":
        markers = tmp_path / "markers.fifo"
        os.mkfifo(markers)
        reason = "it is not a regular file (a FIFO, device or socket)"
    else:
        markers = tmp_path / "markers.json"
        with markers.open("wb") as f:
            f.truncate(MAX_MARKERS_BYTES + 1)
        reason = "it is over 16 MiB"
    spec = f"semantic:markers_path={markers}"
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from jw_cli.app import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, "rag", "chunk", str(text), "--chunker", spec],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "JW_EMBEDDER": "fake", "JW_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert (
        run.stderr == f"error: cannot read markers file {markers}: {reason}; give the "
        "marker lists' JSON file\n"
    )
    assert run.stdout == ""


@pytest.mark.parametrize(
    "command", [["rag", "stats"], ["rag", "search", "water"], ["rag", "ingest", "text"]]
)
def test_a_store_path_that_is_a_fifo_or_device_is_named_as_such(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
) -> None:
    """``--store`` naming a FIFO or /dev/null was "no store at ..." for reads
    (though it exists), and for an ingest "the disk reported an I/O error; check
    the disk" or "cannot rollback - no transaction is active"."""
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    fifo = tmp_path / "store.fifo"
    os.mkfifo(fifo)
    note = tmp_path / "note.txt"
    note.write_text("A note about water.\n")
    argv = [*command, *([str(note)] if command[-1] == "text" else [])]
    for store in (fifo, Path("/dev/null")):
        code = main([*argv, "--store", str(store)])
        err = capsys.readouterr().err
        assert (code, err) == (
            1, f"error: store path {store} is not a regular file (a FIFO, device or socket): "
            "give a file path\n")  # fmt: skip
    assert fifo.exists() and not fifo.is_file()


def test_a_source_id_with_a_line_break_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--source-id $'a\\nb'`` was stored: the id then printed as two lines in
    every listing, and a script reading ``jw rag stats`` saw two sources."""
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    note = tmp_path / "note.txt"
    note.write_text("A note about water.\n")
    store = str(tmp_path / "store.sqlite")
    for bad in ("a\nb", "a\tb", "a\x1bb"):
        code = main(["rag", "ingest", "text", str(note), "--source-id", bad, "--store", store])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1, err
        assert err.startswith(f"error: source_id {bad!r} holds a control character")
    assert not Path(store).exists()  # nothing was stored
    assert main(["rag", "ingest", "text", str(note), "--source-id", "ü/ñ", "--store", store]) == 0


def test_a_full_temporary_folder_is_named_and_the_store_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder ingest larger than one batch stages the rest in a temporary
    file; with the temporary folder full it ended in "error: No space left on
    device", naming neither the folder nor what was stored."""
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    store = str(tmp_path / "store.sqlite")
    kept = tmp_path / "kept.txt"
    kept.write_text("A note to keep about lamps.\n")
    assert main(["rag", "ingest", "text", str(kept), "--store", store]) == 0
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(30):
        (folder / f"f{i}.txt").write_text("\n\n".join(f"Water {i} {j}." for j in range(20)))
    capsys.readouterr()
    full = lambda **_kw: open("/dev/full", "w+b")  # noqa: E731, SIM115 - every write: ENOSPC
    monkeypatch.setattr("jw_rag.store._staging.tempfile.TemporaryFile", full)
    code = main(["rag", "ingest", "text", str(folder), "--store", store])
    err = capsys.readouterr().err
    assert (code, err) == (
        1, f"error: the temporary folder {tempfile.gettempdir()} cannot hold this write's "
        "staged batches (No space left on device); nothing was stored: free space there or "
        "set TMPDIR to a folder with room\n")  # fmt: skip
    monkeypatch.undo()
    with SQLiteStore(store, FakeEmbedder(), read_only=True) as s:
        assert s.stats()["per_source"] == {"kept": 1}
