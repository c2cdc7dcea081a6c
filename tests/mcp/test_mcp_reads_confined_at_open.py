"""A real race over stdio: an ingest whose path passed the roots check waits for
the server's only worker (busy fetching a page that never ends); while
it waits, its file (or a folder on its path) is swapped for a link to a file
outside the roots. The call must be refused when the file is opened, and the
outside file's words must never reach the store."""

from __future__ import annotations

import http.server
import os
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from mcp import types
from mcp.client.session import ClientRequestContext

from tests.mcp.mcp_client import connect
from tests.robust.hostile_server import ARRIVED, Handler

SECRET = "Outside words nobody may index."
SERVER = ("--workers", "1", "--allow-private-urls", "--fetch-timeout", "5",
          "--call-timeout", "60")  # fmt: skip


def _swap_to_link(path: Path, target: Path) -> None:
    """Replace ``path`` by a link to ``target`` in one rename (a folder moves aside first)."""
    link = path.with_name(path.name + ".swap")
    link.symlink_to(target, target_is_directory=target.is_dir())
    if path.is_dir():
        path.rename(path.with_name(path.name + ".old"))
    os.replace(link, path)


async def _until(condition: Callable[[], bool], seconds: float = 20) -> None:
    with anyio.fail_after(seconds):
        while not condition():
            await anyio.sleep(0.05)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("swapped", "tool", "path"), [
    ("file", "text", "notes.txt"),
    ("folder", "markdown", "shelf/notes.md"),
])  # fmt: skip
def test_a_link_swapped_in_while_the_call_waits_for_a_worker_is_not_followed(
    tmp_path: Path,
    http_pages: Callable[[type[http.server.BaseHTTPRequestHandler]], str],
    swapped: str,
    tool: str,
    path: str,
) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    target = root / path
    target.parent.mkdir(parents=True)
    outside.mkdir()
    target.write_text("Inside words anyone may index.\n", encoding="utf-8")
    (outside / target.name).write_text(SECRET + "\n", encoding="utf-8")
    (root / "other.txt").write_text("Another inside note.\n", encoding="utf-8")
    server = http_pages(Handler)
    blocker = f"/never-ends/{swapped}"  # a page still arriving at the 5 s fetch deadline
    asked = anyio.Event()

    async def list_roots(_ctx: ClientRequestContext) -> types.ListRootsResult:
        asked.set()  # only the file call asks: the URL call needs no roots
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri())])

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root), *SERVER, roots=list_roots) as c:
            answers: dict[str, tuple[bool, object]] = {}

            async def call(name: str, kind: str, source: str) -> None:
                answers[name] = await c.call("ingest", kind=kind, source=source)

            async with anyio.create_task_group() as tg:
                tg.start_soon(call, "blocker", "article", server + blocker)
                await _until(lambda: blocker in ARRIVED)  # the only worker is busy now
                tg.start_soon(call, "target", tool, path)
                await asked.wait()  # the call's roots check runs as the client answers
                await anyio.sleep(1.0)  # ...then it waits for the worker
                assert "target" not in answers  # still waiting
                swapped_at = time.monotonic()
                _swap_to_link(target if swapped == "file" else target.parent, outside
                              if swapped == "folder" else outside / target.name)  # fmt: skip
            error, message = answers["target"]
            assert error and "\n" not in str(message), message
            assert "is outside the allowed roots" in str(message), message
            assert time.monotonic() - swapped_at > 0.5  # it was read after the swap
            assert (await c.call("stats"))[1]["sources"] == 0  # nothing of the outside file
            error, result = await c.call("ingest", kind="text", source="other.txt")
            assert not error and result[0]["source_id"] == "other"  # the server goes on
            error, hits = await c.call("search", query="words note", mode="bm25", k=5)
            assert not error and SECRET not in str(hits)

    anyio.run(scenario)
