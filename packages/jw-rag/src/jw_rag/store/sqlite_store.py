"""The embedded store: one SQLite file with chunks, vectors, parents and an
FTS5 index; dense search runs over an in-memory index of the vectors, exact
for small stores and quantized with an exact re-rank for large ones (see
:mod:`jw_rag.store._dense`).

Every write runs in a single ``BEGIN IMMEDIATE`` transaction after the chunks
were validated and embedded (see :mod:`jw_rag.store._base`): a slow embedder
never holds the write lock, and an exception, a full disk or a killed process
leaves the file as it was. The file runs in WAL mode with a busy timeout, so
several processes can ingest at once. A failure is named by its cause (busy,
full disk, read-only file or folder, I/O error, damage), not all called damage.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import numpy as np
import numpy.typing as npt

from jw_rag._sqlite_errors import sqlite_cause
from jw_rag._wal import enable_wal
from jw_rag.errors import ConfigError, StoreError, check_flag
from jw_rag.model import Chunk
from jw_rag.store._base import (
    HYBRID_DEPTH,
    Counts,
    Ranked,
    SourceRow,
    StoreCore,
    languages_sql,
    source_sql,
)
from jw_rag.store._dense import DEFAULT_EXACT_BELOW, DenseIndex, top_k
from jw_rag.store._filters import SqlFilter, parse_filters
from jw_rag.store._fts_topk import create_vocab, top_bm25
from jw_rag.store._meta import checked_meta
from jw_rag.store._rows import ChunkRow, decode_chunk, dump_metadata, unit_kinds
from jw_rag.store._schema import IN_JSON, SCHEMA_VERSION, check_exists, check_readable, prepare
from jw_rag.store._tokens import analyse, match_expression, query_terms

if TYPE_CHECKING:  # the embed package is only needed for its types here
    from jw_rag.embed.protocol import Embedder, Vectors

__all__ = ["BUSY_TIMEOUT_MS", "HYBRID_DEPTH", "SQLiteStore"]

#: How long a writer waits for another process's write transaction.
BUSY_TIMEOUT_MS = 60_000
_BATCH = 1000
_VECTOR_BLOCK = 16_384  # vectors read per step while the dense index is built
#: SQLite page cache per connection. 16 MiB: a write of one big source holds it on top of
#: the source's paragraphs (a 29 MiB EPUB chapter peaked at 351 MB with 64 MiB, 273 MB with
#: 16), and 64 MiB was no faster to ingest or search at 100,000 chunks.
_CACHE_KIB = 16_384
_SOURCE_SQL = source_sql("", "?")
_LANGUAGES_SQL = languages_sql("", "?")
#: Causes that mean this process may read the file but not write it (or its folder).
_CANNOT_WRITE = ("readonly", "cantopen", "permission")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _json_list(values: Sequence[Any]) -> str:
    return json.dumps(list(values), ensure_ascii=False)


class SQLiteStore(StoreCore[sqlite3.Connection]):
    """A :class:`~jw_rag.store.protocol.Store` in one SQLite file.

    ``embedder`` is used for adding chunks and for dense/hybrid search; when
    ``None`` the default (``jw_rag.embed.get_embedder()``) is created at first
    use, so BM25-only use never loads a model.

    ``read_only=True`` opens an existing store for reading only: nothing is
    created, migrated or written (an empty file is not a store). A store whose
    file or folder cannot be written is opened that way too, so searching it
    still works (``read_only`` is then True); a write then says why it cannot.
    ``create=False`` opens an existing store for writing and refuses, in one
    line, a file that holds none (an empty database) instead of creating one.

    Dense search scores every vector exactly while the store holds fewer than
    ``exact_below`` (default 50,000); above that it keeps compact codes of the
    vectors in memory (about 0.28 of their float32 size) and re-ranks the best
    candidates exactly, reading their vectors from the file.
    """

    def __init__(
        self,
        path: str | Path,
        embedder: Embedder | None = None,
        *,
        read_only: bool = False,
        exact_below: int = DEFAULT_EXACT_BELOW,
        create: bool = True,
    ) -> None:
        check_flag("read_only", read_only)
        check_flag("create", create)
        if isinstance(exact_below, bool) or not isinstance(exact_below, int) or exact_below < 0:
            raise ConfigError(
                f"exact_below must be a non-negative integer (a number of vectors), got {exact_below!r}"
            )
        super().__init__(embedder)
        self.exact_below = exact_below
        self.path = Path(path).expanduser()
        self._label = str(self.path)
        if self.path.is_dir():
            raise StoreError(f"store path {self.path} is a directory: give a file path")
        if self.path.exists() and not self.path.is_file():
            raise StoreError(
                f"store path {self.path} is not a regular file (a FIFO, device or socket): "
                "give a file path"
            )
        self.read_only = read_only
        self._create = create
        self._why_read_only = "opened for reading only"
        self._lock = threading.RLock()
        self._matrix: DenseIndex | None = None
        self._conn = self._connect_read_only() if read_only else self._connect()
        self._vocab = create_vocab(self._conn)  # the bounded full-text search reads it

    # -- connection and transactions -----------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=60
            )
        except sqlite3.Error as exc:
            raise self._failure(exc, writing=False) from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not self._create:
                check_exists(conn, self.path)
            prepare(conn, self.path)
            self._meta(conn)  # a value edited by hand is named at open
            enable_wal(conn, BUSY_TIMEOUT_MS / 1000)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(f"PRAGMA cache_size = -{_CACHE_KIB}")
        except sqlite3.Error as exc:
            conn.close()
            if self.path.is_file() and sqlite_cause(exc) in _CANNOT_WRITE:
                self.read_only = True  # the file or its folder is read-only: reads still work
                self._why_read_only = f"its file or folder cannot be written: {exc}"
                return self._connect_read_only()
            raise self._failure(exc, writing=False) from None
        except BaseException:
            conn.close()
            raise
        return conn

    def _connect_read_only(self) -> sqlite3.Connection:
        """A connection that never writes; in a folder where SQLite cannot make
        its shared-memory file, the file is read as immutable."""
        if not self.path.is_file():
            raise StoreError(
                f"no store at {self.path}: check the path (--store or $JW_STORE), or ingest a "
                "source there first"
            )
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        for immutable in (False, True):
            conn = sqlite3.connect(
                uri + ("&immutable=1" if immutable else ""),
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=60,
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                check_readable(conn, self.path)
                self._meta(conn)
                conn.execute(f"PRAGMA cache_size = -{_CACHE_KIB}")
                return conn
            except sqlite3.Error as exc:
                conn.close()
                if immutable or sqlite_cause(exc) not in _CANNOT_WRITE:
                    raise self._failure(exc, writing=False) from None
            except BaseException:
                conn.close()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._matrix = None

    def _failure(self, exc: sqlite3.Error, *, writing: bool = True) -> StoreError:
        """A SQLite error as a one-line StoreError naming its cause and the fix."""
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        cause = sqlite_cause(exc)
        store = f"store {self.path}"
        nothing = ": nothing was written" if writing else ""
        if cause == "busy":
            return StoreError(
                f"{store} is busy ({reason}): another process holds the write lock; retry "
                "when it finishes"
            )
        if cause == "full":
            return StoreError(
                f"the disk holding {store} is full ({reason}){nothing}; free space on it (or "
                "move the store to a disk with room) and retry"
            )
        if cause in _CANNOT_WRITE and not self.path.exists():
            return StoreError(
                f"{store} cannot be created ({reason}): check that you may write its folder, "
                "or pick another path"
            )
        if cause in _CANNOT_WRITE and (writing or self.read_only):
            why = self._why_read_only if self.read_only else f"read-only file or folder: {reason}"
            return StoreError(
                f"{store} cannot be written ({why}){nothing}; make the file and its folder "
                "writable (e.g. chmod u+w), or copy the store to a writable place; searching "
                "it works as it is"
            )
        if cause in _CANNOT_WRITE:
            return StoreError(
                f"{store} cannot be opened ({reason}): check that you may read the file and "
                "its folder, or copy it to a folder of yours"
            )
        if cause == "io":
            return StoreError(
                f"{store}: the disk reported an I/O error ({reason}){nothing}; check the disk "
                "and its free space, then retry"
            )
        if cause in ("damaged", "notadb"):
            return StoreError(
                f"{store} is damaged or not a store ({reason}){nothing}; restore it from a "
                "copy or ingest into a new store"
            )
        return StoreError(f"{store} failed ({reason}){nothing}; retry, or use a new store")

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; bumps the change counter on commit."""
        with self._lock:
            conn = self._conn
            if self.read_only:
                raise self._failure(sqlite3.OperationalError("read-only"), writing=True)
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise self._failure(exc) from None
            try:
                yield conn
                conn.execute(
                    "UPDATE store_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes'"
                )
                conn.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self._rollback(conn)
                raise self._failure(exc) from None
            except BaseException:
                self._rollback(conn)
                raise

    @staticmethod
    def _rollback(conn: sqlite3.Connection) -> None:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.DatabaseError:
            pass  # a damaged file may refuse even that; the transaction is gone with it

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """One consistent snapshot for several reads."""
        with self._lock:
            try:
                self._conn.execute("BEGIN")
            except sqlite3.DatabaseError as exc:
                raise self._failure(exc, writing=False) from None
            try:
                yield self._conn
            except sqlite3.DatabaseError as exc:
                raise self._failure(exc, writing=False) from None
            finally:
                self._rollback(self._conn)

    def _meta(self, conn: sqlite3.Connection) -> dict[str, str]:
        rows = conn.execute("SELECT key, value FROM store_meta").fetchall()
        return checked_meta(rows, "store_meta", self._label, required=("changes",))

    def _add_meta(self, conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute("INSERT OR IGNORE INTO store_meta (key, value) VALUES (?, ?)", (key, value))

    def _has_vectors(self, conn: sqlite3.Connection) -> bool:
        return conn.execute("SELECT 1 FROM vectors LIMIT 1").fetchone() is not None

    # -- writing ------------------------------------------------------------

    def _delete_rowids(self, conn: sqlite3.Connection, rowids: list[int]) -> None:
        params = [(r,) for r in rowids]
        conn.executemany("DELETE FROM vectors WHERE chunk_rowid = ?", params)
        conn.executemany("DELETE FROM chunks_fts WHERE rowid = ?", params)
        conn.executemany("DELETE FROM chunks WHERE rowid = ?", params)

    def _insert_batch(
        self, conn: sqlite3.Connection, rows: Sequence[ChunkRow], vectors: Vectors, first: int
    ) -> None:
        """Insert ``rows`` with rowids ``first, first + 1, ...``."""
        model_id = self.embedder.model_id
        conn.executemany(
            "INSERT INTO chunks (rowid, id, source_id, ord, text, metadata, language, chunker, "
            "chunker_version, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(first + i, *r.fields()) for i, r in enumerate(rows)],
        )
        conn.executemany(
            "INSERT INTO vectors (chunk_rowid, model_id, vector) VALUES (?, ?, ?)",
            [(first + i, model_id, vectors[i].tobytes()) for i in range(len(rows))],
        )
        conn.executemany(
            "INSERT INTO chunks_fts (rowid, tokens) VALUES (?, ?)",
            [(first + i, analyse(r.embed_input, r.language)) for i, r in enumerate(rows)],
        )

    def _insert_rows(
        self, conn: sqlite3.Connection, rows: list[ChunkRow], vectors: Vectors
    ) -> None:
        if not rows:
            return
        ids = _json_list([r.chunk.id for r in rows])
        existing = conn.execute(f"SELECT rowid FROM chunks WHERE id {IN_JSON}", (ids,)).fetchall()
        self._delete_rowids(conn, [r[0] for r in existing])
        self._check_model(conn)
        embedder = self.embedder
        conn.executemany(
            "INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)",
            [("model_id", embedder.model_id), ("dim", str(embedder.dim))],
        )
        first = conn.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM chunks").fetchone()[0]
        for start in range(0, len(rows), _BATCH):
            end = start + _BATCH
            self._insert_batch(conn, rows[start:end], vectors[start:end], first + start)

    def _touch_sources(self, conn: sqlite3.Connection, source_ids: list[str]) -> None:
        now = _now()
        conn.executemany(
            "INSERT INTO sources (source_id, content_hash, ingested_at) VALUES (?, NULL, ?) "
            "ON CONFLICT (source_id) DO UPDATE SET content_hash = NULL, ingested_at = ?",
            [(s, now, now) for s in source_ids],
        )

    def _write_parents(self, conn: sqlite3.Connection, parents: Sequence[Chunk]) -> None:
        conn.executemany(
            "INSERT OR REPLACE INTO parents (id, source_id, text, metadata) VALUES (?, ?, ?, ?)",
            [(p.id, p.source_id, p.text, dump_metadata(p)) for p in parents],
        )

    def _stored_hash(self, conn: sqlite3.Connection, source_id: str) -> str | None:
        row = conn.execute(
            "SELECT content_hash FROM sources WHERE source_id = ?", (source_id,)
        ).fetchone()
        return None if row is None else row[0]

    def _claim_source(self, conn: sqlite3.Connection, source_id: str, has_rows: bool) -> str | None:
        return self._stored_hash(conn, source_id)  # BEGIN IMMEDIATE already serialises writers

    def _record_source(
        self, conn: sqlite3.Connection, source_id: str, content_hash: str | None, metadata_json: str
    ) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO sources (source_id, content_hash, metadata, ingested_at) "
            "VALUES (?, ?, ?, ?)",
            (source_id, content_hash, metadata_json, _now()),
        )

    def _delete_source_rows(self, conn: sqlite3.Connection, source_id: str) -> int:
        rows = conn.execute(
            "SELECT rowid, chunker FROM chunks WHERE source_id = ?", (source_id,)
        ).fetchall()
        self._delete_rowids(conn, [r[0] for r in rows])
        conn.execute("DELETE FROM parents WHERE source_id = ?", (source_id,))
        units = set(unit_kinds(self._meta(conn)))
        return sum(r[1] not in units for r in rows)

    def _forget_source(self, conn: sqlite3.Connection, source_id: str) -> None:
        conn.execute("DELETE FROM sources WHERE source_id = ?", (source_id,))

    # -- reading ------------------------------------------------------------

    def _fetch(self, conn: sqlite3.Connection, ids: list[str], parents: bool) -> dict[str, Chunk]:
        table = "parents" if parents else "chunks"
        rows = conn.execute(
            f"SELECT id, source_id, text, metadata FROM {table} WHERE id {IN_JSON}",
            (_json_list(ids),),
        ).fetchall()
        return {r[0]: decode_chunk(*r) for r in rows}

    def _fetch_vectors(
        self, conn: sqlite3.Connection, ids: list[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        rows = conn.execute(
            "SELECT c.id, v.vector FROM chunks c JOIN vectors v ON v.chunk_rowid = c.rowid "
            f"WHERE c.id {IN_JSON}",
            (_json_list(ids),),
        ).fetchall()
        return {cid: np.frombuffer(blob, dtype=np.float32).copy() for cid, blob in rows}

    def _source_ids(self, conn: sqlite3.Connection, ids: list[str] | None) -> list[str]:
        if ids is None:
            return [r[0] for r in conn.execute("SELECT source_id FROM sources")]
        marks = ", ".join("?" * len(ids))
        sql = f"SELECT source_id FROM sources WHERE source_id IN ({marks})"
        return [r[0] for r in conn.execute(sql, ids)] if ids else []

    def _origins_below(self, conn: sqlite3.Connection, root: str) -> list[tuple[str, str]]:
        units = _json_list(list(unit_kinds(self._meta(conn))))
        return conn.execute(
            "SELECT s.source_id, json_extract(s.metadata, '$.origin') FROM sources AS s "
            "WHERE json_type(s.metadata, '$.origin') = 'text' "
            "AND substr(json_extract(s.metadata, '$.origin'), 1, length(?1)) = ?1 "
            "AND EXISTS (SELECT 1 FROM chunks AS c WHERE c.source_id = s.source_id "
            f"AND (c.chunker IS NULL OR c.chunker NOT {IN_JSON.replace('?', '?2')}))",
            (root, units),
        ).fetchall()

    def _source_languages(self, conn: sqlite3.Connection, source_id: str) -> list[str]:
        return [row[0] for row in conn.execute(_LANGUAGES_SQL, (source_id,)).fetchall()]

    def _source_row(self, conn: sqlite3.Connection, source_id: str) -> SourceRow | None:
        row = conn.execute(_SOURCE_SQL, (source_id,)).fetchone()
        return None if row is None else SourceRow(row[0], json.loads(row[1]), row[2], row[3])

    # -- search -------------------------------------------------------------

    def _filter(self, filters: Mapping[str, Any] | None) -> SqlFilter:
        return parse_filters(filters)

    @property
    def vector_memory(self) -> int:
        """Bytes the in-memory dense index holds (0 before the first dense search)."""
        index = self._matrix
        return 0 if index is None else index.nbytes

    def _vector_blocks(self, conn: sqlite3.Connection, dim: int) -> Iterator[tuple[Any, Any]]:
        """Every stored vector in rowid order, ``_VECTOR_BLOCK`` rows at a time."""
        last = -1
        while True:
            rows = conn.execute(
                "SELECT chunk_rowid, vector FROM vectors WHERE chunk_rowid > ? "
                "ORDER BY chunk_rowid LIMIT ?",
                (last, _VECTOR_BLOCK),
            ).fetchall()
            if not rows:
                return
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
            yield ids, matrix.reshape(len(rows), dim)
            last = int(ids[-1])

    def _dense_index(self, conn: sqlite3.Connection) -> DenseIndex | None:
        """The dense index of every stored vector, cached until another write changes the file."""
        meta = self._meta(conn)
        changes = int(meta["changes"])
        if self._matrix is not None and self._matrix.changes == changes:
            return self._matrix
        self._matrix = None
        stored = meta.get("model_id")
        if stored is None:
            return None
        if stored != self.embedder.model_id:
            raise self._model_error(stored)
        dim = int(meta["dim"])
        self._matrix = DenseIndex.build(
            lambda: self._vector_blocks(conn, dim), dim, changes, self.exact_below
        )
        return self._matrix

    def _fetch_by_rowid(self, conn: sqlite3.Connection, rowids: Any) -> tuple[Any, Any]:
        rows = conn.execute(
            f"SELECT chunk_rowid, vector FROM vectors WHERE chunk_rowid {IN_JSON}",
            (json.dumps(rowids.tolist()),),
        ).fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        return ids, matrix.reshape(len(rows), -1)

    def _dense(
        self, conn: sqlite3.Connection, query_vector: Vectors, k: int, f: SqlFilter
    ) -> Ranked:
        index = self._dense_index(conn)
        if index is None:
            return []
        positions = None
        if f.active:
            found = conn.execute(f"SELECT c.rowid FROM chunks c WHERE {f.where}", f.params)
            rowids = np.fromiter((r[0] for r in found), dtype=np.int64)
            positions = index.positions(np.sort(rowids))
        return top_k(index, query_vector, k, positions, lambda ids: self._fetch_by_rowid(conn, ids))

    def _bm25(self, conn: sqlite3.Connection, query: str, k: int, f: SqlFilter) -> Ranked:
        """Scored ``-bm25()`` (higher is better)."""
        terms = query_terms(query)
        if not terms:
            return []
        # without a filter the full-text index alone (joining the chunks took a
        # quarter of the time at 100k chunks); a filter's condition is on alias c
        join = "JOIN chunks c ON c.rowid = chunks_fts.rowid " if f.active else ""
        where = f" AND {f.where}" if f.active else ""
        if self._vocab:  # the same answer without scoring every row of a common word
            bounded = top_bm25(conn, terms, k, join, where, f.params)
            if bounded is not None:
                return bounded
        rows = conn.execute(
            f"SELECT chunks_fts.rowid, bm25(chunks_fts) AS s FROM chunks_fts {join}"
            f"WHERE chunks_fts MATCH ?{where} ORDER BY s, chunks_fts.rowid LIMIT ?",
            (match_expression(terms), *f.params, k),
        ).fetchall()
        if any(r[1] is None for r in rows):  # FTS5 scores NULL from a damaged statistics record
            raise sqlite3.DatabaseError("database disk image is malformed")
        return [(r[0], -r[1]) for r in rows]

    def _chunks_by_rowid(self, conn: sqlite3.Connection, rowids: list[int]) -> dict[int, Chunk]:
        found = conn.execute(
            f"SELECT rowid, id, source_id, text, metadata FROM chunks WHERE rowid {IN_JSON}",
            (_json_list(rowids),),
        ).fetchall()
        return {r[0]: decode_chunk(*r[1:]) for r in found}

    # -- stats --------------------------------------------------------------

    def _describe(self, conn: sqlite3.Connection) -> dict[str, Any]:
        files = (self.path, Path(f"{self.path}-wal"))
        return {
            "path": str(self.path),
            "size_bytes": sum(p.stat().st_size for p in files if p.exists()),
            "schema_version": SCHEMA_VERSION,
        }

    def _counts(self, conn: sqlite3.Connection) -> Counts:
        """Each count is one scan of a covering index; the rows of each unit kind
        are counted from the rows the chunker index points to."""

        def grouped(columns: str) -> list[Any]:
            return conn.execute(
                f"SELECT {columns}, COUNT(*) FROM chunks GROUP BY {columns} ORDER BY {columns}"
            ).fetchall()

        return Counts(
            sources=conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0],
            parents=conn.execute("SELECT COUNT(*) FROM parents").fetchone()[0],
            per_source=grouped("source_id"),
            languages=grouped("language"),
            chunker_versions=grouped("chunker, chunker_version"),
            units=conn.execute(
                f"SELECT chunker, source_id, language, COUNT(*) FROM chunks WHERE chunker {IN_JSON} "
                "GROUP BY chunker, source_id, language",
                (_json_list(list(unit_kinds(self._meta(conn)))),),
            ).fetchall(),
        )
