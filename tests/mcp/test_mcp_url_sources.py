"""An http(s) string given to the ingest tool as a pdf, markdown or text source is a URL:
it is fetched through the checked fetch (address policy, size cap, deadline),
never read as a path relative to the server's working directory; the tools
that only read files refuse a URL in one line. The server starts in a folder
holding ``http:/127.0.0.1:PORT/...`` files, which a URL read as a relative path
would reach."""

from __future__ import annotations

import http.server
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.mcp.mcp_client import connect

SECRET = "Working directory words nobody may index."
SERVED = {
    "/notes.md": ("text/markdown", b"# Served\n\nServed markdown words.\n"),
    "/notes.txt": ("text/plain", b"Served text words.\n"),
    "/paper.pdf": ("application/pdf", b"not a PDF at all\n"),
}


class _Served(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        ctype, body = SERVED.get(self.path, ("text/plain", b""))
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def served(http_pages: Callable[[type[http.server.BaseHTTPRequestHandler]], str]) -> str:
    return http_pages(_Served)


def _decoys(cwd: Path, base: str) -> None:
    """Files at the relative paths the URLs would name if read as paths."""
    for path in SERVED:
        decoy = cwd / (base.replace("//", "/") + path)
        decoy.parent.mkdir(parents=True, exist_ok=True)
        decoy.write_text(f"# Decoy\n\n{SECRET}\n", encoding="utf-8")


def test_urls_are_fetched_through_the_checked_fetch_never_read_as_paths(
    tmp_path: Path, served: str
) -> None:
    cwd, root = tmp_path / "cwd", tmp_path / "root"
    root.mkdir()
    _decoys(cwd, served)

    async def scenario(*flags: str) -> list[tuple[bool, object]]:
        async with connect(tmp_path, "--root", str(root), *flags, cwd=cwd) as c:
            answers = [
                await c.call("ingest", kind=kind, source=f"{served}{path}")
                for kind, path in (
                    ("markdown", "/notes.md"),
                    ("text", "/notes.txt"),
                    ("pdf", "/paper.pdf"),
                )  # fmt: skip
            ]
            answers.append(await c.call("ingest", kind="epub", source=f"{served}/book.epub"))
            answers.append(await c.call("stats"))
            return answers

    refused = anyio.run(scenario)  # the loopback server is not a public address
    for error, message in refused[:3]:
        assert error and "\n" not in str(message)
        assert "is 127.0.0.1, a private, loopback or otherwise non-public address" in str(message)
    assert refused[3] == (True, (
        f"Error executing tool ingest: kind 'epub' reads a file, and {served}/book.epub "
        "is a URL: download it and pass the file's path under the server's roots"))  # fmt: skip
    assert refused[4][1]["sources"] == 0  # type: ignore[index]

    fetched = anyio.run(scenario, "--allow-private-urls")
    (e1, markdown), (e2, text), (e3, pdf), (e4, _), (_, stats) = fetched
    assert (
        not e1 and markdown[0]["source_id"] == "127.0.0.1:" + served.rsplit(":", 1)[1] + "/notes.md"
    )  # type: ignore[index]
    assert not e2 and text[0]["chunks"] == 1  # type: ignore[index]
    assert e3 and "\n" not in str(pdf) and f"{served}/paper.pdf" in str(pdf)
    assert "no such file" not in str(pdf)
    assert e4 and stats["sources"] == 2  # type: ignore[index]

    async def contents() -> str:
        async with connect(tmp_path, "--root", str(root), cwd=cwd) as c:
            hits = (await c.call("search", query="words", mode="bm25", k=10))[1]
            return " ".join(h["text"] for h in hits)  # type: ignore[union-attr]

    found = anyio.run(contents)
    assert "Served markdown words." in found and "Served text words." in found
    assert SECRET not in found
