"""The chunker each MCP client chose, kept per connection.

The choice lives in the connection's own state (``Connection.state``, which
persists across the requests of one connection): two clients never see each
other's choice. Without a connection object (an in-process call) the server
process's own state is used. The default is ``$JW_CHUNKER``, else
``paragraph``.

What an agent chooses (:func:`agent_chunker`) may not name anything on the
server's disk: options such as ``markers_path``, ``cache_dir`` or ``embedder``
(:func:`jw_rag.chunkers.path_options.path_options`), nested ones included, are
refused in one line as server settings (``$JW_CHUNKER`` may set them), as is
``cache_max_bytes``, which sets how much of the server's disk a cache keeps (0
would delete every LLM answer the server has cached).
Confining them to the roots instead would still let an agent make the server
write its caches into the folders it was given to read, and probe which files
exist there, so they are not accepted at all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from typing import Any

from jw_rag.chunkers import available_chunkers, parse_chunker_spec
from jw_rag.chunkers.path_options import cache_options, path_options
from jw_rag.chunkers.registry import DEFAULT_CHUNKER, ENV_VAR
from jw_rag.errors import ConfigError

__all__ = [
    "agent_chunker",
    "choice",
    "connection_state",
    "default_chunker",
    "set_choice",
    "valid_chunker",
]

_KEY = "jw_mcp.chunker"
_PROCESS_STATE: dict[str, Any] = {}


def connection_state(ctx: Any) -> MutableMapping[str, Any]:
    """The per-connection state dict behind an MCP request context."""
    session = getattr(ctx, "session", None) if ctx is not None else None
    connection = getattr(session, "_connection", None)
    state = getattr(connection, "state", None)
    return state if isinstance(state, MutableMapping) else _PROCESS_STATE


def valid_chunker(name: str, options: Mapping[str, Any] | None = None) -> str:
    """The chunker spec ``name`` (``"semantic"`` or ``"semantic:target_chars=800"``)
    with ``options`` added, normalised; an unknown name is a one-line ConfigError
    (option values are checked when the chunker is built)."""
    chosen, parsed = parse_chunker_spec(name)
    valid = available_chunkers()
    if chosen not in valid:
        raise ConfigError(f"unknown chunker {name!r}; valid names: {', '.join(valid)}")
    for key, value in (options or {}).items():
        if any(mark in str(key) for mark in ",=:") or "," in str(value):
            raise ConfigError(
                f"chunker option {key!r}={value!r} holds a character a chunker spec cannot "
                "hold (',' anywhere, '=' or ':' in a name): give a plain name and value"
            )
    merged = {**parsed, **(options or {})}
    return chosen + (":" + ",".join(f"{k}={v}" for k, v in merged.items()) if merged else "")


def agent_chunker(name: str | None, options: Mapping[str, Any] | None, default: str) -> str:
    """The spec an agent's choice makes: ``name`` (else ``default``, the connection's
    or the server's choice) with ``options`` added. An option of the agent's that
    names something on disk is refused (module docstring); the default's own
    options are the server's and pass."""
    own = valid_chunker(name if name is not None else default.partition(":")[0], options)
    found = path_options(own)
    if found:
        raise ConfigError(
            f"chunker option {found[0]!r} names a file, folder or model on the server: that "
            "is a server-side setting ($JW_CHUNKER), not taken from a client; drop it"
        )
    cached = cache_options(own)
    if cached:
        raise ConfigError(
            f"chunker option {cached[0]!r} sets how much of the server's disk its cache "
            "keeps: that is a server-side setting ($JW_CHUNKER), not taken from a client; "
            "drop it"
        )
    return own if name is not None else valid_chunker(default, options)


def default_chunker() -> tuple[str, str]:
    """``(name, where it came from)``: ``$JW_CHUNKER`` or the built-in default."""
    env = os.environ.get(ENV_VAR)
    return (valid_chunker(env), ENV_VAR) if env else (DEFAULT_CHUNKER, "default")


def choice(state: MutableMapping[str, Any]) -> dict[str, str]:
    """``{"chunker": name, "source": "session" | "JW_CHUNKER" | "default"}``."""
    if _KEY in state:
        return {"chunker": state[_KEY], "source": "session"}
    name, source = default_chunker()
    return {"chunker": name, "source": source}


def set_choice(
    state: MutableMapping[str, Any], name: str, options: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """An agent's choice for its connection (:func:`agent_chunker`), built once
    here so a bad option value is refused now, in one line, not at every later
    ingest."""
    spec = agent_chunker(name, options, DEFAULT_CHUNKER)
    from jw_rag.ingest.pipeline import resolve_chunker

    resolve_chunker(spec)
    state[_KEY] = spec
    return choice(state)
