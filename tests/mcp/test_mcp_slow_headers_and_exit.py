"""Over stdio: four ingests of pages whose headers arrive one byte a second end
at the fetch deadline and free the four write workers, so the next call is
served; and a server whose client goes away (its stdin closes) exits within a
few seconds, even with a call still stuck on such a page."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from jw_mcp.workers import Call, CallTimedOut, Pool, begin_write
from tests.mcp.mcp_client import REPO, connect
from tests.robust.hostile_server import ARRIVED, Handler

FETCH = 3.0


@pytest.fixture
def server(http_pages: Callable[[type[http.server.BaseHTTPRequestHandler]], str]) -> str:
    return http_pages(Handler)


@pytest.mark.timeout(120)
def test_four_calls_on_slow_headers_end_at_the_deadline_and_free_the_pool(
    tmp_path: Path, server: str
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "note.txt").write_text("A note about gardens.\n", encoding="utf-8")
    flags = ("--root", str(root), "--allow-private-urls", "--workers", "4",
             "--fetch-timeout", f"{FETCH:g}", "--call-timeout", "60")  # fmt: skip

    async def scenario() -> None:
        async with connect(tmp_path, *flags) as c:
            ended: dict[int, tuple[float, str]] = {}
            started = time.monotonic()

            async def stuck(i: int) -> None:
                error, message = await c.call("ingest",
                                              kind="article", source=f"{server}/trickle-headers/{i}")  # fmt: skip
                assert error
                ended[i] = (time.monotonic() - started, str(message))

            async with anyio.create_task_group() as tg:
                for i in range(4):
                    tg.start_soon(stuck, i)
            for i, (took, message) in ended.items():
                assert f"/trickle-headers/{i}: still downloading after {FETCH:g} s" in message
                # the fetch's own bound is tested to +10%; here the margin covers a busy machine
                assert took < FETCH + 10, (i, took)
            before = time.monotonic()
            error, result = await c.call("ingest", kind="text", source="note.txt")
            assert not error and result[0]["source_id"] == "note"
            served = time.monotonic() - before
            assert served < 10, served  # a worker was free at once
            print(f"four calls ended after {max(t for t, _ in ended.values()):.2f} s; "
                  f"the next call took {served:.2f} s")  # fmt: skip

    anyio.run(scenario)


def _send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()


@pytest.mark.timeout(120)
def test_the_server_exits_when_its_client_goes(tmp_path: Path, server: str) -> None:
    """The client starts a call stuck on slow headers (60 s fetch deadline), then
    closes the server's stdin: the server exits in seconds, not at the deadline."""
    process = subprocess.Popen(
        [sys.executable, "-c", "from jw_mcp.server import main; main()",
         "--allow-private-urls", "--fetch-timeout", "60"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={"JW_STORE": str(tmp_path / "store.sqlite"), "JW_EMBEDDER": "fake",
             "JW_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
        cwd=str(REPO),
    )  # fmt: skip
    try:
        _send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}})  # fmt: skip
        assert process.stdout is not None and b'"id":1' in process.stdout.readline()
        _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        url = f"{server}/trickle-headers/exit"
        _send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ingest", "arguments": {"kind": "article", "source": url}}})  # fmt: skip
        deadline = time.monotonic() + 30
        while "/trickle-headers/exit" not in ARRIVED and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "/trickle-headers/exit" in ARRIVED  # the call is stuck on the page
        time.sleep(0.5)
        closed = time.monotonic()
        assert process.stdin is not None
        process.stdin.close()
        code = process.wait(timeout=30)
        took = time.monotonic() - closed
        print(f"exited {took:.2f} s after its client went")
        assert code == 0 and took < 10, took
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_closing_finishes_a_write_under_way_and_gives_up_the_rest() -> None:
    """In-process: what the server does when its client goes. A call whose write
    began is waited for; a call stuck elsewhere is given up (it never begins to
    write) and left behind after the grace period; a queued call never runs."""
    pool = Pool("t", 2, 30, "--call-timeout")
    release = threading.Event()
    events: list[str] = []

    def writing() -> None:
        begin_write()
        time.sleep(0.5)
        events.append("write finished")

    def stuck() -> None:
        release.wait(10)
        try:
            begin_write()
        except CallTimedOut:
            events.append("stuck call gave up before writing")
            raise

    async def start() -> None:
        async with anyio.create_task_group() as tg:
            for work in (writing, stuck, lambda: events.append("queued call ran")):
                tg.start_soon(_ignore_errors, pool.run("x", work, Call(writes=True)))
                await anyio.sleep(0.1)
            started = time.monotonic()
            ended = await anyio.to_thread.run_sync(pool.stop, 0.3)
            took = time.monotonic() - started
            assert not ended and events == ["write finished"] and 0.3 < took < 3, took
            tg.cancel_scope.cancel()

    anyio.run(start)
    release.set()
    time.sleep(0.2)
    assert events == ["write finished", "stuck call gave up before writing"]


async def _ignore_errors(call: Any) -> None:
    try:
        await call
    except (ToolError, CallTimedOut):
        pass
