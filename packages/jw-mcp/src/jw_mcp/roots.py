"""The directories the server may read files from, and the check every path passes.

Roots come from ``jw-mcp --root DIR`` (repeatable), else ``$JW_MCP_ROOTS``
(separated by ``os.pathsep``). Without either the server reads no files at
all (URLs still work): the directory a desktop client starts a server in is
often ``/`` or the user's home, so it is never taken as a root implicitly.

A path is resolved (relative paths against the first root, links followed,
``..`` collapsed) and checked when the call arrives, for a quick answer; and
the library checks it again at the moment it opens the file
(:func:`jw_rag.ingest.checking_paths`), opening exactly the path it checked,
so a link swapped in while the call waited for a worker is refused, not
followed. When the client offers MCP roots, the path must also lie under one
of them (:mod:`jw_mcp.client_roots`). URLs must be ``http://`` or ``https://``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from jw_rag.errors import ConfigError

__all__ = [
    "ENV_VAR",
    "NO_ROOTS",
    "allowed_roots",
    "check_under_roots",
    "confined_file",
    "confined_path",
    "confined_source",
    "is_url",
]

ENV_VAR = "JW_MCP_ROOTS"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")  # two letters or more: not a drive
#: Why a server without roots reads no file, and what to do.
NO_ROOTS = (
    "this server reads no files: it was started without --root (or $JW_MCP_ROOTS); "
    "start jw-mcp with --root DIR naming the folder to read from"
)


def allowed_roots(given: Sequence[str] = ()) -> tuple[Path, ...]:
    """The resolved roots (none when neither ``given`` nor ``$JW_MCP_ROOTS`` names
    any); a root that is not an existing directory is an error."""
    if any(not p.strip() for p in given):
        raise ConfigError("--root '' names no directory: give an existing directory")
    env = [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p.strip()]
    raw = list(given) or env
    roots = tuple(Path(p).expanduser().resolve() for p in raw)
    for root in roots:
        if not root.is_dir():
            raise ConfigError(f"root {root} is not a directory: give an existing directory")
    return roots


def check_under_roots(
    shown: str,
    resolved: Path,
    roots: Sequence[Path],
    client_roots: Sequence[Path] | None = None,
) -> None:
    """Refuse (``ConfigError``, naming ``shown``) a ``resolved`` path that is not under
    one of ``roots`` and, unless ``client_roots`` is None (the client offers none),
    under one of those."""
    if not roots:
        raise ConfigError(NO_ROOTS)
    if not any(resolved.is_relative_to(root) for root in roots):
        names = ", ".join(str(r) for r in roots)
        raise ConfigError(
            f"{shown} is outside the allowed roots ({names}): use a file under them "
            "or start jw-mcp with --root"
        )
    if client_roots is not None and not any(resolved.is_relative_to(r) for r in client_roots):
        names = ", ".join(str(r) for r in client_roots) or "none"
        raise ConfigError(
            f"{shown} is outside the roots the client offers ({names}): use a file under "
            "them or add its folder to the client's roots"
        )


def confined_path(
    path: str, roots: Sequence[Path], client_roots: Sequence[Path] | None = None
) -> Path:
    """``path`` resolved, when it lies under the roots (:func:`check_under_roots`);
    else a ``ConfigError``."""
    if not roots:
        raise ConfigError(NO_ROOTS)
    if not path.strip():  # "" would name the first root itself: every file under it
        raise ConfigError("the path is empty: pass a file under the allowed roots")
    if "\x00" in path:
        raise ConfigError(f"{path!r} holds a NUL character: give a plain file path")
    candidate = Path(path).expanduser()
    if not candidate.is_absolute():
        candidate = roots[0] / candidate
    try:
        resolved = candidate.resolve()
    except RuntimeError as exc:  # Python 3.11 reports a symbolic link loop so
        raise ConfigError(f"{path} is a loop of symbolic links: pass the file itself") from exc
    check_under_roots(path, resolved, roots, client_roots)
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


def confined_file(
    tool: str, path: str, roots: Sequence[Path], client_roots: Sequence[Path] | None = None
) -> Path:
    """The confined path of a tool that reads files only; a URL is refused, naming ``tool``."""
    if is_url(path):
        raise ConfigError(
            f"{tool} reads a file, and {path.strip()} is a URL: download it and pass the "
            "file's path under the server's roots"
        )
    return confined_path(path, roots, client_roots)
