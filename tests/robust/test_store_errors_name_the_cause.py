"""A healthy store that cannot be written is never called damaged: a read-only
store file, or a store in a read-only folder, is still searched (CLI and MCP),
and a write names the permission problem and its fix. Opening a store to read
it creates and changes nothing: an empty file stays empty."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from jw_cli.app import main
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import StoreError
from jw_rag.ingest import ingest_text
from jw_rag.store import SQLiteStore, open_store
from tests.mcp.mcp_client import connect

TEXT = "Gardens need water every morning.\n\nThe soil keeps it for the roots.\n"


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[Path]:
    """``path`` (a file or a folder) made read-only for this process: by its
    mode for a normal user, by a read-only bind mount for root (whom modes do
    not stop)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield path
        finally:
            path.chmod(mode)
        return
    if shutil.which("mount") is None:
        pytest.skip("root needs mount(8) to make a file read-only")
    bound = subprocess.run(
        ["mount", "--bind", str(path), str(path)], capture_output=True, text=True
    )
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {bound.stderr.strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], check=True)
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=False)


def _store(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder.parent / "garden.txt").write_text(TEXT, "utf-8")
    path = folder / "store.sqlite"
    with SQLiteStore(path, FakeEmbedder(dim=16)) as store:
        ingest_text(store, folder.parent / "garden.txt", language="en")
    return path


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _cannot_write(store: Path, why: str) -> str:
    return (
        f"error: store {store} cannot be written ({why}): nothing was written; make the file "
        "and its folder writable (e.g. chmod u+w), or copy the store to a writable place; "
        "searching it works as it is\n"
    )


@pytest.mark.parametrize("what", ["file", "folder"])
def test_read_only_store_is_searched_and_writes_name_the_permission(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake:16")
    store = _store(tmp_path / "lib")
    (tmp_path / "more.txt").write_text("Rivers run to the sea.\n", "utf-8")
    before = store.read_bytes()
    with read_only(store if what == "file" else store.parent):
        code, out, err = _cli(capsys, "--store", str(store), "rag", "search", "water", "--json")
        assert (code, err) == (0, "") and json.loads(out)[0]["source_id"] == "garden"
        code, out, err = _cli(capsys, "--store", str(store), "rag", "stats", "--json")
        assert (code, err) == (0, "") and json.loads(out)["per_source"] == {"garden": 1}
        code, out, err = _cli(
            capsys, "--store", str(store), "rag", "ingest", "text", str(tmp_path / "more.txt")
        )
        assert code == 1 and out == ""
        assert "damaged" not in err and "restore it from a copy" not in err
        if what == "file":
            assert err == _cannot_write(
                store, "read-only file or folder: attempt to write a readonly database"
            )
        else:
            assert err == _cannot_write(
                store, "its file or folder cannot be written: unable to open database file"
            )
    assert store.read_bytes() == before


def test_mcp_searches_a_store_in_a_read_only_folder(tmp_path: Path) -> None:
    store = _store(tmp_path / "lib")

    async def scenario() -> None:
        async with connect(tmp_path, JW_STORE=str(store), JW_EMBEDDER="fake:16") as c:
            error, hits = await c.call("search", query="water")
            assert not error and hits[0]["source_id"] == "garden"
            error, stats = await c.call("stats")
            assert not error and stats["per_source"] == {"garden": 1}

    with read_only(store.parent):
        anyio.run(scenario)


def test_reading_an_empty_file_leaves_it_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake:16")
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    message = (
        f"{empty} holds no jw-rag store (an empty database): ingest a source into it first, "
        "or open another store path"
    )
    for command in (["rag", "stats"], ["rag", "search", "water"]):
        code, out, err = _cli(capsys, "--store", str(empty), *command)
        assert (code, out, err) == (1, "", f"error: {message}\n")
    with pytest.raises(StoreError) as info:
        open_store(empty, embedder=FakeEmbedder(dim=16), read_only=True)
    assert str(info.value) == message
    assert empty.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == [
        "empty.sqlite"
    ]

    async def scenario() -> None:
        async with connect(tmp_path, JW_STORE=str(empty)) as c:
            assert await c.call("stats") == (True, f"Error executing tool stats: {message}")

    anyio.run(scenario)
    assert empty.read_bytes() == b""


def test_mcp_write_after_reads_opens_the_store_for_writing(tmp_path: Path) -> None:
    store = _store(tmp_path / "lib")
    (tmp_path / "more.txt").write_text("Rivers run to the sea.\n", "utf-8")

    async def scenario() -> None:
        async with connect(
            tmp_path, "--root", str(tmp_path), JW_STORE=str(store), JW_EMBEDDER="fake:16"
        ) as c:
            assert (await c.call("stats"))[1]["sources"] == 1
            error, result = await c.call("ingest", kind="text", source=str(tmp_path / "more.txt"))
            assert not error and result[0]["chunks"] == 1
            assert (await c.call("stats"))[1]["sources"] == 2

    anyio.run(scenario)


def test_mcp_holder_opens_a_read_only_store_once_for_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jw_mcp.holder import StoreHolder

    monkeypatch.setenv("JW_EMBEDDER", "fake:16")
    store = _store(tmp_path / "lib")
    holder = StoreHolder(lambda: str(store))
    with read_only(store.parent):
        reader = holder.get(existing=True, write=False)
        writer = holder.get()
        assert writer is not reader and holder.get() is writer and holder.opens == 2
        assert getattr(writer, "read_only", False)  # the folder: writes cannot happen
        assert holder.get(existing=True, write=False) is writer
        holder.close()
