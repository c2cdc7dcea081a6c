"""The PostgreSQL store's schema, its numbered migrations, and the checks run
before a database is touched.

Every table is prefixed ``jw_`` so the store can share a database with other
applications. Version history (one row per migration in ``jw_schema_version``):

1. ``jw_sources``, ``jw_chunks`` (metadata JSONB, an untyped pgvector column
   that gets its dimension at the first write, a stored ``tsvector`` generated
   from the text with the chunk's text search configuration, GIN indexes),
   ``jw_parents``, ``jw_meta`` (embedder ``model_id``/``dim``) and
   ``jw_fold(text)``, an immutable accent-folding function (the bundled and
   many managed servers lack the ``unaccent`` extension).
"""

from __future__ import annotations

import unicodedata

import psycopg

from jw_rag.errors import StoreError
from jw_rag.store._version import is_current, recorded_version

__all__ = [
    "LOCK_SCHEMA",
    "SCHEMA_VERSION",
    "TS_CONFIGS",
    "add_indexes",
    "check_exists",
    "check_readable",
    "prepare",
    "ts_config",
]

#: PostgreSQL text search configuration per chunk language; others use 'simple'.
TS_CONFIGS: dict[str, str] = {"en": "english", "es": "spanish", "pt": "portuguese"}

#: Advisory lock keys (``pg_advisory_xact_lock``): migrations and the vector column's dimension.
LOCK_SCHEMA = 0x6A77_7261_6701
LOCK_DIMENSION = 0x6A77_7261_6702


def ts_config(language: str | None) -> str:
    """The text search configuration for chunks of ``language``."""
    return TS_CONFIGS.get(language or "", "simple")


def _fold_table() -> tuple[str, str]:
    """Accented Latin letters and their bare ASCII letters, for ``translate()``."""
    src, dst = [], []
    for code in range(0xC0, 0x250):
        ch = chr(code)
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        if base != ch and len(base) == 1 and base.isascii() and base.isalpha():
            src.append(ch)
            dst.append(base)
    return "".join(src), "".join(dst)


_FOLD_FROM, _FOLD_TO = _fold_table()

#: What the full-text index holds for a chunk: the text analysed with its own
#: configuration, the accent-folded text with the same configuration (so
#: unaccented queries meet stemmed accented words), and the folded words
#: unstemmed (text of unknown language, stop words).
_TSV = (
    "to_tsvector(ts_config, body) || to_tsvector(ts_config, jw_fold(body))"
    " || to_tsvector('simple'::regconfig, jw_fold(body))"
)
_BODY = "(COALESCE(NULLIF(metadata ->> 'embed_prefix', '') || E'\\n', '') || text)"

_V1 = [
    "CREATE EXTENSION IF NOT EXISTS vector",
    "CREATE OR REPLACE FUNCTION jw_fold(text) RETURNS text LANGUAGE sql IMMUTABLE "
    f"PARALLEL SAFE STRICT AS $$ SELECT translate($1, '{_FOLD_FROM}', '{_FOLD_TO}') $$",
    """CREATE TABLE jw_sources (
        source_id    text PRIMARY KEY,
        content_hash text,
        metadata     jsonb NOT NULL DEFAULT '{}',
        ingested_at  timestamptz NOT NULL DEFAULT now()
    )""",
    f"""CREATE TABLE jw_chunks (
        rowid           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id              text NOT NULL UNIQUE,
        source_id       text NOT NULL,
        ord             integer NOT NULL,
        text            text NOT NULL,
        metadata        jsonb NOT NULL,
        language        text,
        chunker         text,
        chunker_version text,
        parent_id       text,
        ts_config       regconfig NOT NULL,
        embedding       vector,
        tsv tsvector GENERATED ALWAYS AS ({_TSV.replace("body", _BODY)}) STORED
    )""",
    "CREATE INDEX jw_chunks_by_source ON jw_chunks (source_id, ord)",
    "CREATE INDEX jw_chunks_by_language ON jw_chunks (language)",
    "CREATE INDEX jw_chunks_by_chunker ON jw_chunks (chunker, chunker_version)",
    "CREATE INDEX jw_chunks_fts ON jw_chunks USING gin (tsv)",
    "CREATE INDEX jw_chunks_pages ON jw_chunks USING gin ((metadata -> 'pages') jsonb_path_ops)",
    """CREATE TABLE jw_parents (
        id        text PRIMARY KEY,
        source_id text NOT NULL,
        text      text NOT NULL,
        metadata  jsonb NOT NULL
    )""",
    "CREATE INDEX jw_parents_by_source ON jw_parents (source_id)",
    "CREATE TABLE jw_meta (key text PRIMARY KEY, value text NOT NULL)",
]

#: The characters of a source's origin that jw_sources_by_origin holds (four
#: bytes each at most: 2048 bytes, under a B-tree entry's 2704).
ORIGIN_HEAD = 512

#: Indexes added to the current schema after it was first released, by name:
#: a writer creates those a store lacks (:func:`add_indexes`). Each serves a
#: query that gives the same rows without it, so a store without one (opened
#: only for reading, or by a user who may not create indexes) works as well,
#: and an older jw-rag keeps working with a store that has it.
ADDED_INDEXES: dict[str, str] = {
    # the sources read from files below a folder (Store.sources_below: LIKE 'root%'),
    # on the origin's first ORIGIN_HEAD characters: a B-tree entry holds at most
    # 2704 bytes, and an origin is any string (a URL with a long query)
    "jw_sources_by_origin": "CREATE INDEX IF NOT EXISTS jw_sources_by_origin "
    f"ON jw_sources ((left(metadata ->> 'origin', {ORIGIN_HEAD})) text_pattern_ops)",
}

#: Migration statements by the version they bring the database to.
_MIGRATIONS: dict[int, list[str]] = {1: _V1}
SCHEMA_VERSION = max(_MIGRATIONS)


def _current_version(conn: psycopg.Connection, where: str) -> int:
    """0 for a database without our tables; raises when ``jw_chunks`` is not ours."""
    found = {
        r[0]
        for r in conn.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_name IN "
            "('jw_schema_version', 'jw_chunks')"
        )
    }
    if not found:
        return 0
    if "jw_schema_version" not in found:
        raise StoreError(
            f"{where} has a jw_chunks table that is not a jw-rag store: "
            "use another database or schema"
        )
    row = conn.execute("SELECT MAX(version) FROM jw_schema_version").fetchone()
    value = row[0] if row else None
    if value is None and "jw_chunks" not in found:
        return 0
    return recorded_version(value, "jw_schema_version", where)


def check_exists(conn: psycopg.Connection, where: str) -> int:
    """The version of the store in the database, changing nothing; a database
    without the store's tables is a one-line StoreError (for commands that
    work on a store, never create one)."""
    version = _current_version(conn, where)
    if version == 0:
        raise StoreError(
            f"no store in {where} (it has no jw_chunks table): check the database and "
            "schema in the DSN, or ingest a source there first"
        )
    return version


def check_readable(conn: psycopg.Connection, where: str) -> int:
    """The version of the store a reader opens, changing nothing: a database
    without the store's tables (:func:`check_exists`), or with an older
    schema, is a one-line StoreError (a writer creates or migrates them)."""
    version = check_exists(conn, where)
    if not is_current(version, SCHEMA_VERSION, where):
        raise StoreError(
            f"the store in {where} has schema version {version}, older than this jw-rag's "
            f"{SCHEMA_VERSION}: open it once for writing (jw rag ingest) to update it"
        )
    return version


def _missing_indexes(conn: psycopg.Connection) -> list[str]:
    return [
        name
        for name in ADDED_INDEXES
        if (conn.execute("SELECT to_regclass(%s) IS NULL", (name,)).fetchone() or (True,))[0]
    ]


def add_indexes(conn: psycopg.Connection) -> None:
    """Create the :data:`ADDED_INDEXES` the store lacks (serialised between
    processes by the schema's advisory lock); a user who may not create them
    goes without (the queries they serve give the same rows)."""
    if not _missing_indexes(conn):
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_SCHEMA,))
        for name in _missing_indexes(conn):  # another process may have made them meanwhile
            try:
                with conn.transaction():  # a savepoint: a refusal leaves the others to make
                    conn.execute(ADDED_INDEXES[name])
            except psycopg.errors.InsufficientPrivilege:
                pass


def prepare(conn: psycopg.Connection, where: str) -> int:
    """Check the database, then apply pending migrations in one transaction
    (serialised between processes by an advisory lock); returns the version."""
    version = _current_version(conn, where)
    if is_current(version, SCHEMA_VERSION, where):
        return version
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_SCHEMA,))
        version = _current_version(conn, where)  # another process may have migrated meanwhile
        conn.execute(
            "CREATE TABLE IF NOT EXISTS jw_schema_version "
            "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for target in sorted(v for v in _MIGRATIONS if v > version):
            for statement in _MIGRATIONS[target]:
                try:
                    conn.execute(statement)
                except psycopg.errors.InsufficientPrivilege as exc:
                    raise StoreError(
                        f"cannot create the store schema in {where} "
                        f"({str(exc).splitlines()[0]}): ask an administrator to run "
                        "CREATE EXTENSION vector in that database, or connect as its owner"
                    ) from None
            conn.execute("INSERT INTO jw_schema_version (version) VALUES (%s)", (target,))
    return SCHEMA_VERSION
