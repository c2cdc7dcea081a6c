"""A loopback HTTP server that replays recorded embedding-API answers."""

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

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "embed"


@dataclass
class Replay:
    """Answers a request with the recorded exchange whose path and body match it,
    else with the next scripted ``(status, raw body)`` pair, else HTTP 599."""

    exchanges: list[dict[str, Any]] = field(default_factory=list)
    script: list[tuple[int, bytes]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""

    def load(self, name: str) -> Replay:
        self.exchanges.extend(json.loads((FIXTURES / name).read_text("utf-8"))["exchanges"])
        return self

    def answer(self, path: str, body: bytes, authorization: str | None) -> tuple[int, bytes]:
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        self.received.append({"path": path, "body": payload, "authorization": authorization})
        if self.script:
            return self.script.pop(0)
        for ex in self.exchanges:
            req = ex["request"]
            if req["path"] != path or req["body"] != payload:
                continue
            if "authorization" in req and req["authorization"] != authorization:
                continue
            return ex["response"]["status"], json.dumps(ex["response"]["body"]).encode()
        return 599, b'{"error": "no recorded answer for this request"}'


@pytest.fixture
def replay() -> Iterator[Replay]:
    state = Replay()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length") or 0)
            status, body = state.answer(
                self.path, self.rfile.read(length), self.headers.get("Authorization")
            )
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
