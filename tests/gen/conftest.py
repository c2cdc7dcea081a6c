"""A loopback HTTP server replaying recorded provider answers."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "llm"


def _recorded(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


@dataclass
class Replay:
    """Answers ``path`` with ``status`` and ``body``; keeps every request."""

    url: str
    path: str = ""
    status: int = 200
    body: Any = None
    raw: tuple[str, bytes] | None = None  # (content type, bytes) sent instead of ``body``
    requests: list[dict[str, Any]] = field(default_factory=list)

    def serve(self, name: str, status: int = 200) -> dict[str, Any]:
        """Replay the recorded exchange ``tests/fixtures/llm/<name>.json``."""
        data = _recorded(name)
        self.path = data["path"]
        self.status = status
        self.body = data["ok"] if status == 200 else data["error_500"]
        return data


@pytest.fixture
def replay() -> Iterator[Replay]:
    state = Replay(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            state.requests.append(
                {
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "json": json.loads(raw or b"{}"),
                }
            )
            status = state.status if self.path == state.path else 404
            body = json.dumps(state.body if status != 404 else {"error": "not found"}).encode()
            ctype = "application/json"
            if state.raw is not None and status != 404:
                ctype, body = state.raw
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"
