"""The server's options: fetch limits, call deadlines, worker counts.

Each option is a command-line flag with an environment variable behind it
(the flag wins); values are parsed here once, and a bad one is a one-line
:class:`~jw_rag.errors.ConfigError` naming the flag or variable and what it takes.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from jw_rag.errors import ConfigError

__all__ = [
    "CALL_TIMEOUT",
    "FETCH_TIMEOUT",
    "READ_TIMEOUT",
    "WORKERS",
    "ServerOptions",
    "parse_seconds",
    "parse_size",
    "parse_workers",
    "resolve",
]

#: Seconds an ingest or delete call may take before the agent gets a tool error.
CALL_TIMEOUT = 120.0
#: Seconds a read call (search, list_sources, get_chunk, stats) may take.
READ_TIMEOUT = 60.0
#: Seconds one URL fetch may take in all (connection, redirects and body).
FETCH_TIMEOUT = 60.0
#: Threads for blocking work, in each of the two pools (writes, reads).
WORKERS = 4

_MAX_BYTES = 4 * 1024**3
_MAX_SECONDS = 24 * 3600.0
_MAX_WORKERS = 64
_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]i?b?)?\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """Everything one server is started with besides its store."""

    roots: tuple[Path, ...]
    allow_private_urls: bool = False
    fetch_max_bytes: int | None = None  # None: the library's cap
    fetch_timeout: float = FETCH_TIMEOUT
    call_timeout: float = CALL_TIMEOUT
    read_timeout: float = READ_TIMEOUT
    workers: int = WORKERS


def parse_size(text: str, name: str) -> int:
    """Bytes from ``"65536"``, ``"64K"``, ``"10MiB"`` or ``"1g"`` (binary units)."""
    match = _SIZE.match(text)
    if match is None:
        raise ConfigError(f"{name} {text!r} is not a size: give bytes, e.g. 65536, 64K or 10M")
    unit = (match.group(2) or "")[:1].lower()
    value = int(match.group(1)) * 1024 ** " kmg".index(unit or " ")
    if not 1 <= value <= _MAX_BYTES:
        raise ConfigError(f"{name} {text!r} is out of range: give 1 byte to 4G")
    return value


def parse_seconds(text: str, name: str) -> float:
    """Seconds above 0 and at most a day, e.g. ``"90"`` or ``"0.5"``."""
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{name} {text!r} is not a number: give seconds, e.g. 60") from None
    if not (math.isfinite(value) and 0 < value <= _MAX_SECONDS):
        raise ConfigError(f"{name} {text!r} is out of range: give seconds above 0, up to 86400")
    return value


def parse_workers(text: str, name: str) -> int:
    """A whole number of threads from 1 to 64."""
    if not text.strip().isdigit() or not 1 <= int(text) <= _MAX_WORKERS:
        raise ConfigError(f"{name} {text!r} is not a thread count: give a whole number 1 to 64")
    return int(text)


def _given(flag: str | None, env: Mapping[str, str], var: str) -> tuple[str, str] | None:
    """``(text, name to blame)`` from the flag, else the environment variable."""
    if flag is not None:
        return flag, f"--{var.removeprefix('JW_MCP_').lower().replace('_', '-')}"
    value = env.get(var, "").strip()
    return (value, f"${var}") if value else None


def resolve(
    roots: tuple[Path, ...],
    flags: Mapping[str, str | None],
    *,
    allow_private_urls: bool = False,
    env: Mapping[str, str] | None = None,
) -> ServerOptions:
    """The options from ``flags`` (``{"fetch_max_bytes": "64K", ...}``, None where not
    given) and the ``JW_MCP_*`` environment variables, checked. A fetch timeout not
    given is at most the call timeout; one given may not exceed it."""
    env = os.environ if env is None else env
    parsers = {"fetch_max_bytes": parse_size, "fetch_timeout": parse_seconds,
               "call_timeout": parse_seconds, "read_timeout": parse_seconds,
               "workers": parse_workers}  # fmt: skip
    values: dict[str, int | float] = {}
    for key, parse in parsers.items():
        given = _given(flags.get(key), env, f"JW_MCP_{key.upper()}")
        if given is not None:
            values[key] = parse(*given)
    call_timeout = values.get("call_timeout", CALL_TIMEOUT)
    values.setdefault("fetch_timeout", min(FETCH_TIMEOUT, call_timeout))  # within the call's
    options = ServerOptions(roots=roots, allow_private_urls=allow_private_urls, **values)  # type: ignore[arg-type]
    if options.fetch_timeout > options.call_timeout:
        raise ConfigError(
            f"the fetch timeout ({options.fetch_timeout:g} s) is longer than the call timeout "
            f"({options.call_timeout:g} s): lower --fetch-timeout or raise --call-timeout"
        )
    return options
