"""URL ingestion over MCP: a redirect to ``file://``, a redirect loop, a body
over the size cap and a page still arriving at the deadline are one-line tool
errors; the session stays usable. The server runs with a 64 KiB cap and a
1 s deadline (``--fetch-max-bytes 64K --fetch-timeout 1``) so the test stays fast."""

from __future__ import annotations

import http.server
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.mcp.mcp_client import connect


class _Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path in ("/to-file", "/loop"):
            self.send_response(302)
            self.send_header(
                "Location", "file:///etc/passwd" if self.path == "/to-file" else "/loop"
            )
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        if self.path == "/big":
            self.wfile.write(b"<html><body><p>" + b"a" * 200_000 + b"</p></body></html>")
        elif self.path == "/slow":
            try:
                for _ in range(60):
                    self.wfile.write(b"<p>slow</p>")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
        else:
            self.wfile.write(
                b"<html><body><article><p data-pid='1'>A real page.</p></article></body></html>"
            )

    def log_message(self, *_args: object) -> None:
        pass


LIMITS = ("--fetch-max-bytes", "64K", "--fetch-timeout", "1")


@pytest.fixture
def server(http_pages: Callable[[type[http.server.BaseHTTPRequestHandler]], str]) -> str:
    return http_pages(_Pages)


def test_bad_redirects_are_one_line_errors_and_the_session_goes_on(
    tmp_path: Path, server: str
) -> None:
    async def scenario() -> None:
        async with connect(tmp_path, "--allow-private-urls", *LIMITS) as c:
            started = time.monotonic()
            for path, words in (
                ("/to-file", "cannot be fetched"),
                ("/loop", "cannot be fetched"),
                ("/big", "larger than 64 KiB"),
                ("/slow", "still downloading after 1 s"),
            ):
                error, message = await c.call("ingest", kind="article", source=f"{server}{path}")
                assert error and "\n" not in message and words in message, (path, message)
            assert time.monotonic() - started < 30
            error, result = await c.call("ingest", kind="article", source=f"{server}/page")
            assert not error and result[0]["chunks"] == 1
            error, stats = await c.call("stats")
            assert not error and stats["sources"] == 1

    anyio.run(scenario)
