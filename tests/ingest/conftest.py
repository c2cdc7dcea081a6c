"""Ingest test helpers: a recording store, a loopback HTTP server, fixture paths,
and hand-written PDFs (Helvetica text lines placed on each page)."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from jw_rag.model import Chunk
from jw_rag.store import write_one_at_a_time
from jw_rag.store.protocol import SearchHit, SourceWrite
from jw_rag.windows import is_window

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ingest"


class RecordingStore:
    """Keeps chunks per source and the last content hash, like a real store;
    window units (indexed beside the chunks) are kept apart in ``windows``."""

    def __init__(self) -> None:
        self.sources: dict[str, list[Chunk]] = {}
        self.windows: dict[str, list[Chunk]] = {}
        self.hashes: dict[str, str | None] = {}
        self.calls: list[tuple[str, int, str | None]] = []
        self.metadata: dict[str, dict[str, Any]] = {}

    def add(self, chunks: Sequence[Chunk]) -> int:
        for c in chunks:
            self.sources.setdefault(c.source_id, []).append(c)
        return len(chunks)

    def replace_source(
        self,
        source_id: str,
        chunks: Iterable[Chunk],
        *,
        content_hash: str | None = None,
        parents: Sequence[Chunk] = (),
        source_metadata: Mapping[str, Any] | None = None,
    ) -> bool:
        given = list(chunks)  # read once: the pipeline passes a generator
        units = [c for c in given if is_window(c)]
        chunks = [c for c in given if not is_window(c)]
        self.calls.append((source_id, len(chunks), content_hash))
        self.metadata[source_id] = dict(source_metadata or {})
        if content_hash is not None and self.hashes.get(source_id) == content_hash:
            return False
        self.sources[source_id] = list(chunks)
        self.windows[source_id] = units
        self.hashes[source_id] = content_hash
        return True

    def replace_sources(
        self, writes: Sequence[SourceWrite], *, progress: Callable[[str], None] | None = None
    ) -> list[bool]:
        return write_one_at_a_time(self, writes, progress=progress)

    def get_source(self, source_id: str) -> dict[str, Any] | None:
        return None  # keeps no origins: every id is taken as new

    def delete_source(self, source_id: str) -> int:
        self.hashes.pop(source_id, None)
        return len(self.sources.pop(source_id, []))

    def search(
        self, query: str, k: int = 10, mode: str = "dense", filters: Mapping[str, Any] | None = None
    ) -> list[SearchHit]:
        return []

    def query_vector(self, query: str) -> None:
        return None

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


Line = tuple[float, float, str] | tuple[float, float, str, float]  # x, y, text[, font size]


def _escape(text: str) -> bytes:
    raw = text.encode("cp1252")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _content(lines: list[Line]) -> bytes:
    ops = [b"BT"]
    for line in lines:
        x, y, text = line[0], line[1], line[2]
        size = line[3] if len(line) > 3 else 12  # type: ignore[misc]
        ops.append(f"/F1 {size:g} Tf 1 0 0 1 {x:g} {y:g} Tm".encode())
        ops.append(b"(" + _escape(text) + b") Tj")
    ops.append(b"ET")
    return b"\n".join(ops)


def write_pdf(path: Path, pages: list[list[Line]]) -> Path:
    """A PDF with one page per entry; each line is drawn at (x, y) in points."""
    n = len(pages)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{4 + 2 * i} 0 R".encode() for i in range(n))
        + f"] /Count {n} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for i, lines in enumerate(pages):
        stream = _content(lines)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    path.write_bytes(pdf_file(objects))
    return path


def pdf_file(objects: list[bytes]) -> bytes:
    """A PDF file of ``objects`` (numbered from 1, the first the catalog), with
    its cross-reference table and trailer."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


@pytest.fixture
def make_pdf() -> Callable[[Path, list[list[Line]]], Path]:
    """``write_pdf(path, pages)``: one page per entry, lines of (x, y, text[, size])."""
    return write_pdf
