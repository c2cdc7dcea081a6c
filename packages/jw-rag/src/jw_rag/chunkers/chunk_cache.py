"""On-disk cache of LLM chunker answers, one JSON file per key.

Layout: ``<dir>/<key[:2]>/<key>.json`` with ``dir`` =
:func:`jw_rag.config.chunk_cache_dir` (``$JW_CHUNK_CACHE_DIR``) unless given.
The key is the SHA-256 of everything the answer depends on (see
:func:`cache_key`). Writes go to a temporary file in the same directory and
are moved into place with :func:`os.replace`, so a reader sees a whole entry
or none, and two processes writing one key both succeed (the last one stays).
The directory is kept under ``max_bytes`` (default 500 MB) by deleting the
least recently used entries (by mtime; a hit refreshes it), checked when the
cache is first used and after every write. A file that is not a valid entry
is ignored and overwritten by the next write.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jw_rag.config import chunk_cache_dir

__all__ = ["DEFAULT_MAX_BYTES", "ENTRY_FORMAT", "ChunkCache", "cache_key"]

DEFAULT_MAX_BYTES = 500 * 1024 * 1024
ENTRY_FORMAT = 1
_TMP_PREFIX = ".tmp-"
_STALE_TMP_S = 3600.0


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
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ChunkCache:
    """Get and put JSON entries by key, with atomic writes and an LRU size cap."""

    def __init__(self, directory: str | Path | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES):
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.directory = Path(directory).expanduser() if directory else chunk_cache_dir()
        self.max_bytes = max_bytes
        self._checked = False

    def __repr__(self) -> str:
        return f"ChunkCache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _start(self) -> None:
        if not self._checked:
            self._checked = True
            self.enforce_cap()

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
        self._start()
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        body = {**entry, "format": ENTRY_FORMAT, "key": key}
        data = json.dumps(body, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")
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
        self.enforce_cap()
        return path

    def entries(self) -> list[tuple[float, int, Path]]:
        """(mtime, size, path) of every entry, oldest first."""
        out: list[tuple[float, int, Path]] = []
        if not self.directory.is_dir():
            return out
        now = time.time()
        for sub in self.directory.iterdir():
            if not sub.is_dir():
                continue
            for f in sub.iterdir():
                try:
                    st = f.stat()
                except OSError:
                    continue
                if f.name.startswith(_TMP_PREFIX):
                    if now - st.st_mtime > _STALE_TMP_S:
                        _unlink(f)  # left behind by a killed writer
                    continue
                if f.suffix == ".json":
                    out.append((st.st_mtime, st.st_size, f))
        out.sort(key=lambda e: (e[0], e[2].name))
        return out

    def size_bytes(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def enforce_cap(self) -> int:
        """Delete the least recently used entries until the total is within
        ``max_bytes``; returns how many were deleted."""
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        removed = 0
        for _, size, path in entries:
            if total <= self.max_bytes:
                break
            _unlink(path)
            total -= size
            removed += 1
        return removed


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass  # another process evicted it first
