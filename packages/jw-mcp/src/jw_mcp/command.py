"""The ``jw-mcp`` command line: ``--root`` (repeatable), ``--version``, ``--help``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib.metadata import version

from jw_mcp.roots import ENV_VAR, allowed_roots
from jw_rag.errors import ConfigError

__all__ = ["parse_args"]

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
        f"${ENV_VAR} (separated by the OS path separator), else the current directory",
    )
    p.add_argument(
        "--allow-private-urls",
        action="store_true",
        help="let the ingest tools fetch URLs on private, loopback or link-local addresses "
        "(refused by default)",
    )
    p.add_argument("--version", action="version", version=f"jw-mcp {version('jw-mcp')}")
    return p


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """``root`` (the roots given, checked: a bad root exits with a one-line error) and
    ``allow_private_urls``."""
    p = parser()
    args = p.parse_args(argv)
    try:
        allowed_roots(args.root)
    except ConfigError as exc:
        p.error(str(exc))
    return args
