"""Per-call deadlines and bounded workers over stdio: 100 calls stuck on a page
that never finishes leave list_sources and search answering, each stuck call
ends in a one-line error, 100 calls on a FIFO are refused at once, and a call
that times out while embedding stores nothing. Short deadlines keep the test
to seconds."""

from __future__ import annotations

import http.server
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.mcp.mcp_client import connect

STOP = threading.Event()  # set when the test ends: every trickling handler returns


class _Trickle(http.server.BaseHTTPRequestHandler):
    """A page that never finishes: a few bytes every 50 ms until the test ends."""

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        try:
            while not STOP.wait(0.05):
                self.wfile.write(b"<p>more</p>")
                self.wfile.flush()
        except OSError:
            pass  # the fetch gave up and closed the connection

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def trickle(http_pages: Callable[[type[http.server.BaseHTTPRequestHandler]], str]) -> object:
    STOP.clear()
    yield http_pages(_Trickle)
    STOP.set()


SERVER = ("--allow-private-urls", "--fetch-timeout", "3", "--call-timeout", "6",
          "--read-timeout", "10", "--workers", "4")  # fmt: skip
STUCK = 100


def _paragraphs(n: int) -> str:
    return "\n\n".join(f"Paragraph {i} says something about topic {i % 7}." for i in range(n))


def test_the_server_answers_after_100_stuck_calls(tmp_path: Path, trickle: str) -> None:
    (tmp_path / "notes.txt").write_text(_paragraphs(5), encoding="utf-8")

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(tmp_path), *SERVER) as c:
            assert not (await c.call("ingest", kind="text", source="notes.txt"))[0]
            errors: list[str] = []

            async def stuck(i: int) -> None:
                error, message = await c.call("ingest", kind="article", source=f"{trickle}/{i}")
                assert error, message
                errors.append(message)

            started = time.monotonic()
            async with anyio.create_task_group() as tg:
                for i in range(STUCK):
                    tg.start_soon(stuck, i)
                await anyio.sleep(0.5)  # every worker is now stuck on the page
                during = time.monotonic()
                error, page = await c.call("list_sources")
                assert not error and page["total"] == 1
                error, hits = await c.call("search", query="topic", mode="bm25", k=2)
                assert not error and hits and hits[0]["source_id"] == "notes"
                answered = time.monotonic() - during
                ended_before = len(errors)
            took = time.monotonic() - started
            assert len(errors) == STUCK and all("\n" not in e for e in errors)
            kinds = ("still downloading after 3 s",  # its fetch's own deadline
                     "did not finish within 6 s and was stopped",  # started late, cut
                     "waited 6 s for one of the server's 4 workers")  # never ran  # fmt: skip
            odd = [e for e in errors if not any(kind in e for kind in kinds)]
            assert not odd, odd[:3]
            # reads never queue behind stuck writes: they answer while most are still stuck
            assert ended_before < STUCK // 2 and answered < 5, (ended_before, answered)
            assert took < 15, took  # 6 s deadlines: no call waited past its own
            print(f"reads {answered:.2f} s, {ended_before}/{STUCK} stuck calls over; {took:.2f} s")
            error, page = await c.call("list_sources")  # still answering, store unchanged
            assert not error and [s["source_id"] for s in page["sources"]] == ["notes"]
            assert not (await c.call("ingest", kind="text", source="notes.txt"))[0]

    anyio.run(scenario)


SLOW_EMBEDDER = (
    "import time\n"
    "from jw_rag.embed.fake import FakeEmbedder\n"
    "_embed = FakeEmbedder.embed\n"
    "def _slow(self, texts):\n"
    "    time.sleep(0.4)\n"
    "    return _embed(self, texts)\n"
    "FakeEmbedder.embed = _slow\n"
)


def test_an_ingest_that_times_out_while_embedding_stores_nothing(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text(_paragraphs(4000), encoding="utf-8")

    async def scenario() -> None:
        async with connect(
            tmp_path, "--root", str(tmp_path), "--call-timeout", "1", "--fetch-timeout", "1",
            prelude=SLOW_EMBEDDER,
        ) as c:  # fmt: skip
            error, message = await c.call("ingest", kind="text", source="long.txt")
            assert error and "\n" not in message
            late = "ingest text long.txt did not finish within 1 s and was stopped; the store "
            assert late + "is unchanged" in message
            await anyio.sleep(3)  # longer than all its batches would take
            error, stats = await c.call("stats")
            assert not error and stats["sources"] == 0 and stats["chunks"] == 0

    anyio.run(scenario)


def test_100_calls_on_a_fifo_are_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")  # nothing ever writes to it: a read would block forever

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(tmp_path), *SERVER) as c:
            errors: list[str] = []

            async def one() -> None:
                errors.append((await c.call("ingest", kind="text", source="pipe.txt"))[1])

            started = time.monotonic()
            async with anyio.create_task_group() as tg:
                for _ in range(STUCK):
                    tg.start_soon(one)
            took = time.monotonic() - started
            assert len(errors) == STUCK and took < 10, took
            assert all("is not a regular file (a device, FIFO or socket)" in e for e in errors)
            error, stats = await c.call("stats")
            assert not error and stats["sources"] == 0

    anyio.run(scenario)


SLOW_SEARCH = (
    "import time\n"
    "from jw_rag.store import SQLiteStore\n"
    "_search = SQLiteStore.search\n"
    "def _slow(self, *args, **kwargs):\n"
    "    time.sleep(2.5)\n"
    "    return _search(self, *args, **kwargs)\n"
    "SQLiteStore.search = _slow\n"
)


def test_a_search_past_its_deadline_is_not_said_to_be_stopped(tmp_path: Path) -> None:
    """A read has no point to stop at (a PostgreSQL full-text query of megabytes
    runs for minutes): its error says it runs on, holding a worker, and what to
    ask for instead; 'was stopped' and 'a smaller source' were wrong for a search."""
    (tmp_path / "notes.txt").write_text("A topic worth a note.\n", encoding="utf-8")

    async def scenario() -> None:
        async with connect(
            tmp_path, "--root", str(tmp_path), "--read-timeout", "1", prelude=SLOW_SEARCH
        ) as c:
            assert not (await c.call("ingest", kind="text", source="notes.txt"))[0]
            error, message = await c.call("search", query="topic", mode="bm25")
            assert error and "\n" not in message
            assert message.endswith(
                "search did not finish within 1 s and was given up (it runs on to its end, "
                "holding one of the server's 4 workers): ask for less (a shorter query, "
                "narrower filters), or start jw-mcp with a longer --read-timeout"
            ), message
            await anyio.sleep(2)  # the search ends; the worker answers again
            error, page = await c.call("list_sources")
            assert not error and page["total"] == 1

    anyio.run(scenario)
