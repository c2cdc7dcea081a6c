"""One deadline covers a whole fetch: a resolver that does not answer, a
connection that is never accepted, a TLS handshake or response headers sent
one byte a second, and a body that never ends all stop within the deadline
plus 10%, with the deadline's one-line message; and a connection that fails is
not retried behind the caller's back."""

from __future__ import annotations

import contextlib
import http.server
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from jw_rag.errors import IngestError
from jw_rag.ingest import fetch_limits, parse_article
from tests.robust.hostile_server import Handler

DEADLINE = 3.0
pytestmark = pytest.mark.timeout(120)  # the code before this fix ran for minutes


@pytest.fixture
def server(http_pages: Callable[[type[http.server.BaseHTTPRequestHandler]], str]) -> str:
    return http_pages(Handler)


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every address a socket connects (or tries to connect) to."""
    seen: list[Any] = []
    guarded = socket.socket.connect  # the tests' network guard: loopback only

    def connect(self: socket.socket, address: Any) -> Any:
        seen.append(address)
        return guarded(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


def _fetch_time(url: str, deadline: float = DEADLINE) -> tuple[float, str]:
    """``(seconds taken, one-line error)`` of a fetch of ``url`` that must fail."""
    started = time.monotonic()
    with fetch_limits(deadline=deadline), pytest.raises(IngestError) as info:
        parse_article(url)
    took = time.monotonic() - started
    message = str(info.value)
    assert "\n" not in message
    return took, message


def _assert_cut_at_the_deadline(url: str, deadline: float = DEADLINE) -> None:
    took, message = _fetch_time(url, deadline)
    assert f"{url}: still downloading after {deadline:g} s" in message, message
    assert took <= deadline * 1.1, f"{url} took {took:.2f} s against a {deadline:g} s deadline"
    print(f"{url}: {took:.3f} s for a {deadline:g} s deadline")


def test_response_headers_sent_one_byte_a_second(server: str) -> None:
    _assert_cut_at_the_deadline(f"{server}/trickle-headers")


def test_a_body_that_never_ends(server: str) -> None:
    _assert_cut_at_the_deadline(f"{server}/never-ends")


@contextlib.contextmanager
def _raw_server(serve: Callable[[socket.socket], None], backlog: int = 8) -> Iterator[int]:
    """A loopback TCP port whose accepted connections go to ``serve`` on a thread."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=backlog)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        listener.close()


def test_a_tls_handshake_answered_one_byte_a_second() -> None:
    def trickle(conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            conn.recv(4096)  # the ClientHello
            for byte in b"\x16\x03\x03\x40\x00" + b"\x00" * 600:  # a 16 KiB record, slowly
                conn.sendall(bytes([byte]))
                time.sleep(1)

    with _raw_server(trickle) as port:
        _assert_cut_at_the_deadline(f"https://127.0.0.1:{port}/page")


def test_a_resolver_that_does_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    answered = threading.Event()
    real_resolve = socket.getaddrinfo

    def slow(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "slow-dns.test":
            answered.wait(30)  # a resolver that takes 30 s
        return real_resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    try:
        _assert_cut_at_the_deadline("http://slow-dns.test/page")
    finally:
        answered.set()


def test_a_connection_never_accepted_is_tried_once_within_the_deadline(
    connects: list[Any],
) -> None:
    listener = socket.create_server(("127.0.0.1", 0), backlog=0)
    port = listener.getsockname()[1]
    held = []
    for _ in range(4):  # fill the accept queue: later handshakes are left unanswered
        sock = socket.socket()
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            socket.socket.connect(sock, ("127.0.0.1", port))
        held.append(sock)
    connects.clear()
    try:
        _assert_cut_at_the_deadline(f"http://127.0.0.1:{port}/page", deadline=2.0)
    finally:
        for sock in held:
            sock.close()
        listener.close()
    assert connects == [("127.0.0.1", port)]  # no hidden retry


def test_a_refused_connection_is_not_retried(connects: list[Any]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed again: nothing listens there
    took, message = _fetch_time(f"http://127.0.0.1:{port}/page")
    assert "cannot be fetched" in message and "refused" in message.lower(), message
    assert connects == [("127.0.0.1", port)] and took < 1.0
