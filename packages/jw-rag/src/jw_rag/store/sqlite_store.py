"""The embedded store: one SQLite file with chunks, vectors, parents and an
FTS5 index; dense search is exact (numpy over a cached matrix).

Writes follow one rule: validate and embed first, then write everything in a
single ``BEGIN IMMEDIATE`` transaction. A slow embedder never holds the write
lock, and an exception or a killed process leaves the file as it was. The file
runs in WAL mode with a busy timeout, so several processes can ingest at once.
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

import numpy as np

from jw_rag._wal import enable_wal
from jw_rag.errors import ConfigError, EmbeddingError, StoreError
from jw_rag.model import Chunk
from jw_rag.store._dense import VectorMatrix, top_k
from jw_rag.store._filters import SqlFilter, parse_filters
from jw_rag.store._fusion import reciprocal_rank_fusion
from jw_rag.store._rows import ChunkRow, check_unique, decode_chunk, dump_metadata, encode_chunks
from jw_rag.store._schema import SCHEMA_VERSION, prepare
from jw_rag.store._tokens import match_expression, query_terms
from jw_rag.store.protocol import SearchHit, SearchMode

if TYPE_CHECKING:  # the embed package is only needed for its types here
    from jw_rag.embed.protocol import Embedder, Vectors

__all__ = ["BUSY_TIMEOUT_MS", "HYBRID_DEPTH", "SQLiteStore"]

#: How long a writer waits for another process's write transaction.
BUSY_TIMEOUT_MS = 60_000
#: Hybrid search fuses the top ``max(k * 4, HYBRID_DEPTH)`` of each list.
HYBRID_DEPTH = 50
_BATCH = 1000
_CACHE_KIB = 65_536  # page cache per connection: big ingests and FTS merges stay in memory
_MODES = ("dense", "bm25", "hybrid")


class _Unchanged(Exception):
    """Raised inside a write transaction to roll it back as a no-op."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _json_list(values: Sequence[Any]) -> str:
    return json.dumps(list(values), ensure_ascii=False)


class SQLiteStore:
    """A :class:`~jw_rag.store.protocol.Store` in one SQLite file.

    ``embedder`` is used for adding chunks and for dense/hybrid search; when
    ``None`` the default (``jw_rag.embed.get_embedder()``) is created at first
    use, so BM25-only use never loads a model.
    """

    def __init__(self, path: str | Path, embedder: Embedder | None = None) -> None:
        self.path = Path(path).expanduser()
        if self.path.is_dir():
            raise StoreError(f"store path {self.path} is a directory: give a file path")
        self._embedder = embedder
        self._lock = threading.RLock()
        self._matrix: VectorMatrix | None = None
        self._conn = self._connect()

    # -- connection ---------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=60
            )
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot open store {self.path} ({exc}): check the path and its permissions"
            ) from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            prepare(conn, self.path)
            enable_wal(conn, BUSY_TIMEOUT_MS / 1000)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(f"PRAGMA cache_size = -{_CACHE_KIB}")
        except sqlite3.Error as exc:
            conn.close()
            raise StoreError(
                f"cannot open store {self.path} ({exc}): check the file and its permissions"
            ) from None
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._matrix = None

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from jw_rag.embed import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; bumps the change counter on commit."""
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(
                    f"store {self.path} is busy ({exc}): another process holds the write "
                    "lock; retry when it finishes"
                ) from None
            try:
                yield conn
                conn.execute(
                    "UPDATE store_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes'"
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One consistent snapshot for several reads."""
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")

    def _meta(self, conn: sqlite3.Connection) -> dict[str, str]:
        return dict(conn.execute("SELECT key, value FROM store_meta").fetchall())

    # -- embedding ----------------------------------------------------------

    def _model_error(self, stored: str, wanted: str) -> StoreError:
        return StoreError(
            f"store {self.path} holds vectors from embedder '{stored}' but the embedder in "
            f"use is '{wanted}': open it with the '{stored}' embedder or rebuild it into a "
            "new store path"
        )

    def _check_model(self, conn: sqlite3.Connection, embedder: Embedder) -> None:
        stored = self._meta(conn).get("model_id")
        if stored is not None and stored != embedder.model_id:
            if conn.execute("SELECT 1 FROM vectors LIMIT 1").fetchone():
                raise self._model_error(stored, embedder.model_id)

    def _embed(self, texts: list[str]) -> Vectors:
        embedder = self.embedder
        if not texts:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        vectors = np.ascontiguousarray(embedder.embed(texts), dtype=np.float32)
        if vectors.shape != (len(texts), embedder.dim):
            raise EmbeddingError(
                f"embedder '{embedder.model_id}' returned shape {vectors.shape} for "
                f"{len(texts)} texts (expected dim {embedder.dim}): fix the embedder"
            )
        return vectors

    def _prepare_rows(self, chunks: Sequence[Chunk]) -> tuple[list[ChunkRow], Vectors]:
        rows = encode_chunks(chunks)
        if not rows:  # nothing to embed: do not even create the default embedder
            return rows, np.zeros((0, 0), dtype=np.float32)
        with self._lock:
            self._check_model(self._conn, self.embedder)
        return rows, self._embed([r.embed_input for r in rows])

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
            [r.columns(first + i) for i, r in enumerate(rows)],
        )
        conn.executemany(
            "INSERT INTO vectors (chunk_rowid, model_id, vector) VALUES (?, ?, ?)",
            [(first + i, model_id, vectors[i].tobytes()) for i in range(len(rows))],
        )
        conn.executemany(
            "INSERT INTO chunks_fts (rowid, tokens) VALUES (?, ?)",
            [(first + i, r.tokens) for i, r in enumerate(rows)],
        )

    def _insert_rows(
        self, conn: sqlite3.Connection, rows: list[ChunkRow], vectors: Vectors
    ) -> None:
        if not rows:
            return
        ids = _json_list([r.chunk.id for r in rows])
        existing = conn.execute(
            "SELECT rowid FROM chunks WHERE id IN (SELECT value FROM json_each(?))", (ids,)
        ).fetchall()
        self._delete_rowids(conn, [r[0] for r in existing])
        embedder = self.embedder
        self._check_model(conn, embedder)
        conn.executemany(
            "INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)",
            [("model_id", embedder.model_id), ("dim", str(embedder.dim))],
        )
        first = conn.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM chunks").fetchone()[0]
        for start in range(0, len(rows), _BATCH):
            end = start + _BATCH
            self._insert_batch(conn, rows[start:end], vectors[start:end], first + start)

    def _touch_sources(self, conn: sqlite3.Connection, source_ids: set[str]) -> None:
        """Register sources that ``add`` wrote to; their content hash no longer holds."""
        now = _now()
        conn.executemany(
            "INSERT INTO sources (source_id, content_hash, ingested_at) VALUES (?, NULL, ?) "
            "ON CONFLICT (source_id) DO UPDATE SET content_hash = NULL, ingested_at = ?",
            [(s, now, now) for s in sorted(source_ids)],
        )

    def _write_parents(self, conn: sqlite3.Connection, parents: Sequence[Chunk]) -> None:
        conn.executemany(
            "INSERT OR REPLACE INTO parents (id, source_id, text, metadata) VALUES (?, ?, ?, ?)",
            [(p.id, p.source_id, p.text, dump_metadata(p)) for p in parents],
        )

    def add(self, chunks: Sequence[Chunk]) -> int:
        """Add (or overwrite, by id) ``chunks``; returns how many were written."""
        rows, vectors = self._prepare_rows(chunks)
        if not rows:
            return 0
        with self._write() as conn:
            self._insert_rows(conn, rows, vectors)
            self._touch_sources(conn, {r.chunk.source_id for r in rows})
        return len(rows)

    def _stored_hash(self, conn: sqlite3.Connection, source_id: str) -> str | None:
        row = conn.execute(
            "SELECT content_hash FROM sources WHERE source_id = ?", (source_id,)
        ).fetchone()
        return None if row is None else row[0]

    def replace_source(
        self,
        source_id: str,
        chunks: Sequence[Chunk],
        *,
        content_hash: str | None = None,
        parents: Sequence[Chunk] = (),
        source_metadata: Mapping[str, Any] | None = None,
    ) -> bool:
        """Atomically replace every chunk and parent of ``source_id``.

        Returns ``False`` and writes nothing when ``content_hash`` equals the
        hash stored by the previous ingest of that source.
        """
        for c in [*chunks, *parents]:
            if getattr(c, "source_id", None) != source_id:
                raise ConfigError(
                    f"chunk {getattr(c, 'id', c)!r} belongs to source "
                    f"{getattr(c, 'source_id', None)!r}, not {source_id!r}: give each source its own call"
                )
        check_unique(parents, "parent")
        meta_json = json.dumps(dict(source_metadata or {}), ensure_ascii=False, sort_keys=True)
        if content_hash is not None:
            with self._lock:
                if self._stored_hash(self._conn, source_id) == content_hash:
                    return False
        rows, vectors = self._prepare_rows(chunks)
        try:
            with self._write() as conn:
                if content_hash is not None and self._stored_hash(conn, source_id) == content_hash:
                    raise _Unchanged  # another process ingested it meanwhile: roll back
                self._delete_source_rows(conn, source_id)
                self._insert_rows(conn, rows, vectors)
                self._write_parents(conn, parents)
                conn.execute(
                    "INSERT OR REPLACE INTO sources (source_id, content_hash, metadata, "
                    "ingested_at) VALUES (?, ?, ?, ?)",
                    (source_id, content_hash, meta_json, _now()),
                )
        except _Unchanged:
            return False
        return True

    def _delete_source_rows(self, conn: sqlite3.Connection, source_id: str) -> int:
        rowids = [
            r[0] for r in conn.execute("SELECT rowid FROM chunks WHERE source_id = ?", (source_id,))
        ]
        self._delete_rowids(conn, rowids)
        conn.execute("DELETE FROM parents WHERE source_id = ?", (source_id,))
        return len(rowids)

    def delete_source(self, source_id: str) -> int:
        """Remove a source's chunks, vectors, index rows and parents; returns the chunk count."""
        with self._write() as conn:
            n = self._delete_source_rows(conn, source_id)
            conn.execute("DELETE FROM sources WHERE source_id = ?", (source_id,))
        return n

    def add_parents(self, parents: Sequence[Chunk]) -> int:
        """Store parent chunks (kept by id, never embedded or searched)."""
        check_unique(parents, "parent")
        for p in parents:
            dump_metadata(p)
        if not parents:
            return 0
        with self._write() as conn:
            self._write_parents(conn, parents)
        return len(parents)

    # -- reading ------------------------------------------------------------

    def _fetch(self, table: str, ids: Sequence[str]) -> list[Chunk]:
        if not ids:
            return []
        with self._lock:
            rows = self._conn.execute(
                f"SELECT id, source_id, text, metadata FROM {table} "
                "WHERE id IN (SELECT value FROM json_each(?))",
                (_json_list(ids),),
            ).fetchall()
        by_id = {r[0]: r for r in rows}
        return [decode_chunk(*by_id[i]) for i in ids if i in by_id]

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """Chunks for ``ids``, in the order asked for; unknown ids are skipped."""
        return self._fetch("chunks", ids)

    def get_parents(self, ids: Sequence[str]) -> list[Chunk]:
        """Parent chunks for ``ids``, in the order asked for; unknown ids are skipped."""
        return self._fetch("parents", ids)

    def get_source(self, source_id: str) -> dict[str, Any] | None:
        """What the store knows about a source, or ``None``."""
        with self._lock:
            row = self._conn.execute(
                "SELECT content_hash, metadata, ingested_at, "
                "(SELECT COUNT(*) FROM chunks WHERE source_id = s.source_id) "
                "FROM sources AS s WHERE source_id = ?",
                (source_id,),
            ).fetchone()
        if row is None:
            return None
        return {
            "source_id": source_id,
            "content_hash": row[0],
            "metadata": json.loads(row[1]),
            "ingested_at": row[2],
            "chunks": row[3],
        }

    # -- search -------------------------------------------------------------

    def _vectors(self, conn: sqlite3.Connection, embedder: Embedder) -> VectorMatrix | None:
        meta = self._meta(conn)
        changes = int(meta["changes"])
        if self._matrix is not None and self._matrix.changes == changes:
            return self._matrix
        self._matrix = None
        stored = meta.get("model_id")
        if stored is None:
            return None
        if stored != embedder.model_id:
            raise self._model_error(stored, embedder.model_id)
        rows = conn.execute(
            "SELECT chunk_rowid, vector FROM vectors ORDER BY chunk_rowid"
        ).fetchall()
        if not rows:
            return None
        self._matrix = VectorMatrix.from_rows(rows, int(meta["dim"]), changes)
        return self._matrix

    def _dense(
        self, conn: sqlite3.Connection, query_vector: Vectors, k: int, f: SqlFilter
    ) -> list[tuple[int, float]]:
        vm = self._vectors(conn, self.embedder)
        if vm is None:
            return []
        positions = None
        if f.active:
            rowids = np.fromiter(
                (
                    r[0]
                    for r in conn.execute(f"SELECT c.rowid FROM chunks c WHERE {f.where}", f.params)
                ),
                dtype=np.int64,
            )
            positions = vm.positions(np.sort(rowids))
        return top_k(vm, query_vector, k, positions)

    def _bm25(
        self, conn: sqlite3.Connection, query: str, k: int, f: SqlFilter
    ) -> list[tuple[int, float]]:
        terms = query_terms(query)
        if not terms:
            return []
        rows = conn.execute(
            "SELECT c.rowid, bm25(chunks_fts) AS s FROM chunks_fts "
            "JOIN chunks c ON c.rowid = chunks_fts.rowid "
            f"WHERE chunks_fts MATCH ? AND {f.where} ORDER BY s, c.rowid LIMIT ?",
            (match_expression(terms), *f.params, k),
        ).fetchall()
        return [(r[0], -r[1]) for r in rows]

    def _query_vector(self, query: str) -> Vectors:
        embedder = self.embedder
        with self._lock:
            stored = self._meta(self._conn).get("model_id")
        if stored is not None and stored != embedder.model_id:
            raise self._model_error(stored, embedder.model_id)
        return self._embed([query])[0]

    def search(
        self,
        query: str,
        k: int = 10,
        mode: SearchMode = "dense",
        filters: Mapping[str, Any] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` best chunks for ``query``; ``mode`` is ``dense`` (cosine),
        ``bm25`` (score ``-bm25()``, higher is better) or ``hybrid``
        (reciprocal rank fusion of both, see :mod:`jw_rag.store._fusion`)."""
        if mode not in _MODES:
            raise ConfigError(f"unknown search mode {mode!r}: use one of {', '.join(_MODES)}")
        if not isinstance(query, str):
            raise ConfigError(f"query must be a string, got {type(query).__name__}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ConfigError(f"k must be a non-negative integer, got {k!r}")
        f = parse_filters(filters)
        if k == 0 or f.empty:
            return []
        qv = self._query_vector(query) if mode != "bm25" else None
        with self._read() as conn:
            if mode == "dense":
                ranked = self._dense(conn, qv, k, f)
            elif mode == "bm25":
                ranked = self._bm25(conn, query, k, f)
            else:
                depth = max(k * 4, HYBRID_DEPTH)
                dense = [r for r, _ in self._dense(conn, qv, depth, f)]
                lexical = [r for r, _ in self._bm25(conn, query, depth, f)]
                ranked = reciprocal_rank_fusion([dense, lexical], k)
            found = conn.execute(
                "SELECT rowid, id, source_id, text, metadata FROM chunks "
                "WHERE rowid IN (SELECT value FROM json_each(?))",
                (_json_list([r for r, _ in ranked]),),
            ).fetchall()
        by_rowid = {r[0]: decode_chunk(*r[1:]) for r in found}
        return [
            SearchHit(chunk=by_rowid[rowid], score=score, rank=rank)
            for rank, (rowid, score) in enumerate(ranked, start=1)
        ]

    # -- stats --------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counts by source, language, chunker and chunker version, plus the
        embedder, parents, and the file's path and size."""
        with self._read() as conn:
            meta = self._meta(conn)

            def grouped(column: str) -> dict[str, int]:
                rows = conn.execute(
                    f"SELECT {column}, COUNT(*) FROM chunks GROUP BY {column} ORDER BY {column}"
                )
                return {("unknown" if key is None else key): n for key, n in rows}

            versions: dict[str, dict[str, int]] = {}
            for name, version, n in conn.execute(
                "SELECT chunker, chunker_version, COUNT(*) FROM chunks "
                "GROUP BY chunker, chunker_version ORDER BY chunker, chunker_version"
            ):
                versions.setdefault(name or "unknown", {})[version or "unknown"] = n
            out = {
                "path": str(self.path),
                "size_bytes": sum(
                    p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists()
                ),
                "schema_version": SCHEMA_VERSION,
                "model_id": meta.get("model_id"),
                "dim": int(meta["dim"]) if "dim" in meta else None,
                "chunks": conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0],
                "sources": conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0],
                "parents": conn.execute("SELECT COUNT(*) FROM parents").fetchone()[0],
                "per_source": grouped("source_id"),
                "languages": grouped("language"),
                "chunkers": grouped("chunker"),
                "chunker_versions": versions,
            }
        return out
