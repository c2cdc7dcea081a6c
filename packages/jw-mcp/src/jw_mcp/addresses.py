"""Refusing URLs whose host is a private, loopback or link-local address.

The ingest tools run this check on every request a fetch makes, the URL given
and each redirect it follows (:func:`jw_rag.ingest.checking_urls`), so a
public page that redirects to a private address is refused at that hop. The
host is resolved and an address that is not globally routable
(``ipaddress``'s ``is_global``) is refused. A host that does not resolve is
left to the fetch, which reports it.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from jw_rag.errors import ConfigError

__all__ = ["refuse_private_host"]


def _addresses(host: str) -> list[str]:
    try:
        return [str(info[4][0]) for info in socket.getaddrinfo(host, None)]
    except (socket.gaierror, UnicodeError):
        return []


def refuse_private_host(url: str) -> None:
    """Raise ``ConfigError`` when ``url``'s host is or resolves to a non-public address."""
    host = urlsplit(url).hostname
    if not host:
        raise ConfigError(f"{url} has no host: give a full http(s) URL")
    for address in _addresses(host):
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if not ip.is_global:
            raise ConfigError(
                f"{url}: host {host} is the private or loopback address {ip}; only public "
                "addresses are fetched (start jw-mcp with --allow-private-urls to allow it)"
            )
