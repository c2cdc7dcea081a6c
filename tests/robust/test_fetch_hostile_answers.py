"""Answers a server should not send are one-line errors, at once, in bounded
memory: header lines past 64 KiB, hundreds of headers, bytes that are not HTTP,
a body shorter than its Content-Length or a broken chunk (never a truncated
page taken as whole), a redirect without an address, to a malformed URL or to
another scheme; and a request line never carries what a URL smuggles in."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from jw_rag.errors import IngestError
from jw_rag.ingest import fetch_limits, parse_article

ANSWERS = {
    "long-header": (b"HTTP/1.1 200 OK\r\nX: " + b"a" * 200_000 + b"\r\n\r\n",
                    "cannot be fetched (got more than 65536 bytes when reading header line)"),
    "many-headers": (b"HTTP/1.1 200 OK\r\n" + b"".join(b"X%d: y\r\n" % i for i in range(300))
                     + b"\r\n", "cannot be fetched (got more than 100 headers)"),
    "not-http": (b"\x00\x01garbage\r\n\r\n", "cannot be fetched (the server's answer is not HTTP)"),
    "short-body": (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n<p>only this</p>",
                   "cannot be fetched (the connection closed before the page ended)"),
    "broken-chunk": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc",
                     "cannot be fetched (the connection closed before the page ended)"),
    "no-location": (b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n",
                    "the server answered HTTP 302 Found without an address to follow"),
    "bad-location": (b"HTTP/1.1 302 Found\r\nLocation: http://[::1\r\nContent-Length: 0\r\n\r\n",
                     "not a valid URL (it redirects to 'http://[::1'): Invalid IPv6 URL"),
    "script-location": (b"HTTP/1.1 301 Moved\r\nLocation: javascript:alert(1)\r\n\r\n",
                        "cannot be fetched (it redirects to 'javascript:alert(1)', not an http(s)"),
}  # fmt: skip


@pytest.fixture
def answering() -> Iterator[Callable[[bytes], tuple[str, list[bytes]]]]:
    """``answering(raw)``: a loopback URL whose server sends ``raw`` to every request,
    and the list of requests it received."""
    listeners: list[socket.socket] = []

    def serve(raw: bytes) -> tuple[str, list[bytes]]:
        listener = socket.create_server(("127.0.0.1", 0))
        listeners.append(listener)
        requests: list[bytes] = []

        def run() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                with conn:
                    requests.append(conn.recv(65536))
                    conn.sendall(raw)
                    time.sleep(0.1)

        threading.Thread(target=run, daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}", requests

    yield serve
    for listener in listeners:
        listener.close()


@pytest.mark.parametrize("name", ANSWERS)
def test_hostile_answers_are_one_line_errors(
    answering: Callable[[bytes], tuple[str, list[bytes]]], name: str
) -> None:
    raw, words = ANSWERS[name]
    base, _ = answering(raw)
    started = time.monotonic()
    with fetch_limits(deadline=10), pytest.raises(IngestError) as info:
        parse_article(f"{base}/{name}")
    message = str(info.value)
    assert message.startswith(f"{base}/{name}: {words}") and "\n" not in message, message
    assert time.monotonic() - started < 2


def test_a_url_cannot_smuggle_lines_into_the_request(
    answering: Callable[[bytes], tuple[str, list[bytes]]],
) -> None:
    page = b"<html><body><article><p>Fine words.</p></article></body></html>"
    base, requests = answering(b"HTTP/1.0 200 OK\r\n\r\n" + page)  # no length: read to the end
    doc = parse_article(f"{base}/a b\r\nX-Smuggled: 1/\u00e1?q=\u00e9 z")
    assert doc.paragraphs[0].text == "Fine words."
    request_line, *headers = requests[0].decode("ascii").split("\r\n")
    # line breaks are dropped from a URL as it is parsed; the rest is percent-encoded
    assert request_line == "GET /a%20bX-Smuggled:%201/%C3%A1?q=%C3%A9%20z HTTP/1.1"
    assert not any(h.startswith("X-Smuggled") for h in headers)
