"""Which addresses an MCP fetch may connect to, one row per form: every IPv4 and
IPv6 range that is not globally routable unicast is refused, and an IPv6
address that carries an IPv4 address (mapped, NAT64, 6to4) is judged by the
IPv4 address it reaches."""

from __future__ import annotations

import ipaddress

import pytest

from jw_mcp.addresses import is_public_address, refuse_private_address
from jw_rag.errors import ConfigError

REFUSED = [
    ("127.0.0.1", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.1", "private"),
    ("169.254.169.254", "link-local: the cloud metadata address"),
    ("100.64.0.1", "shared address space (carrier-grade NAT)"),
    ("0.0.0.0", "unspecified"),
    ("0.1.2.3", "this network"),
    ("192.0.0.1", "IETF protocol assignments"),
    ("192.0.2.1", "documentation"),
    ("198.18.0.1", "benchmarking"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast (SSDP)"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "broadcast"),
    ("::1", "loopback"),
    ("::", "unspecified"),
    ("::7f00:1", "IPv4-compatible 127.0.0.1"),
    ("::808:808", "IPv4-compatible (deprecated) even of a public address"),
    ("::ffff:127.0.0.1", "IPv4-mapped loopback"),
    ("::ffff:169.254.169.254", "IPv4-mapped metadata address"),
    ("::ffff:10.0.0.1", "IPv4-mapped private"),
    ("64:ff9b::a9fe:a9fe", "NAT64 of the metadata address"),
    ("64:ff9b::7f00:1", "NAT64 of loopback"),
    ("64:ff9b::a00:1", "NAT64 of 10.0.0.1"),
    ("64:ff9b:1::a9fe:a9fe", "local-use NAT64 prefix"),
    ("2002:7f00:1::1", "6to4 of 127.0.0.1"),
    ("2002:a9fe:a9fe::1", "6to4 of the metadata address"),
    ("2002:c0a8:101::1", "6to4 of 192.168.1.1"),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
    ("2001:0:a9fe:a9fe::1", "Teredo whose server is the metadata address"),
    ("fec0::1", "site-local"),
    ("fc00::1", "unique local"),
    ("fd12:3456::1", "unique local"),
    ("fe80::1", "link-local"),
    ("ff02::1", "multicast, link scope"),
    ("ff05::2", "multicast, site scope"),
    ("ff0e::1", "multicast, global scope"),
    ("2001:db8::1", "documentation"),
    ("100::1", "discard prefix"),
    ("5f00::1", "reserved"),
]
PUBLIC = [
    ("8.8.8.8", "public IPv4"),
    ("93.184.216.34", "public IPv4"),
    ("2606:4700:4700::1111", "public IPv6"),
    ("2a00:1450:4001:80b::200e", "public IPv6"),
    ("::ffff:8.8.8.8", "IPv4-mapped public address"),
    ("64:ff9b::808:808", "NAT64 of a public address"),
    ("2002:808:808::1", "6to4 of a public address"),
]


@pytest.mark.parametrize(("address", "what"), REFUSED, ids=[a for a, _ in REFUSED])
def test_non_public_forms_are_refused(address: str, what: str) -> None:
    ip = ipaddress.ip_address(address)
    assert not is_public_address(ip), what
    with pytest.raises(ConfigError) as info:
        refuse_private_address("http://example.test/page", "example.test", ip)
    assert str(info.value) == (
        f"http://example.test/page: host example.test resolves to {ip}, a private, loopback or "
        "otherwise non-public address; only public addresses are fetched (start jw-mcp with "
        "--allow-private-urls to allow it)"
    )


@pytest.mark.parametrize(("address", "what"), PUBLIC, ids=[a for a, _ in PUBLIC])
def test_public_addresses_pass(address: str, what: str) -> None:
    ip = ipaddress.ip_address(address)
    assert is_public_address(ip), what
    refuse_private_address("https://example.test/", "example.test", ip)
