"""The directories the server may read files from, and the check every path passes.

Roots come from ``jw-mcp --root DIR`` (repeatable), else ``$JW_MCP_ROOTS``
(separated by ``os.pathsep``), else the current directory. A path is resolved
(relative paths against the first root, links followed, ``..`` collapsed)
before it is checked, and the resolved path is what gets read. When the
client offers MCP roots, the path must also lie under one of them
(:mod:`jw_mcp.client_roots`). URLs must be ``http://`` or ``https://``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from jw_rag.errors import ConfigError

__all__ = ["ENV_VAR", "allowed_roots", "confined_path", "confined_source", "is_url"]

ENV_VAR = "JW_MCP_ROOTS"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")  # two letters or more: not a drive


def allowed_roots(given: Sequence[str] = ()) -> tuple[Path, ...]:
    """The resolved roots; a root that is not an existing directory is an error."""
    env = [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p.strip()]
    raw = list(given) or env or [os.getcwd()]
    roots = tuple(Path(p).expanduser().resolve() for p in raw)
    for root in roots:
        if not root.is_dir():
            raise ConfigError(f"root {root} is not a directory: give an existing directory")
    return roots


def confined_path(
    path: str, roots: Sequence[Path], client_roots: Sequence[Path] | None = None
) -> Path:
    """``path`` resolved, when it lies under one of ``roots`` and, unless
    ``client_roots`` is None (the client offers none), under one of those; else
    a ``ConfigError``."""
    if not path.strip():  # "" would name the first root itself: every file under it
        raise ConfigError("the path is empty: pass a file under the allowed roots")
    candidate = Path(path).expanduser()
    if not candidate.is_absolute():
        candidate = roots[0] / candidate
    try:
        resolved = candidate.resolve()
    except RuntimeError as exc:  # Python 3.11 reports a symbolic link loop so
        raise ConfigError(f"{path} is a loop of symbolic links: pass the file itself") from exc
    if not any(resolved.is_relative_to(root) for root in roots):
        names = ", ".join(str(r) for r in roots)
        raise ConfigError(
            f"{path} is outside the allowed roots ({names}): use a file under them "
            "or start jw-mcp with --root"
        )
    if client_roots is not None and not any(resolved.is_relative_to(r) for r in client_roots):
        names = ", ".join(str(r) for r in client_roots) or "none"
        raise ConfigError(
            f"{path} is outside the roots the client offers ({names}): use a file under "
            "them or add its folder to the client's roots"
        )
    return resolved


def is_url(url_or_path: str) -> bool:
    """True when ``url_or_path`` starts with a URL scheme (any: see :func:`confined_source`)."""
    return _SCHEME.match(url_or_path.strip()) is not None


def confined_source(
    url_or_path: str, roots: Sequence[Path], client_roots: Sequence[Path] | None = None
) -> str:
    """An ``http(s)`` URL as it is, else the confined path (see :func:`confined_path`)."""
    match = _SCHEME.match(url_or_path.strip())
    if match is None:
        return str(confined_path(url_or_path, roots, client_roots))
    if match.group(1).lower() in ("http", "https"):
        return url_or_path.strip()
    raise ConfigError(
        f"URL scheme {match.group(1)!r} is not allowed: give an http(s) URL or a file path"
    )
