"""The embedding cache: one SQLite file mapping (model_id, sha256(text)) to a vector.

Several processes may read and write it at once (WAL journal, a busy timeout,
``INSERT OR IGNORE`` in one transaction per batch: the first writer of a key
wins and every later writer of the same key would have written the same vector).
A SQLite file SQLite cannot read is renamed ``<name>.corrupt-<timestamp>`` with a
warning and a fresh cache is started in its place, so a damaged cache costs
re-embedding, never a failure (its bytes are kept under that name). A SQLite
database with tables of its own is someone else's: it is refused and left
exactly as it is (nothing is created in it), as are a full disk and a
read-only file or folder, each named as such; :class:`~jw_rag.embed.CachedEmbedder`
then embeds without the cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from jw_rag import config
from jw_rag._sqlite_errors import sqlite_cause
from jw_rag._wal import enable_wal
from jw_rag.embed.protocol import Vectors
from jw_rag.errors import ConfigError, EmbeddingError

__all__ = ["CACHE_FILENAME", "EmbeddingCache", "text_key"]

CACHE_FILENAME = "embeddings.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model_id TEXT NOT NULL,
    text_sha256 BLOB NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model_id, text_sha256)
) WITHOUT ROWID
"""
_CORRUPT_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_MAX_PARAMS = 500
_log = logging.getLogger(__name__)
T = TypeVar("T")


def text_key(text: str) -> bytes:
    """The 32-byte SHA-256 of ``text`` in UTF-8, the cache key next to the model id."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _CORRUPT_CODES
    msg = str(exc).lower()
    return "not a database" in msg or "malformed" in msg


class EmbeddingCache:
    """Vectors by model and text, in ``path`` (default ``cache_dir()/embeddings.sqlite``).

    The file is opened on first use. A connection is never shared across a fork:
    a child process opens its own.
    """

    def __init__(self, path: Path | str | None = None, *, busy_timeout: float = 30.0) -> None:
        self.path = (
            Path(path).expanduser() if path is not None else config.cache_dir() / CACHE_FILENAME
        )
        self.busy_timeout = busy_timeout
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.RLock()

    # -- connection ---------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EmbeddingError(
                f"cannot create the embedding cache directory {self.path.parent}: {exc}; "
                "set JW_CACHE_DIR to a writable directory"
            ) from exc
        for attempt in (1, 2):
            conn = None
            try:
                conn = sqlite3.connect(
                    self.path,
                    timeout=self.busy_timeout,
                    isolation_level=None,
                    check_same_thread=False,
                )
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
                self._refuse_foreign_tables(conn)
                enable_wal(conn, self.busy_timeout)
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute(_SCHEMA)
                conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchall()
                return conn
            except sqlite3.DatabaseError as exc:
                if conn is not None:
                    conn.close()
                if attempt == 2 or not _is_corrupt(exc):
                    raise self._failure(exc, "cannot open") from exc
                self._move_aside(exc)
            except BaseException:
                if conn is not None:
                    conn.close()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _refuse_foreign_tables(self, conn: sqlite3.Connection) -> None:
        """A SQLite database with tables of its own is someone else's: refused."""
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        others = sorted(names - {"embeddings"})
        if others:
            raise EmbeddingError(
                f"{self.path} is a database with other tables ({', '.join(others[:3])}), not an "
                "embedding cache, so it is left as it is; set JW_CACHE_DIR to another directory"
            )

    def _failure(self, exc: sqlite3.Error, doing: str) -> EmbeddingError:
        """A SQLite error of the cache as a one-line EmbeddingError naming its cause."""
        cause = sqlite_cause(exc)
        where = f"the embedding cache {self.path}"
        if cause == "full":
            return EmbeddingError(
                f"the disk holding {where} is full ({exc}); free space or set JW_CACHE_DIR "
                "to a disk with room"
            )
        if cause in ("readonly", "cantopen", "permission"):
            return EmbeddingError(
                f"{where} cannot be written ({exc}): its file or folder is read-only; make it "
                "writable or set JW_CACHE_DIR to a writable directory"
            )
        return EmbeddingError(f"{doing} {where}: {exc}; set JW_CACHE_DIR elsewhere")

    def _move_aside(self, exc: BaseException) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
        try:
            os.replace(self.path, target)
        except FileNotFoundError:  # another process moved it first
            return
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                os.replace(side, target.with_name(target.name + suffix))
        message = (
            f"embedding cache {self.path} was unreadable ({exc}); moved it to {target.name} "
            "and started an empty cache"
        )
        _log.warning(message)
        warnings.warn(message, RuntimeWarning, stacklevel=4)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            self._conn = self._open()
            self._pid = os.getpid()
        return self._conn

    def _run(self, op: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``op`` on the connection; a corruption found mid-way is repaired once."""
        with self._lock:
            try:
                return op(self._connection())
            except sqlite3.DatabaseError as exc:
                if not _is_corrupt(exc):
                    raise self._failure(exc, "failed to use") from exc
                self._drop_connection()
                self._move_aside(exc)
                return op(self._connection())

    def _drop_connection(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
        self._conn = None

    def close(self) -> None:
        """Close the file (the next call reopens it)."""
        with self._lock:
            self._drop_connection()

    # -- public operations ----------------------------------------------------------

    def get_many(self, model_id: str, texts: Sequence[str]) -> dict[int, Vectors]:
        """Cached vectors for ``texts`` under ``model_id``, keyed by position in ``texts``.

        Positions whose text is not cached are absent, and so are those whose row
        is damaged (truncated, or holding NaN or infinite values): the model
        embeds them again. Repeated texts all get the vector.
        """
        if not texts:
            return {}
        positions: dict[bytes, list[int]] = {}
        for i, text in enumerate(texts):
            positions.setdefault(text_key(text), []).append(i)
        keys = list(positions)

        def lookup(conn: sqlite3.Connection) -> dict[int, Vectors]:
            found: dict[int, Vectors] = {}
            for start in range(0, len(keys), _MAX_PARAMS):
                part = keys[start : start + _MAX_PARAMS]
                marks = ",".join("?" * len(part))
                rows = conn.execute(
                    "SELECT text_sha256, dim, vector FROM embeddings "
                    f"WHERE model_id = ? AND text_sha256 IN ({marks})",
                    (model_id, *part),
                ).fetchall()
                for key, dim, blob in rows:
                    if len(blob) != dim * 4:  # a truncated row counts as absent
                        continue
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if not np.isfinite(vec).all():  # a damaged row counts as absent too
                        continue
                    for i in positions[bytes(key)]:
                        found[i] = vec
            return found

        return self._run(lookup)

    def put_many(self, model_id: str, texts: Sequence[str], vecs: Vectors) -> None:
        """Store one vector per text under ``model_id``; keys already present are kept."""
        if not model_id:
            raise ConfigError("put_many needs a non-empty model_id")
        arr = np.asarray(vecs, dtype=np.float32)
        if arr.ndim != 2 or arr.shape[0] != len(texts):
            raise ConfigError(
                f"put_many got {len(texts)} texts but vectors of shape {arr.shape}: "
                "pass one row per text"
            )
        if not texts:
            return
        dim = int(arr.shape[1])
        rows = [
            (model_id, text_key(text), dim, np.ascontiguousarray(row).tobytes())
            for text, row in zip(texts, arr, strict=True)
        ]

        def insert(conn: sqlite3.Connection) -> None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    "INSERT OR IGNORE INTO embeddings (model_id, text_sha256, dim, vector) "
                    "VALUES (?, ?, ?, ?)",
                    rows,
                )
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

        self._run(insert)

    def count(self, model_id: str | None = None) -> int:
        """How many vectors are stored (for one model, or all)."""
        if model_id is None:
            return self._run(lambda c: c.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])
        return self._run(
            lambda c: c.execute(
                "SELECT COUNT(*) FROM embeddings WHERE model_id = ?", (model_id,)
            ).fetchone()[0]
        )

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.path)!r})"
