"""On-disk cache of LLM chunker answers, one JSON file per key.

Layout: ``<dir>/<key[:2]>/<key>.json`` with ``dir`` =
:func:`jw_rag.config.chunk_cache_dir` (``$JW_CHUNK_CACHE_DIR``) unless given.
The key is the SHA-256 of everything the answer depends on (see
:func:`cache_key`). Writes go to a temporary file in the same directory and
are moved into place with :func:`os.replace`, so a reader sees a whole entry
or none, and two processes writing one key both succeed (the last one stays).
The directory is kept under ``max_bytes`` (default 500 MB) by deleting the
least recently used entries (by mtime; a hit refreshes it), checked when the
cache is first used, after a write that takes the total this object knows of
over the cap, and every :data:`RESCAN_WRITES` writes (so writes by other
processes count too; between those scans the directory may exceed the cap by
what the others wrote). Over the cap, entries are deleted until the total is
within 90% of it. A write does not scan the directory each time, so
filling a cache of ``n`` entries costs time linear in ``n``. A file that is not
a valid entry is ignored and overwritten by the next write.

The cache only ever writes or deletes inside a directory it owns: one holding
its marker file (:data:`MARKER_NAME`, a ``CACHEDIR.TAG`` that names this
cache), which it writes into a new or empty directory, or into a directory
laid out entirely as entries of its own (a cache written before the marker
existed). A directory holding anything else is refused with a one-line
:class:`~jw_rag.errors.ConfigError`, before anything is written or deleted.
Even in its own directory it deletes only files named as its entries
(``<2 hex>/<64 hex>.json``) or its own temporary files, never following links.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jw_rag.config import chunk_cache_dir
from jw_rag.errors import ConfigError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "ENTRY_FORMAT",
    "MARKER_NAME",
    "RESCAN_WRITES",
    "ChunkCache",
    "cache_key",
]

DEFAULT_MAX_BYTES = 500 * 1024 * 1024
ENTRY_FORMAT = 1
#: The file that marks a directory as this cache's own (the cache-directory tag
#: backup tools know, with a line naming this cache).
MARKER_NAME = "CACHEDIR.TAG"
_MARKER_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# jw-rag LLM chunker answer cache: files here are written and deleted by it.\n"
)
_MARKER_LINE = _MARKER_TEXT.splitlines()[1]
#: Writes between two scans of the whole directory (module docstring).
RESCAN_WRITES = 256
_TMP_PREFIX = ".tmp-"
_STALE_TMP_S = 3600.0
_SUBDIR = re.compile(r"[0-9a-f]{2}")
_ENTRY = re.compile(r"[0-9a-f]{64}\.json")
_TMP = re.compile(re.escape(_TMP_PREFIX) + r"[A-Za-z0-9_]{1,32}\.json")


def cache_key(
    *,
    source_id: str,
    paragraphs: Sequence[tuple[str | None, str]],
    provider_id: str,
    model: str,
    prompt_version: str,
    params: Mapping[str, Any],
    language: str | None,
) -> str:
    """SHA-256 (hex) over the source id, each paragraph's (id, text), the
    provider, model, prompt version, chunker parameters and language."""
    payload = {
        "source_id": source_id,
        "paragraphs": [[pid, text] for pid, text in paragraphs],
        "provider_id": provider_id,
        "model": model,
        "prompt_version": prompt_version,
        "params": dict(sorted(params.items())),
        "language": language,
    }
    blob = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    # a lone surrogate (text decoded with ``surrogateescape``) is hashed, not refused
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def _is_entry_dir(entry: os.DirEntry[str]) -> bool:
    return bool(_SUBDIR.fullmatch(entry.name)) and entry.is_dir(follow_symlinks=False)


def _own_file(entry: os.DirEntry[str]) -> bool:
    """An entry or a temporary file of this cache (a regular file, not a link)."""
    named = _ENTRY.fullmatch(entry.name) or _TMP.fullmatch(entry.name)
    return bool(named) and entry.is_file(follow_symlinks=False)


def _stranger(directory: Path) -> str | None:
    """The first name in ``directory`` this cache did not write (None: all are its own)."""
    with os.scandir(directory) as top:
        for entry in sorted(top, key=lambda e: e.name):
            if entry.name == MARKER_NAME:
                continue
            if not _is_entry_dir(entry):
                return entry.name
            with os.scandir(entry.path) as sub:
                for item in sorted(sub, key=lambda e: e.name):
                    if not _own_file(item):
                        return f"{entry.name}/{item.name}"
    return None


class ChunkCache:
    """Get and put JSON entries by key, with atomic writes and an LRU size cap."""

    def __init__(self, directory: str | Path | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES):
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise ConfigError(f"cache_max_bytes must be a whole number >= 0, got {max_bytes!r}")
        self.directory = Path(directory).expanduser() if directory else chunk_cache_dir()
        self.max_bytes = max_bytes
        self._checked = False
        self._owned = False
        self._total: int | None = None  # bytes of entries as of the last scan, plus writes
        self._writes = 0
        self.check_directory()

    def __repr__(self) -> str:
        return f"ChunkCache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    # -- the directory it owns ------------------------------------------------

    def _has_marker(self) -> bool:
        marker = self.directory / MARKER_NAME
        if marker.is_symlink() or not marker.is_file():
            return False
        try:
            return _MARKER_LINE in marker.read_text("utf-8", errors="replace")
        except OSError:
            return False

    def check_directory(self) -> None:
        """Refuse (one-line :class:`ConfigError`) a directory that is not this
        cache's: one that exists and holds files it did not write. Reads only."""
        d = self.directory
        if not os.path.lexists(d) or self._has_marker():
            return
        if not d.is_dir():
            raise ConfigError(
                f"chunk cache_dir {d} is not a directory: give a new or empty directory "
                "for the LLM chunker's cache"
            )
        try:
            stranger = _stranger(d)
        except OSError as exc:
            raise ConfigError(
                f"chunk cache_dir {d} cannot be read ({exc.strerror or exc}): give a "
                "readable directory for the LLM chunker's cache"
            ) from None
        if stranger is not None:
            raise ConfigError(
                f"chunk cache_dir {d} holds files the LLM chunker's cache did not write "
                f"(e.g. {stranger}); it writes and deletes only in a directory of its own: "
                "give a new or empty directory"
            )

    def _own(self) -> None:
        """Make sure the directory is this cache's (marking a new, empty or
        old-layout one) before anything in it is written or deleted."""
        if self._owned:
            return
        self.check_directory()
        if not self._has_marker():
            self.directory.mkdir(parents=True, exist_ok=True)
            self.check_directory()  # created or changed meanwhile
            (self.directory / MARKER_NAME).write_text(_MARKER_TEXT, "utf-8")
        self._owned = True

    def _start(self) -> None:
        if not self._checked:
            self._checked = True
            try:
                self.enforce_cap()
            except OSError:
                pass  # a read-only cache still answers; a write will say what is wrong

    # -- entries --------------------------------------------------------------

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry stored under ``key``, or None (absent or corrupt). A hit
        refreshes the file's mtime, which is what the LRU cap goes by."""
        self._start()
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        try:
            entry = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None
        if not (
            isinstance(entry, dict)
            and entry.get("format") == ENTRY_FORMAT
            and entry.get("key") == key
        ):
            return None
        try:
            os.utime(path)
        except OSError:
            pass  # a read-only cache still answers
        return entry

    def put(self, key: str, entry: Mapping[str, Any]) -> Path:
        """Store ``entry`` (plus ``format`` and ``key``) atomically; then enforce the cap."""
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            raise ConfigError(f"a chunk cache key is 64 lowercase hex digits, got {key!r}")
        self._start()
        self._own()
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        body = {**entry, "format": ENTRY_FORMAT, "key": key}
        try:
            data = json.dumps(body, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate is written escaped, still valid UTF-8
            data = json.dumps(body, ensure_ascii=True, indent=1, sort_keys=True).encode("ascii")
        try:
            replaced = os.lstat(path).st_size
        except OSError:
            replaced = 0
        fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        self._writes += 1
        if self._total is not None:
            self._total += len(data) - replaced
        if self._total is None or self._total > self.max_bytes or self._writes % RESCAN_WRITES == 0:
            self.enforce_cap()
        return path

    def entries(self) -> list[tuple[float, int, Path]]:
        """(mtime, size, path) of every entry, oldest first: files named as
        entries in entry subdirectories, links never followed."""
        return self._scan()[0]

    def _scan(self) -> tuple[list[tuple[float, int, Path]], list[Path]]:
        """The entries (as :meth:`entries`) and the temporary files a killed
        writer left more than an hour ago."""
        entries: list[tuple[float, int, Path]] = []
        stale: list[Path] = []
        if not self.directory.is_dir():
            return entries, stale
        now = time.time()
        with os.scandir(self.directory) as top:
            subdirs = [e.path for e in top if _is_entry_dir(e)]
        for sub in subdirs:
            try:
                with os.scandir(sub) as items:
                    found = [(e, e.stat(follow_symlinks=False)) for e in items if _own_file(e)]
            except OSError:
                continue
            for e, st in found:
                if _ENTRY.fullmatch(e.name):
                    entries.append((st.st_mtime, st.st_size, Path(e.path)))
                elif now - st.st_mtime > _STALE_TMP_S:
                    stale.append(Path(e.path))
        entries.sort(key=lambda e: (e[0], e[2].name))
        return entries, stale

    def size_bytes(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def enforce_cap(self) -> int:
        """Delete the least recently used entries until the total is within
        ``max_bytes``, and temporary files a killed writer left over an hour
        ago; returns how many entries were deleted. Nothing is deleted in a
        directory that is not this cache's (see the module docstring)."""
        entries, stale = self._scan()
        total = sum(size for _, size, _ in entries)
        self._total = total
        if total <= self.max_bytes and not stale:
            return 0
        self._own()
        for path in stale:
            _unlink(path)
        removed = 0
        # over the cap, evict down to 90% of it, so the writes that follow do not
        # each scan the directory again
        goal = self.max_bytes - self.max_bytes // 10 if total > self.max_bytes else total
        for _, size, path in entries:
            if total <= goal:
                break
            _unlink(path)
            total -= size
            removed += 1
        self._total = total
        return removed


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass  # another process evicted it first
