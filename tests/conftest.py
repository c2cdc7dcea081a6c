"""Test isolation: every test gets its own home and cache directories, no
chunker/embedder/store chosen by the environment, and no network."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_BENCH = REPO.parent / "shared" / "bench-data"

_ENV_VARS = (
    "JW_CHUNKER",
    "JW_EMBEDDER",
    "JW_STORE",
    "JW_GEN_PROVIDER",
    "JW_GEN_MODEL",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OLLAMA_HOST",
)


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    home = tmp_path_factory.mktemp("jw-home")
    monkeypatch.setenv("JW_HOME", str(home))
    monkeypatch.setenv("JW_CACHE_DIR", str(home / "cache"))
    monkeypatch.setenv("JW_CHUNK_CACHE_DIR", str(home / "chunk-cache"))
    for var in _ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    return home


_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: object) -> object:  # type: ignore[override]
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and not (
        host.startswith("127.") or host in ("localhost", "::1") or self.family == socket.AF_UNIX
    ):
        raise OSError(f"tests must not use the network (tried {address!r})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


@pytest.fixture
def shared_bench() -> Path:
    """../shared/bench-data, or skip when this clone has none."""
    if not SHARED_BENCH.is_dir():
        pytest.skip(f"needs the shared benchmark data at {SHARED_BENCH} (absent in this clone)")
    return SHARED_BENCH


@pytest.fixture
def http_pages() -> Iterator[Callable[[type[http.server.BaseHTTPRequestHandler]], str]]:
    """Serve a request handler on a loopback port: ``http_pages(Handler)`` is the
    base URL. Every server started is shut down (and its sockets closed) after
    the test; handler threads are daemons, so a handler still sleeping cannot
    keep the test process alive."""
    started: list[http.server.ThreadingHTTPServer] = []

    def serve(handler: type[http.server.BaseHTTPRequestHandler]) -> str:
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        started.append(httpd)
        return f"http://127.0.0.1:{httpd.server_address[1]}"

    yield serve
    for httpd in started:
        httpd.shutdown()
        httpd.server_close()
