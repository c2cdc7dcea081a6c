"""A fetch resolves each host once, checks every address it got, and connects
to a checked address: a name that answers with a public address first and a
loopback one next (DNS rebinding) never reaches the loopback server. The
request keeps the URL's host in its Host header and, over TLS, as the server
name the certificate is verified for. ``socket.getaddrinfo`` is replaced by a
stand-in resolver; every connection the fetch makes is recorded."""

from __future__ import annotations

import datetime
import http.server
import ipaddress
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

import jw_rag.ingest._http as http_hop
from jw_mcp.calls import Setup
from jw_mcp.options import ServerOptions
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import checking_addresses, parse_article

PUBLIC = "93.184.216.34"  # a public address: the tests' network guard refuses to reach it
PAGE = b"<html><body><article><p data-pid='1'>Served words.</p></article></body></html>"


class _Pages(http.server.BaseHTTPRequestHandler):
    """Records each request's path and Host header; ``/to-evil`` redirects to evil.test."""

    seen: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        type(self).seen.append((self.path, self.headers.get("Host", "")))
        if self.path == "/to-evil":
            port = self.server.server_address[1]
            self.send_response(302)
            self.send_header("Location", f"http://evil.test:{port}/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def pages(http_pages: Callable[[type[http.server.BaseHTTPRequestHandler]], str]) -> int:
    _Pages.seen = []
    return int(http_pages(_Pages).rsplit(":", 1)[1])


@pytest.fixture
def network(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[dict[str, list[list[str]]], list[Any], list[str]]]:
    """``(answers, connected, asked)``: ``answers[host]`` is the list of answers the
    stand-in resolver gives ``host`` in turn (the last one repeats), each a list of
    addresses; ``connected`` records every address connected to; ``asked`` every
    host resolved."""
    answers: dict[str, list[list[str]]] = {}
    connected: list[Any] = []
    asked: list[str] = []
    real_resolve = socket.getaddrinfo

    def resolve(host: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host not in answers:
            return real_resolve(host, port, *args, **kwargs)
        asked.append(host)
        turn = answers[host].pop(0) if len(answers[host]) > 1 else answers[host][0]
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "",
                 (a, int(port)) if ":" not in a else (a, int(port), 0, 0)) for a in turn]  # fmt: skip

    guarded = socket.socket.connect  # the tests' network guard: loopback only

    def connect(self: socket.socket, address: Any) -> Any:
        connected.append(address)
        return guarded(self, address)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    monkeypatch.setattr(socket.socket, "connect", connect)
    yield answers, connected, asked


def _as_the_mcp_server_fetches() -> Any:
    """What an MCP ingest call reads under: the default policy (public addresses only)."""
    return Setup.start(ServerOptions(roots=())).reading(None)


def test_a_name_that_rebinds_to_loopback_is_connected_at_the_address_checked(
    pages: int, network: tuple[dict[str, list[list[str]]], list[Any], list[str]]
) -> None:
    answers, connected, asked = network
    answers["rebind.test"] = [[PUBLIC], ["127.0.0.1"]]  # public for the check, then loopback
    with _as_the_mcp_server_fetches(), pytest.raises(IngestError) as info:
        parse_article(f"http://rebind.test:{pages}/page")
    assert "cannot be fetched" in str(info.value) and "\n" not in str(info.value)
    assert connected == [(PUBLIC, pages)]  # the checked address, not a second answer
    assert asked == ["rebind.test"]  # resolved once
    assert _Pages.seen == []  # the loopback server was never reached


def test_every_address_a_host_resolves_to_is_checked_before_connecting(
    pages: int, network: tuple[dict[str, list[list[str]]], list[Any], list[str]]
) -> None:
    answers, connected, _ = network
    answers["mixed.test"] = [[PUBLIC, "127.0.0.1"]]
    answers["nat64.test"] = [["64:ff9b::a9fe:a9fe"]]  # the metadata address through NAT64
    for host, address in (("mixed.test", "127.0.0.1"), ("nat64.test", "64:ff9b::a9fe:a9fe")):
        with _as_the_mcp_server_fetches(), pytest.raises(ConfigError) as info:
            parse_article(f"http://{host}:{pages}/page")
        message = str(info.value)
        assert f"host {host} resolves to {address}, a private, loopback or otherwise " in message
    assert connected == [] and _Pages.seen == []


def test_the_host_header_is_kept_and_every_redirect_hop_is_checked(
    pages: int, network: tuple[dict[str, list[list[str]]], list[Any], list[str]]
) -> None:
    answers, connected, asked = network
    answers["pages.test"] = [["127.0.0.1"]]
    answers["evil.test"] = [["127.0.0.1"]]
    checked: list[tuple[str, str]] = []

    def refuse_evil(url: str, host: str, address: Any) -> None:
        checked.append((host, str(address)))
        if host == "evil.test":
            raise ConfigError(f"{url}: {host} is refused by this test's policy")

    with checking_addresses(refuse_evil):
        doc = parse_article(f"http://pages.test:{pages}/page")
        assert doc.paragraphs[0].text == "Served words."
        with pytest.raises(ConfigError, match="evil.test is refused"):
            parse_article(f"http://pages.test:{pages}/to-evil")
    assert _Pages.seen == [("/page", f"pages.test:{pages}"), ("/to-evil", f"pages.test:{pages}")]
    assert checked == [("pages.test", "127.0.0.1")] * 2 + [("evil.test", "127.0.0.1")]
    assert asked == ["pages.test", "pages.test", "evil.test"]  # once per hop
    assert connected == [("127.0.0.1", pages)] * 2


def _certificate(tmp_path: Path, name: str) -> tuple[Path, Path, Path]:
    """``(ca.pem, cert.pem, key.pem)``: a test CA and a certificate it signed for ``name``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "jw test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(1)
          .not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))  # fmt: skip
    leaf = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(2)
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .sign(ca_key, hashes.SHA256()))  # fmt: skip
    paths = tmp_path / "ca.pem", tmp_path / "cert.pem", tmp_path / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))  # fmt: skip
    return paths


@pytest.fixture
def tls_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, list[str]]]:
    """An https server on loopback whose certificate names ``pages.test`` (signed by a
    test CA the fetch is made to trust); ``(port, server names the clients sent)``."""
    ca, cert, key = _certificate(tmp_path, "pages.test")
    names: list[str] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda _sock, name, _ctx: names.append(name)  # type: ignore[assignment,misc,return-value]
    _Pages.seen = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    httpd.daemon_threads = True
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setattr(http_hop, "ssl_context", lambda: ssl.create_default_context(cafile=ca))
    yield httpd.server_address[1], names
    httpd.shutdown()
    httpd.server_close()


def test_tls_names_and_verifies_the_host_while_connecting_to_the_checked_address(
    tls_pages: tuple[int, list[str]],
    network: tuple[dict[str, list[list[str]]], list[Any], list[str]],
) -> None:
    port, names = tls_pages
    answers, connected, _ = network
    answers["pages.test"] = [["127.0.0.1"]]
    answers["other.test"] = [["127.0.0.1"]]
    checked: list[str] = []
    with checking_addresses(lambda _u, host, address: checked.append(f"{host}={address}")):
        doc = parse_article(f"https://pages.test:{port}/page")
        assert doc.paragraphs[0].text == "Served words."
        with pytest.raises(IngestError) as info:  # the certificate does not name other.test
            parse_article(f"https://other.test:{port}/page")
    assert "cannot be fetched" in str(info.value) and "certificate" in str(info.value).lower()
    assert names == ["pages.test", "other.test"]  # the URL's host as the TLS server name
    assert _Pages.seen == [("/page", f"pages.test:{port}")]
    assert checked == ["pages.test=127.0.0.1", "other.test=127.0.0.1"]
    assert connected == [("127.0.0.1", port)] * 2
    assert ipaddress.ip_address(connected[0][0]).is_loopback
