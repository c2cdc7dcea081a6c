"""A local HTTP server for fetch tests: redirects, pages sent with a content
encoding (:data:`ENCODED`, which a test may add to), ``/stall`` (an answer
only after 5 s, a redirect to itself), ``/trickle-headers...`` (a status line,
then one header byte a second for ten minutes: headers that never end), and at
any other path a page that never ends (a paragraph every 0.1 s for a minute).
:data:`ARRIVED` lists the path of every request as it arrives. Tests serve it
with the ``http_pages`` fixture."""

from __future__ import annotations

import gzip
import http.server
import threading
import time
import zlib

PAGE = "<html><body><article><p>Água viva, {}.</p></article></body></html>"
REDIRECTS = {"/start": "/private", "/to-file": "file:///etc/passwd", "/loop": "/loop"}
#: path -> (Content-Encoding, body)
ENCODED: dict[str, tuple[str, bytes]] = {
    "/gzip": ("gzip", gzip.compress(PAGE.format("gzip").encode())),
    "/deflate": ("deflate", zlib.compress(PAGE.format("deflate").encode())),
    "/br": ("br", b"\x0b\x02\x80hello\x03"),
    "/bomb": ("gzip", gzip.compress(b"<p>" + b"a" * (8 * 1024 * 1024) + b"</p>")),
}


#: The path of every request, in the order they arrived.
ARRIVED: list[str] = []
_ARRIVED_LOCK = threading.Lock()


def _trickle_headers(wfile: object) -> None:
    try:
        wfile.write(b"HTTP/1.1 200 OK\r\n")  # type: ignore[attr-defined]
        for _ in range(600):
            wfile.write(b"X")  # type: ignore[attr-defined]
            wfile.flush()  # type: ignore[attr-defined]
            time.sleep(1)
    except OSError:
        pass  # the fetch gave up and closed the connection


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        with _ARRIVED_LOCK:
            ARRIVED.append(self.path)
        if self.path.startswith("/trickle-headers"):
            _trickle_headers(self.wfile)
            return
        if self.path.startswith("/stall"):  # headers only after 5 s, then a redirect
            time.sleep(5)
            self.send_response(302)
            self.send_header("Location", "/stall")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path in REDIRECTS:
            self.send_response(302)
            self.send_header("Location", REDIRECTS[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if self.path in ENCODED:
            encoding, body = ENCODED[self.path]
            self.send_header("Content-Encoding", encoding)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.end_headers()
        try:
            for _ in range(600):
                self.wfile.write(b"<p>slow</p>")
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass

    def log_message(self, *_args: object) -> None:
        pass


__all__ = ["ARRIVED", "ENCODED", "PAGE", "REDIRECTS", "Handler"]
