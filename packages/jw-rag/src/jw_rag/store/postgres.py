"""The server store: PostgreSQL with pgvector, for teams and large libraries.

Chunks and their JSONB metadata live in one table with a pgvector column
(HNSW index, cosine) and a stored ``tsvector`` built with PostgreSQL's own
``english``/``spanish``/``portuguese`` configurations (``simple`` for other
languages), ranked by ``ts_rank``; hybrid search fuses both rankings by
reciprocal rank fusion. Writes follow the SQLite store's rule: validate and
embed first, then write everything in one transaction, so a slow embedder
holds no locks and an exception leaves the database as it was. Re-ingests of
one source are serialised by a row lock on its ``jw_sources`` row; different
sources ingest in parallel from any number of processes.
"""

from __future__ import annotations

import re
import threading
import time
import unicodedata
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import UTC
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from jw_rag.errors import (
    ConfigError,
    JwRagWarning,
    MissingDependencyError,
    StoreError,
    check_flag,
)

# Before the modules that import psycopg themselves, so that a missing
# driver is named with its extra, not as an unexpected ModuleNotFoundError.
try:
    import psycopg
    from psycopg import conninfo as _conninfo
    from psycopg_pool import ConnectionPool
except ModuleNotFoundError as _exc:
    raise MissingDependencyError(
        _exc.name or "psycopg", "postgres", "the PostgreSQL store"
    ) from None

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
from jw_rag.store._filters import SqlFilter
from jw_rag.store._meta import checked_meta
from jw_rag.store._pg_breadth import (
    DEFAULT_GRAPH,
    EF_SEARCH_MAX,
    LARGE_GRAPH_FROM,
    auto_breadth,
    graph_for,
    pgvector_features,
)
from jw_rag.store._pg_query import TSQUERY_SQL, pg_filters, query_configs, vector_literal
from jw_rag.store._pg_schema import (
    LOCK_DIMENSION,
    ORIGIN_HEAD,
    SCHEMA_VERSION,
    add_indexes,
    check_exists,
    check_readable,
    prepare,
    ts_config,
)
from jw_rag.store._rows import ChunkRow, dump_metadata, unit_kinds

if TYPE_CHECKING:  # the embed package is only needed for its types here
    from jw_rag.embed.protocol import Embedder, Vectors

__all__ = [
    "DEFAULT_HNSW_EF_CONSTRUCTION",
    "DEFAULT_HNSW_M",
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
#: pgvector's HNSW index takes vectors up to this dimension; larger ones are searched exactly.
HNSW_MAX_DIM = 2000
#: How much memory :meth:`PostgresStore.build_index` gives PostgreSQL to build
#: the HNSW graph (a graph larger than this builds much more slowly).
DEFAULT_INDEX_MEMORY = "1GB"
#: The HNSW graph a new store builds: pgvector's own defaults (links per node
#: ``m``, candidate list while building ``ef_construction``). A store records
#: the pair it was built with and rebuilds its index with that pair; one
#: that was not given a pair moves to a larger graph when it is built in one
#: pass at a large size (:func:`~jw_rag.store._pg_breadth.graph_for`).
DEFAULT_HNSW_M, DEFAULT_HNSW_EF_CONSTRUCTION = DEFAULT_GRAPH
#: pgvector's bounds: ``m`` 2..100, ``ef_construction`` 4..1000 and at least ``2 * m``.
_M_RANGE = (2, 100)
_EFC_RANGE = (4, 1000)
_CREATE_HNSW = (
    "CREATE INDEX IF NOT EXISTS {name} ON jw_chunks USING hnsw (embedding vector_cosine_ops) "
    "WITH (m = {m}, ef_construction = {efc})"
)
#: A filtered dense search that keeps fewer chunks than this scans them exactly
#: (faster than a wide HNSW scan whose candidates the filter mostly drops).
EXACT_BELOW = 5000
#: How long a table size estimate (for the automatic search breadth) is reused.
_SIZE_TTL_S = 30.0
_BATCH = 1000
_SOURCE_SQL = source_sql("jw_", "%s")
_LANGUAGES_SQL = languages_sql("jw_", "%s")
#: The sources with chunks (rows other than units) whose origin is a string
#: starting with a prefix: ``%(pattern)s`` is the prefix LIKE-escaped, then ``%``.
_ORIGINS_BELOW_SQL = (
    "SELECT s.source_id, s.metadata ->> 'origin' FROM jw_sources AS s "
    f"WHERE left(s.metadata ->> 'origin', {ORIGIN_HEAD}) LIKE %(head)s "  # jw_sources_by_origin
    "AND (s.metadata ->> 'origin') LIKE %(pattern)s "
    "AND jsonb_typeof(s.metadata -> 'origin') = 'string' "
    "AND EXISTS (SELECT FROM jw_chunks AS c WHERE c.source_id = s.source_id "
    "AND (c.chunker IS NULL OR c.chunker <> ALL(%(units)s)))"
)
_COLUMNS = (
    "id, source_id, ord, text, metadata, language, chunker, chunker_version, parent_id, "
    "ts_config, embedding"
)


#: The password of a URI quoted in a message: ``://user:`` up to the last ``@``.
_URI_PASSWORD = re.compile(r'(://[^:/@\s"]*:)[^\s"]*@')


def describe_dsn(dsn: str) -> str:
    """``dsn`` without its password: ``postgresql://user@host:port/dbname``."""
    try:
        parts = _conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as exc:
        reason = _URI_PASSWORD.sub(r"\1***@", str(exc).splitlines()[0])  # libpq quotes the URI
        raise StoreError(
            f"invalid PostgreSQL DSN ({reason}): use the form "
            "postgresql://user:password@host:5432/dbname"
        ) from None
    user = f"{parts['user']}@" if parts.get("user") else ""
    host = str(parts.get("host") or "localhost")
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{host}{port}/{parts.get('dbname') or ''}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _check_graph(
    m: object, efc: object, names: tuple[str, str] = ("hnsw_m", "hnsw_ef_construction")
) -> None:
    """One-line ``ConfigError`` unless ``m`` / ``ef_construction`` (each
    ``None`` = the store's own) are within pgvector's bounds; ``names`` are
    the caller's names for them."""
    for name, value, (low, high) in (
        (names[0], m, _M_RANGE),
        (names[1], efc, _EFC_RANGE),
    ):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high
        ):
            raise ConfigError(
                f"{name} must be None (the store's own, {DEFAULT_HNSW_M} / "
                f"{DEFAULT_HNSW_EF_CONSTRUCTION} for a new store) or an integer from {low} "
                f"to {high}, got {value!r}"
            )
    if isinstance(m, int) and isinstance(efc, int) and efc < 2 * m:
        raise ConfigError(
            f"{names[1]} must be at least twice {names[0]} (pgvector's rule), got "
            f"m={m}, ef_construction={efc}: raise ef_construction to {2 * m} or more"
        )


def _checked(rows: Any, where: str) -> dict[str, str]:
    """Rows of ``jw_meta`` as a dict, each number checked (:func:`checked_meta`;
    the HNSW graph's pair by :func:`_recorded_graph`, whose fix re-records it)."""
    return checked_meta(rows, "jw_meta", where)


def _graph_meta(conn: psycopg.Connection, where: str) -> dict[str, str]:
    """The HNSW graph parameters recorded in the store's metadata (none, or both)."""
    return _checked(
        conn.execute(
            "SELECT key, value FROM jw_meta WHERE key IN ('hnsw_m', 'hnsw_ef_construction')"
        ).fetchall(),
        where,
    )


def _graph_by_size(meta: Mapping[str, str]) -> bool:
    """Whether the store chooses its graph by its size (it was given none):
    recorded as ``hnsw_graph`` = ``size``; a store recorded before that key
    chooses when it holds pgvector's default pair."""
    chosen = meta.get("hnsw_graph")
    if chosen is not None:
        return chosen == "size"
    pair = (meta.get("hnsw_m"), meta.get("hnsw_ef_construction"))
    return pair in ((None, None), tuple(map(str, DEFAULT_GRAPH)))


def _recorded_graph(meta: Mapping[str, str], where: str) -> tuple[int, int]:
    """The store's recorded ``(m, ef_construction)`` (pgvector's defaults
    where none is recorded); a one-line ``StoreError`` for a pair that
    pgvector cannot build (``jw_meta`` edited by hand)."""
    m = meta.get("hnsw_m", str(DEFAULT_HNSW_M))
    efc = meta.get("hnsw_ef_construction", str(DEFAULT_HNSW_EF_CONSTRUCTION))
    try:
        graph = int(m), int(efc)
        _check_graph(*graph)
    except (ValueError, ConfigError):
        raise StoreError(
            f"the store at {where} records an HNSW graph pgvector cannot build (hnsw_m {m!r}, "
            f"hnsw_ef_construction {efc!r} in jw_meta): run DELETE FROM jw_meta WHERE key "
            "LIKE 'hnsw%' and open the store again to record its index's own"
        ) from None
    return graph


def _index_graph(conn: psycopg.Connection) -> tuple[int, int] | None:
    """The (m, ef_construction) of the existing HNSW index (pgvector's
    defaults where its options do not say), or ``None`` without an index."""
    row = conn.execute(
        "SELECT reloptions FROM pg_class WHERE oid = to_regclass('jw_chunks_hnsw')"
    ).fetchone()
    if row is None:
        return None
    options = dict(o.split("=", 1) for o in (row[0] or []))
    return (
        int(options.get("m", DEFAULT_HNSW_M)),
        int(options.get("ef_construction", DEFAULT_HNSW_EF_CONSTRUCTION)),
    )


def _reads_only(conn: psycopg.Connection) -> None:
    """A reader's connection: every transaction begins ``READ ONLY``, so the
    server refuses any write. Set on the connection, not through its
    ``options``: options the DSN does not carry (``$PGOPTIONS``, a service
    file's) would be replaced by the ones given, a ``search_path`` with them."""
    conn.read_only = True


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _plain_letter(match: re.Match[str]) -> str:
    """A fullwidth letter or a ligature as its letters (``Ｓ`` -> ``S``, ``ﬁ`` ->
    ``fi``); any other character as it is (``º``, ``…`` and the like keep theirs)."""
    ch = match.group()
    if unicodedata.decomposition(ch).startswith(("<wide>", "<compat>")):
        letters = unicodedata.normalize("NFKC", ch)
        if letters.isalpha():
            return letters
    return ch


def _both_forms(query: str) -> str:
    """``query``, and after it its composed form (NFC, fullwidth letters and
    ligatures as plain letters) when that differs: the server's parser takes a
    combining accent (NFD: ``Jesu\u0301s``), a fullwidth letter or a ligature
    as written, and ``jw_fold`` folds precomposed letters only, so such a query
    found no precomposed text (SQLite's analysis folds them all); the form as
    given still finds text stored in it."""
    if query.isascii() or unicodedata.is_normalized("NFKC", query):
        return query
    composed = _NON_ASCII.sub(_plain_letter, unicodedata.normalize("NFC", query))
    return query if composed == query else f"{query}\n{composed}"


class PostgresStore(StoreCore[psycopg.Connection]):
    """A :class:`~jw_rag.store.protocol.Store` in a PostgreSQL database with pgvector.

    ``dsn`` is a libpq connection string or ``postgresql://`` URL. The schema
    is created (or migrated) on first open. ``embedder`` works as in
    :class:`~jw_rag.store.sqlite_store.SQLiteStore`: ``None`` creates the
    default at first use, so BM25-only use never loads a model.
    ``ef_search`` fixes HNSW's search breadth; by default (``None``) each
    search picks it from ``k`` and the table's size
    (:func:`~jw_rag.store._pg_breadth.auto_breadth`), which kept recall@10
    against exact search near 0.95 up to 100,000 chunks in
    ``benchmarks/store_scale.py`` (at a million, pgvector's default graph
    found 0.88 at the widest breadth). ``hnsw_m`` and ``hnsw_ef_construction``
    set the HNSW graph of a new store; the store records them, and every
    later build of its index uses the recorded pair (``None`` = the store's
    own; another value than the store's is an error: :meth:`rebuild_index`
    changes them). A store given neither chooses by its size: pgvector's 16
    and 64, and ``m`` 48, ``ef_construction`` 200 when a one-pass build
    (:meth:`deferred_index`, :meth:`build_index`, :meth:`rebuild_index`)
    finds 300,000 chunks or more (not through an object opened with the
    store's own pair); a store that outgrew its graph by inserts warns once
    at search. Opening checks the server's pgvector:
    an error below 0.5 (no HNSW), a warning below 0.8 (no iterative index
    scans for filtered searches). ``read_only=True`` opens an existing store
    for reading only: nothing is created or migrated (a database without the
    store's tables is a one-line error), every transaction is read-only on
    the server, and a write is refused in one line. ``create=False`` opens
    an existing store for writing (deleting a source, rebuilding the index)
    and refuses, in the same line, a database without one.
    """

    def __init__(
        self,
        dsn: str,
        embedder: Embedder | None = None,
        *,
        pool_size: int = DEFAULT_POOL_SIZE,
        connect_timeout: int = 10,
        ef_search: int | None = None,
        hnsw_m: int | None = None,
        hnsw_ef_construction: int | None = None,
        read_only: bool = False,
        create: bool = True,
    ) -> None:
        check_flag("read_only", read_only)
        check_flag("create", create)
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
            raise ConfigError(f"pool_size must be a positive integer, got {pool_size!r}")
        if ef_search is not None and (
            isinstance(ef_search, bool)
            or not isinstance(ef_search, int)
            or not 1 <= ef_search <= EF_SEARCH_MAX
        ):
            raise ConfigError(
                f"ef_search must be None (chosen per search) or an integer from 1 to "
                f"{EF_SEARCH_MAX}, got {ef_search!r}"
            )
        _check_graph(hnsw_m, hnsw_ef_construction)
        super().__init__(embedder)
        self.ef_search = ef_search
        self.where = self._label = describe_dsn(dsn)
        self.read_only = read_only
        kwargs: dict[str, Any] = {"autocommit": True, "connect_timeout": connect_timeout}
        try:
            with psycopg.connect(dsn, **kwargs) as conn:
                if read_only:
                    _reads_only(conn)
                with conn.transaction() if read_only else nullcontext():
                    if read_only:
                        check_readable(conn, self.where)
                    else:
                        if not create:
                            check_exists(conn, self.where)
                        prepare(conn, self.where)
                        add_indexes(conn)
                    graph = self._record_graph(conn, hnsw_m, hnsw_ef_construction, self.where)
                    versions = conn.execute(
                        "SELECT e.extversion, a.default_version FROM pg_extension e "
                        "LEFT JOIN pg_available_extensions a ON a.name = e.extname "
                        "WHERE e.extname = 'vector'"
                    ).fetchone()
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"cannot connect to PostgreSQL at {self.where} ({_first_line(exc)}): "
                "check that the server is running and that host, port, database, user "
                "and password in the DSN are right"
            ) from None
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot open the store at {self.where} ({_first_line(exc)}): "
                "check the database and the user's privileges"
            ) from None
        if versions is None:  # prepare() creates it: only a concurrent DROP EXTENSION gets here
            raise StoreError(
                f"the pgvector extension is missing in {self.where}: run CREATE EXTENSION vector"
            )
        self.pgvector = pgvector_features(versions[0], versions[1], self.where)
        for name, asked, own in zip(
            ("hnsw_m", "hnsw_ef_construction"), (hnsw_m, hnsw_ef_construction), graph, strict=True
        ):
            if asked is not None and asked != own:
                raise ConfigError(
                    f"{name}={asked} differs from this store's {own} (its HNSW graph is m={graph[0]}, "
                    f"ef_construction={graph[1]}): open it without {name}, or change the graph "
                    "with rebuild_index(m=..., ef_construction=...)"
                )
        self._pool = ConnectionPool(
            dsn,
            min_size=1,
            max_size=pool_size,
            kwargs=kwargs,
            configure=_reads_only if read_only else None,
            open=True,
            name="jw-rag",
        )
        self._defer_index = False
        self._size: tuple[float, float] = (0.0, -_SIZE_TTL_S)  # (rows, when measured)
        self._graph_warned = False
        # Given a graph (the store's own, or open would have refused it), this
        # object never changes it by size, and is not advised to.
        self._graph_asked = hnsw_m is not None or hnsw_ef_construction is not None
        self._graph_warning = threading.Lock()  # threads that find it outgrown at once warn once

    # -- connection and transactions -----------------------------------------

    def close(self) -> None:
        self._pool.close()

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

    def _reading(self) -> AbstractContextManager[psycopg.Connection]:
        return self._conn()

    def _writing(self) -> AbstractContextManager[psycopg.Connection]:
        if self.read_only:
            raise StoreError(
                f"the store at {self.where} is opened for reading only: open it without "
                "read_only to write; searching it works as it is"
            )
        return self._conn(write=True)

    def _meta(self, conn: psycopg.Connection) -> dict[str, str]:
        return _checked(conn.execute("SELECT key, value FROM jw_meta").fetchall(), self.where)

    def _add_meta(self, conn: psycopg.Connection, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO jw_meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING",
            (key, value),
        )

    def _has_vectors(self, conn: psycopg.Connection) -> bool:
        row = conn.execute("SELECT 1 FROM jw_chunks WHERE embedding IS NOT NULL LIMIT 1")
        return row.fetchone() is not None

    # -- the HNSW graph's parameters -------------------------------------------

    @staticmethod
    def _record_graph(
        conn: psycopg.Connection, m: int | None, efc: int | None, where: str
    ) -> tuple[int, int]:
        """The store's (m, ef_construction), recorded on first open: an
        existing index's own (a store made before they were recorded), else
        the asked ones, else pgvector's defaults, and whether the store
        chooses its graph by size (neither was asked and no index says
        otherwise). Concurrent openers agree (the first insert wins). A reader
        that may not write (a hot standby, a role that may only read) records
        nothing: the first writer will."""
        meta = _graph_meta(conn, where)
        if len(meta) < 2:
            graph = _index_graph(conn) or (
                m if m is not None else DEFAULT_HNSW_M,
                efc if efc is not None else DEFAULT_HNSW_EF_CONSTRUCTION,
            )
            _check_graph(*graph)  # an asked m with the default ef_construction may break the rule
            by_size = m is None and efc is None and graph == DEFAULT_GRAPH
            may_write = conn.execute(
                "SELECT current_setting('transaction_read_only') = 'off' "
                "AND has_table_privilege('jw_meta', 'INSERT')"
            ).fetchone()
            if not (may_write and may_write[0]):  # a reader asks nothing the server refuses
                return graph
            try:
                conn.execute(
                    "INSERT INTO jw_meta (key, value) VALUES ('hnsw_m', %s), "
                    "('hnsw_ef_construction', %s), ('hnsw_graph', %s) "
                    "ON CONFLICT (key) DO NOTHING",
                    (str(graph[0]), str(graph[1]), "size" if by_size else "asked"),
                )
            except (psycopg.errors.ReadOnlySqlTransaction, psycopg.errors.InsufficientPrivilege):
                return graph
            meta = _graph_meta(conn, where)
        return _recorded_graph(meta, where)

    def _fit_graph(self, conn: psycopg.Connection) -> None:
        """Record the graph for the store's size (:func:`graph_for`) if the
        store chooses its own; the count stops at ``LARGE_GRAPH_FROM``."""
        if not _graph_by_size(self._meta(conn)):
            return
        row = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM jw_chunks WHERE embedding IS NOT NULL "
            f"LIMIT {LARGE_GRAPH_FROM}) s"
        ).fetchone()
        m, efc = graph_for(int(row[0]) if row else 0)
        conn.execute(
            "INSERT INTO jw_meta (key, value) VALUES ('hnsw_m', %s), "
            "('hnsw_ef_construction', %s), ('hnsw_graph', 'size') "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (str(m), str(efc)),
        )

    def _create_index(self, conn: psycopg.Connection, name: str = "jw_chunks_hnsw") -> None:
        """Build the HNSW index ``name`` with the store's recorded graph."""
        m, efc = _recorded_graph(self._meta(conn), self.where)
        conn.execute(_CREATE_HNSW.format(name=name, m=m, efc=efc))

    def hnsw_graph(self) -> tuple[int, int]:
        """The store's HNSW ``(m, ef_construction)``, as recorded."""
        with self._conn() as conn:
            return _recorded_graph(self._meta(conn), self.where)

    # -- the vector column ----------------------------------------------------

    def _column_ready(self, conn: psycopg.Connection, embedder: Embedder) -> bool:
        """Whether the vector column already has this embedder's model and
        dimension (raises when it holds vectors of another model)."""
        meta = self._meta(conn)
        if meta.get("model_id") == embedder.model_id and meta.get("dim") == str(embedder.dim):
            return True
        self._check_model(conn)
        return False

    def _fix_dimension(self, conn: psycopg.Connection, embedder: Embedder) -> None:
        """Give the vector column the embedder's dimension (first write, or a
        store whose vectors were all deleted), serialised by an advisory lock."""
        if self._column_ready(conn, embedder):
            return
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_DIMENSION,))
        if self._column_ready(conn, embedder):  # another process did it meanwhile
            return
        dim = int(embedder.dim)
        conn.execute("DROP INDEX IF EXISTS jw_chunks_hnsw")
        conn.execute(f"ALTER TABLE jw_chunks ALTER COLUMN embedding TYPE vector({dim})")
        if dim <= HNSW_MAX_DIM and not self._defer_index:
            self._create_index(conn)
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

    def _index_memory(self, conn: psycopg.Connection, memory: str) -> None:
        """Give this transaction ``memory`` of ``maintenance_work_mem``, or a
        one-line ``ConfigError`` for a value PostgreSQL does not take (raised
        before the index or the graph changes: the transaction is rolled back)."""
        if isinstance(memory, str):
            try:
                conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (memory,))
                return
            except psycopg.errors.InvalidParameterValue:
                pass
        raise ConfigError(
            f"memory must be a PostgreSQL size such as '1GB' or '512MB' (1MB or more, for "
            f"maintenance_work_mem), got {memory!r}"
        )

    def build_index(self, *, memory: str = DEFAULT_INDEX_MEMORY) -> bool:
        """Build the HNSW index if it is missing, in one pass over the stored
        vectors with ``memory`` of ``maintenance_work_mem``; returns whether it
        built one. Writes wait while it builds; searches do not."""
        with self._writing() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_DIMENSION,))
            self._index_memory(conn, memory)
            dim = self._meta(conn).get("dim")
            if dim is None or int(dim) > HNSW_MAX_DIM:
                return False
            if self._index_exists(conn):
                return False
            if not self._graph_asked:
                self._fit_graph(conn)
            self._create_index(conn)
            return True

    def rebuild_index(
        self,
        *,
        m: int | None = None,
        ef_construction: int | None = None,
        memory: str = DEFAULT_INDEX_MEMORY,
        by_size: bool = False,
    ) -> bool:
        """Give the store a new HNSW graph (``None`` keeps that parameter):
        records ``m`` / ``ef_construction`` and builds the index with them
        beside the old one, which serves searches until the new one replaces
        it at commit (an error keeps the old index and parameters). Writes
        wait while it builds. Returns whether an index was built (not without
        vectors, or for vectors wider than pgvector indexes). Without ``m``
        and ``ef_construction``, a store that chooses its graph by size gets
        the graph for its size now; a store given either keeps it from then on.
        ``by_size=True`` hands the choice back to the store (after a pair was
        given): the graph for its size now, and at every later one-pass build."""
        _check_graph(m, ef_construction, ("m", "ef_construction"))
        if by_size is not True and by_size is not False:
            raise ConfigError(f"by_size must be True or False, got {by_size!r}")
        if by_size and (m is not None or ef_construction is not None):
            raise ConfigError(
                "by_size chooses the graph by the store's size, m / ef_construction give one: "
                "pass one or the other"
            )
        with self._writing() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_DIMENSION,))
            self._index_memory(conn, memory)
            if by_size:
                conn.execute(
                    "INSERT INTO jw_meta (key, value) VALUES ('hnsw_graph', 'size') "
                    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
                )
                self._graph_asked = False
            chosen = _graph_by_size(self._meta(conn))
            if m is None and ef_construction is None and not self._graph_asked and chosen:
                self._fit_graph(conn)
            meta = self._meta(conn)
            if m is not None and ef_construction is not None:
                new_m, new_efc = m, ef_construction  # a new pair: the recorded one may be garbled
            else:
                own_m, own_efc = _recorded_graph(meta, self.where)
                new_m = m if m is not None else own_m
                new_efc = ef_construction if ef_construction is not None else own_efc
            _check_graph(new_m, new_efc, ("m", "ef_construction"))
            asked = m is not None or ef_construction is not None or not _graph_by_size(meta)
            conn.execute(
                "INSERT INTO jw_meta (key, value) VALUES ('hnsw_m', %s), "
                "('hnsw_ef_construction', %s), ('hnsw_graph', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (str(new_m), str(new_efc), "asked" if asked else "size"),
            )
            dim = meta.get("dim")
            if dim is None or int(dim) > HNSW_MAX_DIM:
                return False
            conn.execute("DROP INDEX IF EXISTS jw_chunks_hnsw_new")
            self._create_index(conn, "jw_chunks_hnsw_new")
            conn.execute("DROP INDEX IF EXISTS jw_chunks_hnsw")
            conn.execute("ALTER INDEX jw_chunks_hnsw_new RENAME TO jw_chunks_hnsw")
            return True

    @contextmanager
    def deferred_index(self, *, memory: str = DEFAULT_INDEX_MEMORY) -> Iterator[PostgresStore]:
        """Bulk loading: drop the HNSW index, let the block ingest, then build
        the index once (pgvector builds an index many times faster than it
        inserts into one). The index is rebuilt even when the block raises;
        meanwhile every process's dense search is exact, so still right."""
        with self._writing() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_DIMENSION,))
            self._index_memory(conn, memory)  # a bad one stops here, not after the load
            conn.execute("DROP INDEX IF EXISTS jw_chunks_hnsw")
        self._defer_index = True
        try:
            yield self
        finally:
            self._defer_index = False
            self.build_index(memory=memory)

    # -- writing ------------------------------------------------------------

    def _copy_batch(self, cur: psycopg.Cursor, rows: Sequence[ChunkRow], vectors: Vectors) -> None:
        """Stream one batch of rows into the transaction's staging table."""
        with cur.copy(f"COPY jw_stage ({_COLUMNS}) FROM STDIN") as copy:
            for r, v in zip(rows, vectors, strict=True):
                copy.write_row((*r.fields(), ts_config(r.language), vector_literal(v)))

    def _insert_rows(
        self, conn: psycopg.Connection, rows: list[ChunkRow], vectors: Vectors
    ) -> None:
        """Insert (or overwrite by id) ``rows``: COPY into a staging table, then
        one INSERT, which also maintains the HNSW and full-text indexes (the
        staging table is dropped after it, for the write's next batch)."""
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
        conn.execute("DROP TABLE jw_stage")  # a write inserts several batches and sources

    def _write_parents(self, conn: psycopg.Connection, parents: Sequence[Chunk]) -> None:
        if not parents:
            return
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO jw_parents (id, source_id, text, metadata) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET source_id = EXCLUDED.source_id, "
                "text = EXCLUDED.text, metadata = EXCLUDED.metadata",
                [(p.id, p.source_id, p.text, dump_metadata(p)) for p in parents],
            )

    def _touch_sources(self, conn: psycopg.Connection, source_ids: list[str]) -> None:
        conn.execute(
            "INSERT INTO jw_sources (source_id, content_hash) "
            "SELECT unnest(%s::text[]), NULL::text ORDER BY 1 "  # rows locked in one order
            "ON CONFLICT (source_id) DO UPDATE SET content_hash = NULL, ingested_at = now()",
            (source_ids,),
        )

    def _stored_hash(
        self, conn: psycopg.Connection, source_id: str, lock: bool = False
    ) -> str | None:
        row = conn.execute(
            "SELECT content_hash FROM jw_sources WHERE source_id = %s"
            + (" FOR UPDATE" if lock else ""),
            (source_id,),
        ).fetchone()
        return None if row is None else row[0]

    def _claim_source(self, conn: psycopg.Connection, source_id: str, has_rows: bool) -> str | None:
        """Take the source's row lock, so concurrent re-ingests of one source
        run one after the other (the vector column is fixed first, before any
        row lock is held). A delete holding the lock when the ingest asked for
        it removes the row at its commit: the row is made again and locked,
        or the chunks written would be left without their source."""
        if has_rows:
            self._fix_dimension(conn, self.embedder)
        while True:  # a delete that held the row lock may have removed the row: insert it again
            conn.execute(
                "INSERT INTO jw_sources (source_id) VALUES (%s) ON CONFLICT DO NOTHING",
                (source_id,),
            )
            row = conn.execute(
                "SELECT content_hash FROM jw_sources WHERE source_id = %s FOR UPDATE", (source_id,)
            ).fetchone()
            if row is not None:  # locked to the commit: a delete now waits for this write
                return row[0]

    def _lock_source(self, conn: psycopg.Connection, source_id: str) -> None:
        """The source's row lock, which an ingest holds to its commit: a delete
        that only waited on the chunk rows it saw missed the rows a re-ingest
        committed meanwhile, and left them without their source."""
        self._stored_hash(conn, source_id, lock=True)

    def _record_source(
        self, conn: psycopg.Connection, source_id: str, content_hash: str | None, metadata_json: str
    ) -> None:
        conn.execute(
            "UPDATE jw_sources SET content_hash = %s, metadata = %s::jsonb, "
            "ingested_at = now() WHERE source_id = %s",
            (content_hash, metadata_json, source_id),
        )

    def _delete_source_rows(self, conn: psycopg.Connection, source_id: str) -> int:
        row = conn.execute(
            "WITH gone AS (DELETE FROM jw_chunks WHERE source_id = %s RETURNING chunker) "
            "SELECT COUNT(*) FILTER (WHERE chunker IS NULL OR NOT chunker = ANY(%s)) FROM gone",
            (source_id, list(unit_kinds(self._meta(conn)))),
        ).fetchone()
        conn.execute("DELETE FROM jw_parents WHERE source_id = %s", (source_id,))
        return int(row[0]) if row else 0

    def _forget_source(self, conn: psycopg.Connection, source_id: str) -> None:
        conn.execute("DELETE FROM jw_sources WHERE source_id = %s", (source_id,))

    # -- reading ------------------------------------------------------------

    def _fetch(self, conn: psycopg.Connection, ids: list[str], parents: bool) -> dict[str, Chunk]:
        table = "jw_parents" if parents else "jw_chunks"
        rows = conn.execute(
            f"SELECT id, source_id, text, metadata FROM {table} WHERE id = ANY(%s)", (ids,)
        ).fetchall()
        return {r[0]: Chunk(id=r[0], text=r[2], source_id=r[1], metadata=r[3]) for r in rows}

    def _fetch_vectors(
        self, conn: psycopg.Connection, ids: list[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        rows = conn.execute(
            "SELECT id, embedding::real[] FROM jw_chunks "
            "WHERE id = ANY(%s) AND embedding IS NOT NULL",
            (ids,),
        ).fetchall()
        return {cid: np.asarray(values, dtype=np.float32) for cid, values in rows}

    def _source_ids(self, conn: psycopg.Connection, ids: list[str] | None) -> list[str]:
        if ids is None:
            return [r[0] for r in conn.execute("SELECT source_id FROM jw_sources")]
        sql = "SELECT source_id FROM jw_sources WHERE source_id = ANY(%s)"
        return [r[0] for r in conn.execute(sql, (ids,))] if ids else []

    def _origins_below(self, conn: psycopg.Connection, root: str) -> list[tuple[str, str]]:
        # LIKE on a prefix is served by jw_sources_by_origin (text_pattern_ops)
        def prefix(text: str) -> str:
            return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

        rows = conn.execute(
            _ORIGINS_BELOW_SQL,
            {
                "head": prefix(root[:ORIGIN_HEAD]),
                "pattern": prefix(root),
                "units": list(unit_kinds(self._meta(conn))),
            },
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def _source_languages(self, conn: psycopg.Connection, source_id: str) -> list[str]:
        return [row[0] for row in conn.execute(_LANGUAGES_SQL, (source_id,)).fetchall()]

    def _source_row(self, conn: psycopg.Connection, source_id: str) -> SourceRow | None:
        row = conn.execute(_SOURCE_SQL, (source_id,)).fetchone()
        if row is None:
            return None
        when = row[2].astimezone(UTC).isoformat(timespec="seconds")
        return SourceRow(row[0], row[1], when, row[3])

    # -- search -------------------------------------------------------------

    def _filter(self, filters: Mapping[str, Any] | None) -> SqlFilter:
        return pg_filters(filters)

    def _table_rows(self, conn: psycopg.Connection) -> float:
        """About how many chunks the table holds (planner and activity
        statistics, no scan), remeasured every ``_SIZE_TTL_S`` seconds."""
        rows, when = self._size
        now = time.monotonic()
        if now - when < _SIZE_TTL_S:
            return rows
        row = conn.execute(
            "SELECT GREATEST(c.reltuples, COALESCE(s.n_live_tup, 0)) FROM pg_class c "
            "LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid "
            "WHERE c.oid = 'jw_chunks'::regclass"
        ).fetchone()
        rows = float(row[0]) if row and row[0] is not None else 0.0
        self._size = (rows, now)
        if rows >= LARGE_GRAPH_FROM and not self._graph_warned:
            self._warn_small_graph(conn, rows)
        return rows

    def _warn_small_graph(self, conn: psycopg.Connection, rows: float) -> None:
        """Warn once per store object when a store that chooses its graph by
        size has outgrown the index it has (it grew by inserts, not a bulk
        load); not without an index (vectors too wide for one, or a bulk load
        that will build the graph for its size)."""
        meta = self._meta(conn)
        graph = _recorded_graph(meta, self.where)
        large = graph_for(int(rows))
        if self._graph_asked or not _graph_by_size(meta) or graph == large:
            return
        if not self._index_exists(conn):
            return
        with self._graph_warning:
            if self._graph_warned:
                return
            self._graph_warned = True
        warnings.warn(
            f"the store at {self.where} holds about {rows:,.0f} chunks in an HNSW graph built "
            f"for fewer (m {graph[0]}, ef_construction {graph[1]}), so dense search misses "
            f"some of the nearest chunks: `jw rag reindex` (or store.rebuild_index()) builds "
            f"m {large[0]}, ef_construction {large[1]} for this size",
            JwRagWarning,
            stacklevel=2,
        )

    def _breadth(self, conn: psycopg.Connection, k: int) -> int:
        rows = self._table_rows(conn)  # measured even at a fixed breadth: it warns of a small graph
        if self.ef_search is not None:
            return max(self.ef_search, min(k, EF_SEARCH_MAX))
        return auto_breadth(rows, k)

    def _dense(
        self, conn: psycopg.Connection, query_vector: Vectors, k: int, f: SqlFilter
    ) -> Ranked:
        """Approximate (HNSW) top ``k`` by cosine at the breadth :meth:`_breadth`
        picks; exact when that is cheaper or the index cannot answer: a filter
        that keeps fewer than ``EXACT_BELOW`` chunks, ``k`` above pgvector's
        search breadth, or a filter that left fewer than ``k`` of the index's
        candidates. With pgvector 0.8 or later a filtered search scans the
        index iteratively until ``k`` rows pass the filter; older servers
        filter the widest breadth's candidates."""
        params = {"v": vector_literal(query_vector), "k": k, **dict(f.params)}
        select = "SELECT c.rowid, 1 - (c.embedding <=> %(v)s::vector) FROM jw_chunks c "
        where = f"WHERE c.embedding IS NOT NULL AND {f.where} "
        selective = False
        if f.active:  # a bounded count: stops at EXACT_BELOW rows
            row = conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM jw_chunks c {where}LIMIT {EXACT_BELOW}) s",
                params,
            ).fetchone()
            selective = row is not None and row[0] < EXACT_BELOW
        if k <= EF_SEARCH_MAX and not selective:
            breadth = self._breadth(conn, k)
            settings = "SELECT set_config('hnsw.ef_search', %s, true)"
            if f.active and self.pgvector.iterative_scan:
                settings += ", set_config('hnsw.iterative_scan', 'strict_order', true)"
            elif f.active:  # no iterative scan (pgvector < 0.8): filter the widest breadth
                breadth = EF_SEARCH_MAX
            conn.execute(settings, (str(breadth),))
            rows = conn.execute(
                select + where + "ORDER BY c.embedding <=> %(v)s::vector LIMIT %(k)s", params
            ).fetchall()
            if len(rows) == k or not f.active:
                return [(r[0], float(r[1])) for r in rows]
        # The exact scan orders by the score, an expression no index matches:
        # ordering by the distance operator would let the planner walk the
        # HNSW index (with an incremental sort for the rowid), which returns at
        # most ef_search rows and misses filtered ones.
        rows = conn.execute(
            select + where + "ORDER BY 2 DESC, c.rowid LIMIT %(k)s", params
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def _bm25(self, conn: psycopg.Connection, query: str, k: int, f: SqlFilter) -> Ranked:
        """Scored by ``ts_rank`` with length normalisation (higher is better; see
        :data:`~jw_rag.store._pg_query.TSQUERY_SQL` for the words matched)."""
        query = query.replace("\x00", "")
        if not query.strip():
            return []
        try:
            rows = conn.execute(
                f"WITH {TSQUERY_SQL} SELECT c.rowid, ts_rank(c.tsv, q.tsq, 1) AS s "
                f"FROM jw_chunks c, q WHERE c.tsv @@ q.tsq AND {f.where} "
                "ORDER BY s DESC, c.rowid LIMIT %(k)s",
                {"q": _both_forms(query), "cfgs": query_configs(query), "k": k, **dict(f.params)},
            ).fetchall()
        except psycopg.errors.ProgramLimitExceeded as exc:  # the query's words, not the store
            raise ConfigError(
                f"the query has too many words for PostgreSQL full-text search "
                f"({len(query):,} characters; {_first_line(exc)}): shorten it, "
                "or search it with mode='dense'"
            ) from None
        return [(r[0], float(r[1])) for r in rows]

    def _chunks_by_rowid(self, conn: psycopg.Connection, rowids: list[int]) -> dict[int, Chunk]:
        found = conn.execute(
            "SELECT rowid, id, source_id, text, metadata FROM jw_chunks WHERE rowid = ANY(%s)",
            (rowids,),
        ).fetchall()
        return {r[0]: Chunk(id=r[1], text=r[3], source_id=r[2], metadata=r[4]) for r in found}

    # -- stats --------------------------------------------------------------

    def _describe(self, conn: psycopg.Connection) -> dict[str, Any]:
        """The server (without password), the tables' size on disk, the
        schema version, whether the HNSW index exists and its graph's recorded
        ``m`` / ``ef_construction``."""
        size = conn.execute(
            "SELECT pg_total_relation_size('jw_chunks') + pg_total_relation_size('jw_sources')"
            " + pg_total_relation_size('jw_parents')"
        ).fetchone()
        meta = self._meta(conn)
        graph = _recorded_graph(meta, self.where)
        return {
            "path": self.where,
            "size_bytes": int(size[0]) if size else 0,
            "schema_version": SCHEMA_VERSION,
            "hnsw_index": self._index_exists(conn),
            "hnsw_m": graph[0],
            "hnsw_ef_construction": graph[1],
            "hnsw_graph_by_size": _graph_by_size(meta),
        }

    def _counts(self, conn: psycopg.Connection) -> Counts:
        """All chunk counts in one pass over the table (grouping sets)."""
        rows = conn.execute(
            "SELECT GROUPING(source_id, language), source_id, language, chunker, "
            "chunker_version, COUNT(*) FROM jw_chunks GROUP BY GROUPING SETS "
            "((source_id), (language), (chunker, chunker_version)) ORDER BY 1, 2, 3, 4, 5"
        ).fetchall()
        units = conn.execute(
            "SELECT chunker, source_id, language, COUNT(*) FROM jw_chunks "
            "WHERE chunker = ANY(%s) GROUP BY chunker, source_id, language",
            (list(unit_kinds(self._meta(conn))),),
        ).fetchall()
        totals = conn.execute(
            "SELECT (SELECT COUNT(*) FROM jw_sources), (SELECT COUNT(*) FROM jw_parents)"
        ).fetchone()
        return Counts(
            sources=int(totals[0]) if totals else 0,
            parents=int(totals[1]) if totals else 0,
            per_source=[(r[1], r[5]) for r in rows if r[0] == 1],
            languages=[(r[2], r[5]) for r in rows if r[0] == 2],
            chunker_versions=[(r[3], r[4], r[5]) for r in rows if r[0] == 3],
            units=[(r[0], r[1], r[2], int(r[3])) for r in units],
        )
