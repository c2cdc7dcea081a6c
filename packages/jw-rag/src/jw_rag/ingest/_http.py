"""One HTTP GET hop, connected to a vetted address, under a wall-clock deadline.

The URL's host is resolved once (``getaddrinfo`` on a helper thread, so a
resolver that does not answer is left at the deadline). Every address it
resolves to goes through the caller's address check before anything connects,
and the connection is made to those addresses, in the order resolved: nothing
resolves the host a second time, so a name that answers differently the next
time (DNS rebinding) cannot slip a private address in. The request still
carries the URL's host in its ``Host`` header and, for https, as the TLS
server name, and the certificate is verified for that name.

One :class:`Deadline` covers resolving, connecting, the TLS handshake, the
response headers and the body. Every socket operation is timed out at what
is left of it, and a watchdog shuts the socket down when it passes, so a
server that sends one byte a second cannot stretch a hop by resetting a
per-read timeout. Nothing is retried: a connection that fails moves on to the
host's next address, if any, within the same deadline.

Proxies named in the environment are not used: the connection made is the
one that was checked.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

__all__ = [
    "AddressCheck",
    "Deadline",
    "DeadlinePassed",
    "Hop",
    "IPAddress",
    "STEP_TIMEOUT",
    "USER_AGENT",
    "open_hop",
    "resolve",
]

#: The longest any one socket operation may wait, even when more of the deadline is left.
STEP_TIMEOUT = 20.0
USER_AGENT = "jw-agent-toolkit"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: Run on every address a host resolves to, before connecting: ``(url, host,
#: address)``; it raises to refuse the address (and with it the fetch).
AddressCheck = Callable[[str, str, IPAddress], None]


class DeadlinePassed(Exception):
    """The deadline passed before the hop (or the part of it under way) was done."""


@dataclass(frozen=True, slots=True)
class Deadline:
    """A point on the monotonic clock, and the seconds it was set for (for messages)."""

    end: float
    seconds: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds, seconds)

    def left(self) -> float:
        """Seconds left; :class:`DeadlinePassed` when none are."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise DeadlinePassed
        return left

    def passed(self) -> bool:
        return time.monotonic() >= self.end

    def step(self) -> float:
        """The timeout of the next socket operation: what is left, at most :data:`STEP_TIMEOUT`."""
        return min(STEP_TIMEOUT, self.left())


def resolve(host: str, port: int) -> list[tuple[Any, ...]]:
    """``getaddrinfo`` for a TCP connection to ``host:port``; tests replace it."""
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)


def _resolved(host: str, port: int, deadline: Deadline) -> list[tuple[Any, ...]]:
    """:func:`resolve` on a helper thread, given up at the deadline."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["infos"] = resolve(host, port)
        except (OSError, UnicodeError) as exc:
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="jw-resolve", daemon=True).start()
    if not done.wait(deadline.left()):
        raise DeadlinePassed
    if "error" in outcome:
        raise OSError(f"{host} could not be resolved ({outcome['error']})")
    if not outcome["infos"]:
        raise OSError(f"{host} resolves to no address")
    return list(outcome["infos"])


def _address(sockaddr: tuple[Any, ...]) -> IPAddress:
    return ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])


def _connect(url: str, host: str, port: int, deadline: Deadline, check: AddressCheck | None):  # noqa: ANN202 - a socket
    """A TCP socket to one of ``host``'s addresses, each vetted first."""
    infos = _resolved(host, port, deadline)
    if check is not None:
        for info in infos:
            check(url, host, _address(info[4]))
    failure: OSError | None = None
    for family, kind, proto, _, sockaddr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(deadline.step())
            sock.connect(sockaddr)
        except BaseException as exc:
            sock.close()
            if not isinstance(exc, OSError):
                raise
            if deadline.passed():
                raise DeadlinePassed from exc
            failure = exc
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
    assert failure is not None  # infos is never empty
    raise failure


def ssl_context() -> ssl.SSLContext:
    """The context https hops verify certificates with (httpx's: certifi's CA bundle, or
    ``$SSL_CERT_FILE``); tests replace it."""
    return httpx.create_ssl_context()


class _Watchdog:
    """Shuts the connection down when the deadline passes, cutting whatever read,
    write or TLS handshake is under way (it works on the descriptor, which a TLS
    wrap keeps)."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._fd, self._family, self._type = sock.fileno(), sock.family, sock.type
        self._lock = threading.Lock()
        self._stopped = False
        self._timer = threading.Timer(max(0.0, deadline.end - time.monotonic()), self._cut)
        self._timer.daemon = True
        self._timer.start()

    def _cut(self) -> None:
        with self._lock:
            if self._stopped:
                return
            try:
                with socket.fromfd(self._fd, self._family, self._type) as dup:
                    dup.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already shut down by the server

    def stop(self) -> None:
        """Never cut after this returns (call it before closing the socket)."""
        with self._lock:
            self._stopped = True
        self._timer.cancel()


def _target(url: str) -> str:
    """The request target of ``url``: its path and query, percent-encoded where needed."""
    parts = urlsplit(url)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    return quote(target, safe="!#$%&'()*+,/:;=?@[]~")


def _ascii_host(host: str) -> str:
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise OSError(f"{host!r} is not a valid host name") from exc


class Hop:
    """An open response: ``status``, ``reason``, ``headers``, :meth:`read` and :meth:`close`.

    Reads are timed out at what is left of the deadline; the watchdog cuts
    them when it passes. Use it as a context manager."""

    def __init__(self, response: http.client.HTTPResponse, sock: socket.socket, deadline: Deadline,
                 watchdog: _Watchdog) -> None:  # fmt: skip
        self.status = response.status
        self.reason = response.reason
        self.headers = response.headers
        self._response = response
        self._sock = sock
        self._deadline = deadline
        self._watchdog = watchdog

    def header(self, name: str) -> str:
        return self.headers.get(name, "") or ""

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the body as they arrive; b"" at its end.
        :class:`DeadlinePassed` when the deadline passed, even if the server then
        appeared to end the body."""
        self._sock.settimeout(self._deadline.step())
        expected = self._response.length  # bytes still due by Content-Length (None: unknown)
        try:
            data = self._response.read1(size)
        except (OSError, http.client.HTTPException):
            if self._deadline.passed():
                raise DeadlinePassed from None
            raise
        if self._deadline.passed():
            raise DeadlinePassed
        if not data and expected:
            raise http.client.IncompleteRead(b"", expected)  # the server stopped short
        return data

    def close(self) -> None:
        self._watchdog.stop()
        self._response.close()
        self._sock.close()

    def __enter__(self) -> Hop:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def open_hop(
    url: str, deadline: Deadline, check: AddressCheck | None = None, accept_encoding: str = ""
) -> Hop:
    """GET ``url`` (http or https) and read its status line and headers, all
    within ``deadline``; the body is left to :meth:`Hop.read`.

    Raises :class:`DeadlinePassed`, ``OSError`` (no address, refused, TLS
    failure...), ``http.client.HTTPException`` (not an HTTP answer), or what
    ``check`` raises."""
    parts = urlsplit(url)
    https = parts.scheme.lower() == "https"
    if not parts.hostname:
        raise OSError("the URL has no host")
    host = _ascii_host(parts.hostname)
    try:
        port = parts.port or (443 if https else 80)
    except ValueError as exc:
        raise OSError(f"the URL's port is not a port number ({exc})") from None
    sock = _connect(url, host, port, deadline, check)
    watchdog = _Watchdog(sock, deadline)
    try:
        if https:
            sock.settimeout(deadline.step())
            sock = ssl_context().wrap_socket(sock, server_hostname=host)
        conn_class = http.client.HTTPSConnection if https else http.client.HTTPConnection
        conn = conn_class(host, port)
        conn.sock = sock  # already connected (and vetted): nothing resolves the host again
        sock.settimeout(deadline.step())
        conn.putrequest("GET", _target(url), skip_accept_encoding=True)
        for name, value in (("Accept", "*/*"), ("Accept-Encoding", accept_encoding or "identity"),
                            ("User-Agent", USER_AGENT), ("Connection", "close")):  # fmt: skip
            conn.putheader(name, value)
        conn.endheaders()
        sock.settimeout(deadline.step())
        response = conn.getresponse()
    except BaseException as exc:
        watchdog.stop()
        sock.close()
        if isinstance(exc, OSError | http.client.HTTPException) and deadline.passed():
            raise DeadlinePassed from exc
        raise
    return Hop(response, sock, deadline, watchdog)
