"""Refusing fetches to addresses that are not public.

The ingest tools check every address the host of each hop of a fetch (the
URL given and every redirect) resolves to, and the fetch connects only to the
addresses checked (:func:`jw_rag.ingest.checking_addresses`): the host is
never resolved a second time, so a name that answers with a public address
for the check and a private one for the connection (DNS rebinding) is not
followed. A host with any non-public address is refused.

Public means globally routable unicast: not private, loopback, link-local,
shared (100.64/10), reserved, unspecified, documentation, benchmarking or
multicast, and for IPv6 also not site-local (``fec0::/10``), unique-local,
Teredo (``2001::/32``, which tunnels to an IPv4 address) or the deprecated
IPv4-compatible form (``::a.b.c.d``). An IPv6 address that carries an IPv4
address is judged by the IPv4 address it reaches: IPv4-mapped
(``::ffff:a.b.c.d``), NAT64 (``64:ff9b::/96``, so ``64:ff9b::a9fe:a9fe`` is
the metadata address 169.254.169.254) and 6to4 (``2002::/16``); the local-use
NAT64 prefix ``64:ff9b:1::/48`` is refused.
"""

from __future__ import annotations

import ipaddress

from jw_rag.errors import ConfigError

__all__ = ["is_public_address", "refuse_private_address"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")
_TEREDO = ipaddress.ip_network("2001::/32")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


def _carried_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv4-mapped, NAT64 or 6to4 address reaches; else None."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip.sixtofour


def _is_public_unicast(ip: IPAddress) -> bool:
    return ip.is_global and not (
        ip.is_multicast or ip.is_reserved or ip.is_private or ip.is_loopback
        or ip.is_link_local or ip.is_unspecified
    )  # fmt: skip


def is_public_address(ip: IPAddress) -> bool:
    """True for a globally routable unicast address (the module docstring says which)."""
    if isinstance(ip, ipaddress.IPv4Address):
        return _is_public_unicast(ip)
    carried = _carried_ipv4(ip)
    if carried is not None:
        return _is_public_unicast(carried)
    if any(ip in net for net in (_SITE_LOCAL, _TEREDO, _IPV4_COMPATIBLE)):
        return False
    return _is_public_unicast(ip) and not ip.is_site_local


def refuse_private_address(url: str, host: str, ip: IPAddress) -> None:
    """Raise ``ConfigError`` when ``ip`` (one address ``host`` resolved to) is not public."""
    if not is_public_address(ip):
        found = f"is {ip}" if host == str(ip) else f"resolves to {ip}"
        raise ConfigError(
            f"{url}: host {host} {found}, a private, loopback or otherwise non-public address; "
            "only public addresses are fetched (start jw-mcp with --allow-private-urls to "
            "allow it)"
        )
