"""The roots an MCP client offers: the folders it lets the server work in.

When the client declared the roots capability, the tools that read files ask
it for its roots (``roots/list``) on every such call, so a change the client
made since (``notifications/roots/list_changed``) is always seen, and a path
must lie under one of them as well as under the server's own roots
(:func:`jw_mcp.roots.confined_path`). Only ``file://`` roots name folders; other
URIs are passed over, so a client offering none of those (or no roots at all)
lets no file be read.
A client without the capability leaves the server's roots alone in force.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import anyio
from mcp.shared.exceptions import MCPError
from mcp.types import ClientCapabilities, ListRootsRequest, ListRootsResult, RootsCapability

from jw_rag.errors import ConfigError

__all__ = ["LIST_TIMEOUT", "client_roots", "root_directory"]

#: Seconds the client has to answer ``roots/list``.
LIST_TIMEOUT = 10.0


def root_directory(uri: str) -> Path | None:
    """The resolved folder a ``file://`` root names; None for other URIs."""
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
        return None
    return Path(url2pathname(unquote(parts.path))).resolve()


def _session(ctx: Any) -> Any:
    try:
        return ctx.session if ctx is not None else None
    except ValueError:  # a Context outside a request (an in-process call)
        return None


async def client_roots(ctx: Any) -> tuple[Path, ...] | None:
    """The folders the client offers, or None when it does not offer roots at all."""
    session = _session(ctx)
    wanted = ClientCapabilities(roots=RootsCapability())
    if session is None or not session.check_client_capability(wanted):
        return None
    try:
        with anyio.fail_after(LIST_TIMEOUT):
            result = await session.send_request(ListRootsRequest(), ListRootsResult)
    except TimeoutError:
        raise ConfigError(
            f"the client did not list its roots within {LIST_TIMEOUT:g} s: try again, "
            "or check the client's roots setting"
        ) from None
    except MCPError as exc:
        raise ConfigError(
            f"the client's roots could not be listed ({exc}): check the client's roots setting"
        ) from None
    found = (root_directory(str(root.uri)) for root in result.roots)
    return tuple(path for path in found if path is not None)
