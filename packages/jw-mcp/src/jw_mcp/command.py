"""The ``jw-mcp`` command line: ``--root`` (repeatable), fetch limits, call deadlines,
worker threads, ``--version``, ``--help``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib.metadata import version

from jw_mcp import options
from jw_mcp.options import ServerOptions
from jw_mcp.roots import ENV_VAR, allowed_roots
from jw_rag.errors import ConfigError
from jw_rag.ingest import MAX_TEXT_BYTES

__all__ = ["parse_args"]

#: ``(flag, metavar, help)`` of the options each with a ``JW_MCP_*`` variable behind it.
_VALUED = (
    ("--fetch-max-bytes", "N", "the largest page an ingest tool downloads (bytes, or with K, M "
     f"or G: 64K, 10M); default $JW_MCP_FETCH_MAX_BYTES, else {MAX_TEXT_BYTES // 2**20}M, "
     "also the most any page may be"),
    ("--fetch-timeout", "SECONDS", "how long one download may take in all (resolving, "
     "connecting, redirects, headers and body; nothing retried past it); default "
     f"$JW_MCP_FETCH_TIMEOUT, else {options.FETCH_TIMEOUT:g} or the call "
     "timeout if shorter"),
    ("--call-timeout", "SECONDS", "how long an ingest or delete call may take before the agent "
     f"gets an error (nothing stored); default $JW_MCP_CALL_TIMEOUT, else {options.CALL_TIMEOUT:g}"),
    ("--read-timeout", "SECONDS", "the same for search, list_sources, get_chunk and stats; "
     f"default $JW_MCP_READ_TIMEOUT, else {options.READ_TIMEOUT:g}"),
    ("--workers", "N", "threads for blocking work, for writes and again for reads (calls beyond "
     f"wait their turn); default $JW_MCP_WORKERS, else {options.WORKERS}"),
)  # fmt: skip

_DESCRIPTION = (
    "Serve jw-agent-toolkit's ingest and search tools over MCP on stdio. "
    "Configure it in an MCP client (see the README); the store is $JW_STORE, "
    "the embedder $JW_EMBEDDER."
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="jw-mcp", description=_DESCRIPTION)
    p.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help=f"a directory the ingest tools may read files under (repeatable); default: "
        f"${ENV_VAR} (separated by the OS path separator); without either the server reads "
        "no files, only URLs (the directory it starts in, often / or your home for a desktop "
        "client, is never a root by itself)",
    )
    p.add_argument(
        "--allow-private-urls",
        action="store_true",
        help="let the ingest tools fetch URLs on private, loopback, link-local or other "
        "non-public addresses (refused by default, IPv6 forms that carry one included)",
    )
    for flag, metavar, text in _VALUED:
        p.add_argument(flag, metavar=metavar, help=text)
    p.add_argument("--version", action="version", version=f"jw-mcp {version('jw-mcp')}")
    return p


def parse_args(argv: Sequence[str] | None = None) -> ServerOptions:
    """The server's options, checked: a bad root or value exits with a one-line error."""
    p = parser()
    args = p.parse_args(argv)
    keys = (flag[2:].replace("-", "_") for flag, _, _ in _VALUED)
    flags = {key: getattr(args, key) for key in keys}
    try:
        roots = allowed_roots(args.root)
        return options.resolve(roots, flags, allow_private_urls=args.allow_private_urls)
    except ConfigError as exc:
        p.error(str(exc))
