"""Opening local files: resolved, checked and opened as one step.

:func:`open_local` resolves a path (links followed, ``..`` collapsed), hands
the resolved path to the caller's check (:func:`checking_paths`), which may
refuse it, and then opens exactly that path: one component at a time from the
file system's root, each opened relative to the folder before it and none
followed if it is a link (``O_NOFOLLOW``). A link swapped in anywhere along
the path after the check makes the open fail (the path is resolved and
checked again, and refused if it now leads elsewhere) instead of reading
another file, and the file read is the descriptor that was opened, so the
check and the read are about the same file. Where the system cannot open
relative to a folder (Windows), the resolved path is opened as it is.

A source must be a regular file: a folder, device, FIFO or socket is refused
from the opened descriptor (a FIFO is opened without waiting for a writer). An
http(s) URL is not a path: it is refused here, never read as a relative path.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO

from jw_rag.errors import ConfigError, IngestError

__all__ = ["PathCheck", "RefusedPath", "checked_folder", "checking_paths", "open_local"]

#: Run on every local path a reader opens, with the name it was given and the
#: path resolved (links followed, ``..`` collapsed); it raises to refuse it.
PathCheck = Callable[[str, Path], None]
_PATH_CHECK: ContextVar[PathCheck | None] = ContextVar("jw_rag_path_check", default=None)

_FOLLOW_NONE = getattr(os, "O_NOFOLLOW", 0)
#: Folders on the way are opened only to open what is inside (``O_PATH`` where there is
#: one: that needs the search permission alone, as a plain path lookup does).
_DIR_FLAGS = (
    os.O_RDONLY | getattr(os, "O_PATH", 0) | getattr(os, "O_DIRECTORY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)  # fmt: skip
_FILE_FLAGS = (
    os.O_RDONLY | _FOLLOW_NONE | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)  # fmt: skip
#: Whether each component can be opened relative to the folder before it.
_WALKS = os.open in os.supports_dir_fd and bool(_FOLLOW_NONE)


class RefusedPath(ConfigError):
    """A path the block's check refused (its message is the check's): never
    opened. A folder ingest leaves such a file of the folder out (a link to a
    file outside the allowed roots) and reads the others."""


@contextmanager
def checking_paths(check: PathCheck) -> Iterator[None]:
    """Within the block, every local file a reader opens (and every folder
    whose files it lists) goes through ``check`` at the moment it is opened."""
    token = _PATH_CHECK.set(check)
    try:
        yield
    finally:
        _PATH_CHECK.reset(token)


def _is_url(name: str) -> bool:
    return name.lower().startswith(("http://", "https://"))


def _resolved(name: str, path: Path) -> Path:
    """``path`` resolved and passed through the block's check."""
    try:
        real = Path(os.path.realpath(path))
    except OSError as exc:  # a link on the way was replaced while it was being read
        raise IngestError(
            f"{name} changed while it was being resolved ({exc.strerror or exc}); try again "
            "once it is settled"
        ) from None
    check = _PATH_CHECK.get()
    if check is not None:
        try:
            check(name, real)
        except RefusedPath:
            raise
        except ConfigError as exc:
            raise RefusedPath(str(exc)) from None
    return real


def checked_folder(folder: str | Path) -> Path:
    """``folder`` (user-expanded) after the block's check of its resolved path:
    a folder's files are listed only when the folder itself may be read."""
    path = Path(folder).expanduser()
    _resolved(str(path), path)
    return path


def _open_exactly(real: Path) -> int:
    """A descriptor of ``real`` opened without following any link on the way."""
    if not _WALKS or real == Path(real.anchor):
        return os.open(real, _FILE_FLAGS & ~_FOLLOW_NONE)
    fd = os.open(real.anchor, _DIR_FLAGS)
    try:
        for part in real.parts[1:-1]:
            inner = os.open(part, _DIR_FLAGS | _FOLLOW_NONE, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(real.name, _FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)


def _open_failed(name: str, path: Path, real: Path, exc: OSError) -> IngestError:
    if _resolved(name, path) != real:  # a link changed on the way (refused above if outside)
        return IngestError(f"{name} changed while it was being opened (a link was replaced); "
                           "try again once it is settled")  # fmt: skip
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return IngestError(f"{name}: no such file; check the path")
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return IngestError(f"{name}: cannot be read ({reason}); check its permissions")
    return IngestError(f"{name}: cannot be read ({reason}); check the path")


def refuse_non_path(path: object) -> None:
    """A one-line ConfigError for a source that is no path at all (None, a
    number, bytes): ``pathlib`` would stop with its own TypeError."""
    if not isinstance(path, str | os.PathLike) or isinstance(os.fspath(path), bytes):
        hint = ": decode it with os.fsdecode()" if isinstance(path, bytes | os.PathLike) else ""
        raise ConfigError(
            "the source must be a path or an http(s) URL (a str or pathlib.Path), got "
            f"{type(path).__name__}{hint}"
        )


@contextmanager
def open_local(path: str | Path) -> Iterator[BinaryIO]:
    """The regular file at ``path``, opened as the module docstring says; every
    refusal is a one-line :class:`IngestError` (or what the block's check raises)."""
    refuse_non_path(path)
    if isinstance(path, str) and _is_url(path.strip()):
        raise IngestError(
            f"{path.strip()} is a URL, and this reads a file: download it and pass the file path"
        )
    if "\x00" in str(path):
        raise IngestError(f"{str(path)!r} holds a NUL character; give a plain file path")
    given = Path(path).expanduser()
    name = str(given)
    real = _resolved(name, given)
    try:
        fd = _open_exactly(real)
    except OSError as exc:
        raise _open_failed(name, given, real, exc) from exc
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IngestError(
                f"{name} is a directory; pass a file (or use load_documents for a folder)"
            )
        if not stat.S_ISREG(mode):
            raise IngestError(
                f"{name} is not a regular file (a device, FIFO or socket); pass a file"
            )
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as fh:
        yield fh
