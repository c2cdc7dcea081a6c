"""Ingest test helpers: a recording store, a loopback HTTP server, fixture paths."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from jw_rag.model import Chunk
from jw_rag.store.protocol import SearchHit

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ingest"


class RecordingStore:
    """Keeps chunks per source and the last content hash, like a real store."""

    def __init__(self) -> None:
        self.sources: dict[str, list[Chunk]] = {}
        self.hashes: dict[str, str | None] = {}
        self.calls: list[tuple[str, int, str | None]] = []

    def add(self, chunks: Sequence[Chunk]) -> int:
        for c in chunks:
            self.sources.setdefault(c.source_id, []).append(c)
        return len(chunks)

    def replace_source(
        self, source_id: str, chunks: Sequence[Chunk], *, content_hash: str | None = None
    ) -> bool:
        self.calls.append((source_id, len(chunks), content_hash))
        if content_hash is not None and self.hashes.get(source_id) == content_hash:
            return False
        self.sources[source_id] = list(chunks)
        self.hashes[source_id] = content_hash
        return True

    def delete_source(self, source_id: str) -> int:
        self.hashes.pop(source_id, None)
        return len(self.sources.pop(source_id, []))

    def search(
        self, query: str, k: int = 10, mode: str = "dense", filters: Mapping[str, Any] | None = None
    ) -> list[SearchHit]:
        return []

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        by_id = {c.id: c for chunks in self.sources.values() for c in chunks}
        return [by_id[i] for i in ids if i in by_id]

    def stats(self) -> dict[str, Any]:
        return {"sources": len(self.sources)}


@pytest.fixture
def store() -> RecordingStore:
    return RecordingStore()


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


class _Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(FIXTURES), **kwargs)

    def do_GET(self) -> None:  # noqa: N802 - http.server API
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/article_en.html")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture
def http_base(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Base URL of a loopback server serving tests/fixtures/ingest (and /moved -> article)."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
