"""The server store: PostgreSQL with pgvector, for teams and large libraries.

Chunks and their JSONB metadata live in one table with a pgvector column
(HNSW index, cosine) and a stored ``tsvector`` built with PostgreSQL's own
``english``/``spanish``/``portuguese`` configurations (``simple`` for other
languages), ranked by ``ts_rank_cd``; hybrid search fuses both rankings by
reciprocal rank fusion. Writes follow the SQLite store's rule: validate and
embed first, then write everything in one transaction, so a slow embedder
holds no locks and an exception leaves the database as it was. Re-ingests of
one source are serialised by a row lock on its ``jw_sources`` row; different
sources ingest in parallel from any number of processes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC
from typing import TYPE_CHECKING, Any

import numpy as np

from jw_rag.errors import ConfigError, EmbeddingError, MissingDependencyError, StoreError
from jw_rag.model import Chunk
from jw_rag.store._filters import SqlFilter
from jw_rag.store._fusion import reciprocal_rank_fusion
from jw_rag.store._pg_query import TSQUERY_SQL, pg_filters, query_configs, vector_literal
from jw_rag.store._pg_schema import LOCK_DIMENSION, SCHEMA_VERSION, prepare, ts_config
from jw_rag.store._rows import ChunkRow, check_unique, dump_metadata, encode_chunks
from jw_rag.store.protocol import SearchHit, SearchMode

try:
    import psycopg
    from psycopg import conninfo as _conninfo
    from psycopg_pool import ConnectionPool
except ModuleNotFoundError as _exc:  # pragma: no cover - depends on the installed extras
    raise MissingDependencyError(
        _exc.name or "psycopg", "postgres", "the PostgreSQL store"
    ) from None

if TYPE_CHECKING:  # the embed package is only needed for its types here
    from jw_rag.embed.protocol import Embedder, Vectors

__all__ = [
    "DEFAULT_EF_SEARCH",
    "DEFAULT_INDEX_MEMORY",
    "DEFAULT_POOL_SIZE",
    "EXACT_BELOW",
    "HNSW_MAX_DIM",
    "HYBRID_DEPTH",
    "PostgresStore",
    "describe_dsn",
]

#: Connections kept per store object (threads of one process share them).
DEFAULT_POOL_SIZE = 4
#: Hybrid search fuses the top ``max(k * 4, HYBRID_DEPTH)`` of each list.
HYBRID_DEPTH = 50
#: pgvector's HNSW index takes vectors up to this dimension; larger ones are searched exactly.
HNSW_MAX_DIM = 2000
#: How much memory :meth:`PostgresStore.build_index` gives PostgreSQL to build
#: the HNSW graph (a graph larger than this builds much more slowly).
DEFAULT_INDEX_MEMORY = "1GB"
_CREATE_HNSW = "CREATE INDEX IF NOT EXISTS jw_chunks_hnsw ON jw_chunks USING hnsw (embedding vector_cosine_ops)"
#: A filtered dense search that keeps fewer chunks than this scans them exactly
#: (faster than a wide HNSW scan whose candidates the filter mostly drops).
EXACT_BELOW = 5000
#: HNSW search breadth (pgvector's default): higher finds more of the exact
#: top k and costs latency; a search for more than this many uses ``k``.
DEFAULT_EF_SEARCH = 40
_EF_SEARCH_MAX = 1000  # pgvector's upper bound for hnsw.ef_search
_BATCH = 1000
_MODES = ("dense", "bm25", "hybrid")
_COLUMNS = (
    "id, source_id, ord, text, metadata, language, chunker, chunker_version, parent_id, "
    "ts_config, embedding"
)


class _Unchanged(Exception):
    """Raised inside a write transaction to roll it back as a no-op."""


def describe_dsn(dsn: str) -> str:
    """``dsn`` without its password: ``postgresql://user@host:port/dbname``."""
    try:
        parts = _conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as exc:
        raise StoreError(
            f"invalid PostgreSQL DSN ({str(exc).splitlines()[0]}): use the form "
            "postgresql://user:password@host:5432/dbname"
        ) from None
    user = f"{parts['user']}@" if parts.get("user") else ""
    host = str(parts.get("host") or "localhost")
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{host}{port}/{parts.get('dbname') or ''}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class PostgresStore:
    """A :class:`~jw_rag.store.protocol.Store` in a PostgreSQL database with pgvector.

    ``dsn`` is a libpq connection string or ``postgresql://`` URL. The schema
    is created (or migrated) on first open. ``embedder`` works as in
    :class:`~jw_rag.store.sqlite_store.SQLiteStore`: ``None`` creates the
    default at first use, so BM25-only use never loads a model.
    ``ef_search`` trades dense-search latency for recall against exact search
    (``benchmarks/store_scale.py`` measures both).
    """

    def __init__(
        self,
        dsn: str,
        embedder: Embedder | None = None,
        *,
        pool_size: int = DEFAULT_POOL_SIZE,
        connect_timeout: int = 10,
        ef_search: int = DEFAULT_EF_SEARCH,
    ) -> None:
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
            raise ConfigError(f"pool_size must be a positive integer, got {pool_size!r}")
        if (
            isinstance(ef_search, bool)
            or not isinstance(ef_search, int)
            or not 1 <= ef_search <= _EF_SEARCH_MAX
        ):
            raise ConfigError(
                f"ef_search must be an integer from 1 to {_EF_SEARCH_MAX}, got {ef_search!r}"
            )
        self.ef_search = ef_search
        self.where = describe_dsn(dsn)
        self._embedder = embedder
        kwargs = {"autocommit": True, "connect_timeout": connect_timeout}
        try:
            with psycopg.connect(dsn, **kwargs) as conn:
                prepare(conn, self.where)
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"cannot connect to PostgreSQL at {self.where} ({_first_line(exc)}): "
                "check that the server is running and that host, port, database, user "
                "and password in the DSN (--store or JW_STORE) are right"
            ) from None
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot open the store at {self.where} ({_first_line(exc)}): "
                "check the database and the user's privileges"
            ) from None
        self._pool = ConnectionPool(
            dsn, min_size=1, max_size=pool_size, kwargs=kwargs, open=True, name="jw-rag"
        )
        self._defer_index = False

    # -- connection ---------------------------------------------------------

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PostgresStore({self.where!r})"

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from jw_rag.embed import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    @contextmanager
    def _conn(self, write: bool = False) -> Iterator[psycopg.Connection]:
        """A pooled connection inside one transaction; database errors become
        one-line ``StoreError``s (the transaction is rolled back)."""
        if self._pool.closed:
            raise StoreError(f"the store at {self.where} is closed: open it again")
        try:
            with self._pool.connection() as conn, conn.transaction():
                yield conn
        except psycopg.Error as exc:
            doing = "write to" if write else "read"
            raise StoreError(
                f"cannot {doing} the store at {self.where} ({_first_line(exc)}): "
                "check the server and retry"
            ) from None

    @staticmethod
    def _meta(conn: psycopg.Connection) -> dict[str, str]:
        return dict(conn.execute("SELECT key, value FROM jw_meta").fetchall())

    # -- embedding ----------------------------------------------------------

    def _model_error(self, stored: str, wanted: str) -> StoreError:
        return StoreError(
            f"store {self.where} holds vectors from embedder '{stored}' but the embedder in "
            f"use is '{wanted}': open it with the '{stored}' embedder or rebuild it into a "
            "new store"
        )

    def _check_model(self, conn: psycopg.Connection, embedder: Embedder) -> bool:
        """Raise when vectors of another model are stored; ``True`` when the
        vector column already has this embedder's model and dimension."""
        meta = self._meta(conn)
        stored = meta.get("model_id")
        if stored == embedder.model_id and meta.get("dim") == str(embedder.dim):
            return True
        if stored is not None and stored != embedder.model_id:
            if conn.execute(
                "SELECT 1 FROM jw_chunks WHERE embedding IS NOT NULL LIMIT 1"
            ).fetchone():
                raise self._model_error(stored, embedder.model_id)
        return False

    def _fix_dimension(self, conn: psycopg.Connection, embedder: Embedder) -> None:
        """Give the vector column the embedder's dimension (first write, or a
        store whose vectors were all deleted), serialised by an advisory lock."""
        if self._check_model(conn, embedder):
            return
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_DIMENSION,))
        if self._check_model(conn, embedder):  # another process did it meanwhile
            return
        dim = int(embedder.dim)
        conn.execute("DROP INDEX IF EXISTS jw_chunks_hnsw")
        conn.execute(f"ALTER TABLE jw_chunks ALTER COLUMN embedding TYPE vector({dim})")
        if dim <= HNSW_MAX_DIM and not self._defer_index:
            conn.execute(_CREATE_HNSW)
        conn.execute(
            "INSERT INTO jw_meta (key, value) VALUES ('model_id', %s), ('dim', %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (embedder.model_id, str(dim)),
        )

    # -- the vector index ---------------------------------------------------

    @staticmethod
    def _index_exists(conn: psycopg.Connection) -> bool:
        row = conn.execute("SELECT to_regclass('jw_chunks_hnsw') IS NOT NULL").fetchone()
        return bool(row and row[0])

    def has_index(self) -> bool:
        """Whether the HNSW index exists (without it, dense search is exact and slower)."""
        with self._conn() as conn:
            return self._index_exists(conn)

    def build_index(self, *, memory: str = DEFAULT_INDEX_MEMORY) -> bool:
        """Build the HNSW index if it is missing, in one pass over the stored
        vectors with ``memory`` of ``maintenance_work_mem``; returns whether it
        built one. Writes wait while it builds; searches do not."""
        with self._conn(write=True) as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_DIMENSION,))
            dim = self._meta(conn).get("dim")
            if dim is None or int(dim) > HNSW_MAX_DIM:
                return False
            if self._index_exists(conn):
                return False
            conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (memory,))
            conn.execute(_CREATE_HNSW)
            return True

    @contextmanager
    def deferred_index(self, *, memory: str = DEFAULT_INDEX_MEMORY) -> Iterator[PostgresStore]:
        """Bulk loading: drop the HNSW index, let the block ingest, then build
        the index once (pgvector builds an index many times faster than it
        inserts into one). The index is rebuilt even when the block raises;
        meanwhile every process's dense search is exact, so still right."""
        with self._conn(write=True) as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_DIMENSION,))
            conn.execute("DROP INDEX IF EXISTS jw_chunks_hnsw")
        self._defer_index = True
        try:
            yield self
        finally:
            self._defer_index = False
            self.build_index(memory=memory)

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
        for r in rows:
            if "\x00" in r.chunk.text or "\\u0000" in r.metadata_json:
                raise ConfigError(
                    f"chunk {r.chunk.id!r} contains a NUL character, which PostgreSQL "
                    "cannot store: remove it from the text and metadata"
                )
        if rows:
            with self._conn() as conn:
                self._check_model(conn, self.embedder)
        return rows, self._embed([r.embed_input for r in rows])

    # -- writing ------------------------------------------------------------

    def _copy_batch(self, cur: psycopg.Cursor, rows: Sequence[ChunkRow], vectors: Vectors) -> None:
        """Stream one batch of rows into the transaction's staging table."""
        with cur.copy(f"COPY jw_stage ({_COLUMNS}) FROM STDIN") as copy:
            for r, v in zip(rows, vectors, strict=True):
                m = r.chunk.metadata
                copy.write_row(
                    (
                        r.chunk.id,
                        r.chunk.source_id,
                        r.ord,
                        r.chunk.text,
                        r.metadata_json,
                        r.language,
                        _opt_str(m.get("chunker")),
                        _opt_str(m.get("chunker_version")),
                        _opt_str(m.get("parent_id")),
                        ts_config(r.language),
                        vector_literal(v),
                    )
                )

    def _insert_rows(
        self, conn: psycopg.Connection, rows: list[ChunkRow], vectors: Vectors
    ) -> None:
        """Insert (or overwrite by id) ``rows``: COPY into a staging table, then
        one INSERT, which also maintains the HNSW and full-text indexes."""
        if not rows:
            return
        self._fix_dimension(conn, self.embedder)
        conn.execute(
            "CREATE TEMP TABLE jw_stage (id text, source_id text, ord integer, text text, "
            "metadata jsonb, language text, chunker text, chunker_version text, "
            "parent_id text, ts_config regconfig, embedding vector) ON COMMIT DROP"
        )
        with conn.cursor() as cur:
            for start in range(0, len(rows), _BATCH):
                end = start + _BATCH
                self._copy_batch(cur, rows[start:end], vectors[start:end])
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in _COLUMNS.split(", ") if c != "id")
        conn.execute(
            f"INSERT INTO jw_chunks ({_COLUMNS}) SELECT {_COLUMNS} FROM jw_stage "
            f"ON CONFLICT (id) DO UPDATE SET {updates}"
        )

    @staticmethod
    def _write_parents(conn: psycopg.Connection, parents: Sequence[Chunk]) -> None:
        if not parents:
            return
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO jw_parents (id, source_id, text, metadata) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET source_id = EXCLUDED.source_id, "
                "text = EXCLUDED.text, metadata = EXCLUDED.metadata",
                [(p.id, p.source_id, p.text, dump_metadata(p)) for p in parents],
            )

    def add(self, chunks: Sequence[Chunk]) -> int:
        """Add (or overwrite, by id) ``chunks``; returns how many were written."""
        rows, vectors = self._prepare_rows(chunks)
        if not rows:
            return 0
        with self._conn(write=True) as conn:
            self._insert_rows(conn, rows, vectors)
            # Sources that ``add`` wrote to: their content hash no longer holds.
            conn.execute(
                "INSERT INTO jw_sources (source_id, content_hash) "
                "SELECT DISTINCT unnest(%s::text[]), NULL::text ORDER BY 1 "
                "ON CONFLICT (source_id) DO UPDATE SET content_hash = NULL, ingested_at = now()",
                (sorted({r.chunk.source_id for r in rows}),),
            )
        return len(rows)

    def _stored_hash(self, conn: psycopg.Connection, source_id: str, lock: bool) -> str | None:
        row = conn.execute(
            "SELECT content_hash FROM jw_sources WHERE source_id = %s"
            + (" FOR UPDATE" if lock else ""),
            (source_id,),
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
        """Atomically replace every chunk and parent of ``source_id`` (one
        transaction holding the source's row lock, so concurrent re-ingests of
        one source run one after the other).

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
            with self._conn() as conn:
                if self._stored_hash(conn, source_id, lock=False) == content_hash:
                    return False
        rows, vectors = self._prepare_rows(chunks)
        try:
            with self._conn(write=True) as conn:
                if rows:
                    self._fix_dimension(conn, self.embedder)  # before any row lock is taken
                conn.execute(
                    "INSERT INTO jw_sources (source_id) VALUES (%s) ON CONFLICT DO NOTHING",
                    (source_id,),
                )
                stored = self._stored_hash(conn, source_id, lock=True)
                if content_hash is not None and stored == content_hash:
                    raise _Unchanged  # another process ingested it meanwhile: roll back
                self._delete_source_rows(conn, source_id)
                self._insert_rows(conn, rows, vectors)
                self._write_parents(conn, parents)
                conn.execute(
                    "UPDATE jw_sources SET content_hash = %s, metadata = %s::jsonb, "
                    "ingested_at = now() WHERE source_id = %s",
                    (content_hash, meta_json, source_id),
                )
        except _Unchanged:
            return False
        return True

    @staticmethod
    def _delete_source_rows(conn: psycopg.Connection, source_id: str) -> int:
        n = conn.execute("DELETE FROM jw_chunks WHERE source_id = %s", (source_id,)).rowcount
        conn.execute("DELETE FROM jw_parents WHERE source_id = %s", (source_id,))
        return n

    def delete_source(self, source_id: str) -> int:
        """Remove a source's chunks, vectors, index entries and parents; returns the chunk count."""
        with self._conn(write=True) as conn:
            n = self._delete_source_rows(conn, source_id)
            conn.execute("DELETE FROM jw_sources WHERE source_id = %s", (source_id,))
        return n

    def add_parents(self, parents: Sequence[Chunk]) -> int:
        """Store parent chunks (kept by id, never embedded or searched)."""
        check_unique(parents, "parent")
        for p in parents:
            dump_metadata(p)
        if not parents:
            return 0
        with self._conn(write=True) as conn:
            self._write_parents(conn, parents)
        return len(parents)

    # -- reading ------------------------------------------------------------

    def _fetch(self, table: str, ids: Sequence[str]) -> list[Chunk]:
        if not ids:
            return []
        with self._conn() as conn:
            rows = conn.execute(
                f"SELECT id, source_id, text, metadata FROM {table} WHERE id = ANY(%s)",
                (list(ids),),
            ).fetchall()
        by_id = {r[0]: Chunk(id=r[0], text=r[2], source_id=r[1], metadata=r[3]) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """Chunks for ``ids``, in the order asked for; unknown ids are skipped."""
        return self._fetch("jw_chunks", ids)

    def get_parents(self, ids: Sequence[str]) -> list[Chunk]:
        """Parent chunks for ``ids``, in the order asked for; unknown ids are skipped."""
        return self._fetch("jw_parents", ids)

    def get_source(self, source_id: str) -> dict[str, Any] | None:
        """What the store knows about a source, or ``None``."""
        with self._conn() as conn:
            row = conn.execute(
                "SELECT content_hash, metadata, ingested_at, "
                "(SELECT COUNT(*) FROM jw_chunks WHERE source_id = s.source_id) "
                "FROM jw_sources AS s WHERE source_id = %s",
                (source_id,),
            ).fetchone()
        if row is None:
            return None
        return {
            "source_id": source_id,
            "content_hash": row[0],
            "metadata": row[1],
            "ingested_at": row[2].astimezone(UTC).isoformat(timespec="seconds"),
            "chunks": row[3],
        }

    # -- search -------------------------------------------------------------

    def _dense(
        self, conn: psycopg.Connection, qv: Vectors, k: int, f: SqlFilter
    ) -> list[tuple[int, float]]:
        """Approximate (HNSW) top ``k`` by cosine; exact when that is cheaper or
        the index cannot answer: a filter that keeps fewer than
        ``EXACT_BELOW`` chunks, ``k`` above pgvector's search breadth, or a
        filter that left fewer than ``k`` of the index's candidates."""
        params = {"v": vector_literal(qv), "k": k, **dict(f.params)}
        select = "SELECT c.rowid, 1 - (c.embedding <=> %(v)s::vector) FROM jw_chunks c "
        where = f"WHERE c.embedding IS NOT NULL AND {f.where} "
        selective = False
        if f.active:  # a bounded count: stops at EXACT_BELOW rows
            row = conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM jw_chunks c {where}LIMIT {EXACT_BELOW}) s",
                params,
            ).fetchone()
            selective = row is not None and row[0] < EXACT_BELOW
        if k <= _EF_SEARCH_MAX and not selective:
            breadth = _EF_SEARCH_MAX if f.active else max(self.ef_search, k)
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(breadth),))
            rows = conn.execute(
                select + where + "ORDER BY c.embedding <=> %(v)s::vector LIMIT %(k)s", params
            ).fetchall()
            if len(rows) == k or not f.active:
                return [(r[0], float(r[1])) for r in rows]
        # Ordering by (distance, rowid) is what no index provides: an exact scan.
        rows = conn.execute(
            select + where + "ORDER BY c.embedding <=> %(v)s::vector, c.rowid LIMIT %(k)s",
            params,
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    @staticmethod
    def _bm25(
        conn: psycopg.Connection, query: str, k: int, f: SqlFilter
    ) -> list[tuple[int, float]]:
        query = query.replace("\x00", "")
        if not query.strip():
            return []
        rows = conn.execute(
            f"WITH {TSQUERY_SQL} SELECT c.rowid, ts_rank_cd(c.tsv, q.tsq, 1) AS s "
            f"FROM jw_chunks c, q WHERE c.tsv @@ q.tsq AND {f.where} "
            "ORDER BY s DESC, c.rowid LIMIT %(k)s",
            {"q": query, "cfgs": query_configs(query), "k": k, **dict(f.params)},
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def _query_vector(self, query: str) -> Vectors | None:
        """The query's vector, or ``None`` when the store holds no vectors yet."""
        embedder = self.embedder
        with self._conn() as conn:
            stored = self._meta(conn).get("model_id")
        if stored is None:
            return None
        if stored != embedder.model_id:
            raise self._model_error(stored, embedder.model_id)
        return self._embed([query])[0]

    def search(
        self,
        query: str,
        k: int = 10,
        mode: SearchMode = "dense",
        filters: Mapping[str, Any] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` best chunks for ``query``; ``mode`` is ``dense`` (cosine
        similarity), ``bm25`` (``ts_rank_cd``, higher is better) or ``hybrid``
        (reciprocal rank fusion of both, see :mod:`jw_rag.store._fusion`)."""
        if mode not in _MODES:
            raise ConfigError(f"unknown search mode {mode!r}: use one of {', '.join(_MODES)}")
        if not isinstance(query, str):
            raise ConfigError(f"query must be a string, got {type(query).__name__}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ConfigError(f"k must be a non-negative integer, got {k!r}")
        f = pg_filters(filters)
        if k == 0 or f.empty:
            return []
        qv = self._query_vector(query) if mode != "bm25" else None
        with self._conn() as conn:
            if mode == "dense":
                ranked = [] if qv is None else self._dense(conn, qv, k, f)
            elif mode == "bm25":
                ranked = self._bm25(conn, query, k, f)
            else:
                depth = max(k * 4, HYBRID_DEPTH)
                dense = [] if qv is None else [r for r, _ in self._dense(conn, qv, depth, f)]
                lexical = [r for r, _ in self._bm25(conn, query, depth, f)]
                ranked = reciprocal_rank_fusion([dense, lexical], k)
            found = conn.execute(
                "SELECT rowid, id, source_id, text, metadata FROM jw_chunks WHERE rowid = ANY(%s)",
                ([r for r, _ in ranked],),
            ).fetchall()
        by_rowid = {r[0]: Chunk(id=r[1], text=r[3], source_id=r[2], metadata=r[4]) for r in found}
        return [
            SearchHit(chunk=by_rowid[rowid], score=score, rank=rank)
            for rank, (rowid, score) in enumerate(ranked, start=1)
        ]

    # -- stats --------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counts by source, language, chunker and chunker version, plus the
        embedder, whether the HNSW index exists, parents, the server (``path``,
        without password) and the tables' size on disk."""
        with self._conn() as conn:
            meta = self._meta(conn)

            def grouped(column: str) -> dict[str, int]:
                rows = conn.execute(
                    f"SELECT {column}, COUNT(*) FROM jw_chunks GROUP BY {column} ORDER BY {column}"
                )
                return {("unknown" if key is None else key): n for key, n in rows}

            def count(table: str) -> int:
                row = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
                return int(row[0]) if row else 0

            versions: dict[str, dict[str, int]] = {}
            for name, version, n in conn.execute(
                "SELECT chunker, chunker_version, COUNT(*) FROM jw_chunks "
                "GROUP BY chunker, chunker_version ORDER BY chunker, chunker_version"
            ):
                versions.setdefault(name or "unknown", {})[version or "unknown"] = n
            size = conn.execute(
                "SELECT pg_total_relation_size('jw_chunks') + pg_total_relation_size('jw_sources')"
                " + pg_total_relation_size('jw_parents')"
            ).fetchone()
            return {
                "path": self.where,
                "size_bytes": int(size[0]) if size else 0,
                "schema_version": SCHEMA_VERSION,
                "model_id": meta.get("model_id"),
                "dim": int(meta["dim"]) if "dim" in meta else None,
                "hnsw_index": self._index_exists(conn),
                "chunks": count("jw_chunks"),
                "sources": count("jw_sources"),
                "parents": count("jw_parents"),
                "per_source": grouped("source_id"),
                "languages": grouped("language"),
                "chunkers": grouped("chunker"),
                "chunker_versions": versions,
            }


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)
