"""The full-text query (``TSQUERY_SQL``) folds each of the query's tokens once:
it wrote ``jw_fold(d.token)`` three times, and the planner kept every copy (and
copied the folded stems into the stop test), so a token was folded up to five
times. A ``jw_fold`` that reports each call (a notice) counts them; the tsquery
made is the one the earlier form made, for questions in every language."""

from __future__ import annotations

import psycopg
import pytest

from jw_rag.store._pg_query import TSQUERY_SQL, query_configs
from jw_rag.store.postgres import PostgresStore
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder

QUERIES = [
    "What is it that Noah built?",
    "¿Qué es lo que se pone sobre el candelero?",
    "Você também não crê em Deus?",
    "Quem é Jesus?",
    "é",
    "to be or not to be",
    "também não",
    "¿Había más lámparas?",
    "Abraão, Jerusalém e a fé",
    "O'Brien's \\ back-slash 'quotes' & | ! operators",
    "naïve café façade",
    "12 3.5 2024-01-01",
    "...",
]

#: The ``tokens`` CTE as it was, folding each token three times in the text.
_OLD_TOKENS = """tokens AS (
  SELECT t.*, t.lexemes = '{}' OR COALESCE(t.folded_stems = ''::tsvector, false) AS stop
  FROM (
    SELECT cfg.c, d.lexemes, jw_fold(d.token) AS folded,
           CASE WHEN d.token <> jw_fold(d.token) THEN to_tsvector(cfg.c, jw_fold(d.token)) END
             AS folded_stems
    FROM unnest(%(cfgs)s::regconfig[]) AS cfg (c),
         LATERAL ts_debug(cfg.c, %(q)s) AS d
    WHERE d.lexemes IS NOT NULL
  ) AS t
),"""


def _old_sql() -> str:
    start = TSQUERY_SQL.index("tokens AS (")
    end = TSQUERY_SQL.index("stop_stems AS (")
    return TSQUERY_SQL[:start] + _OLD_TOKENS + "\n" + TSQUERY_SQL[end:]


def _tsquery(conn: psycopg.Connection, sql: str, query: str) -> str | None:
    row = conn.execute(
        f"WITH {sql} SELECT tsq::text FROM q", {"q": query, "cfgs": query_configs(query)}
    ).fetchone()
    return None if row is None else row[0]


@pytest.fixture
def dsn(pg_database: PgDatabase) -> str:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()):
        pass  # the schema, jw_fold with it
    return dsn


def test_the_tsquery_is_the_one_the_earlier_form_made(dsn: str) -> None:
    old = _old_sql()
    assert old != TSQUERY_SQL
    with psycopg.connect(dsn) as conn:
        for query in QUERIES:
            assert _tsquery(conn, TSQUERY_SQL, query) == _tsquery(conn, old, query), query
        assert _tsquery(conn, TSQUERY_SQL, "Noah built") == "'built' | 'noah'"
        assert _tsquery(conn, TSQUERY_SQL, "...") is None


def _fold_calls(conn: psycopg.Connection, sql: str, query: str) -> tuple[int, int]:
    """(calls of jw_fold on the query's tokens, the tokens analysed: one per
    configuration and word)."""
    calls: list[str] = []
    conn.add_notice_handler(lambda diag: calls.append(diag.message_primary or ""))
    _tsquery(conn, sql, query)
    conn._notice_handlers.clear()  # type: ignore[attr-defined]
    row = conn.execute(
        "SELECT count(*) FROM unnest(%(cfgs)s::regconfig[]) AS cfg (c), "
        "LATERAL ts_debug(cfg.c, %(q)s) AS d WHERE d.lexemes IS NOT NULL",
        {"q": query, "cfgs": query_configs(query)},
    ).fetchone()
    tokens = [m for m in calls if m.startswith("jw_fold ") and m != f"jw_fold {query}"]
    return len(tokens), int(row[0]) if row else 0


def test_each_token_is_folded_once(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        body = conn.execute("SELECT prosrc FROM pg_proc WHERE proname = 'jw_fold'").fetchone()
        assert body is not None and body[0].strip().startswith("SELECT translate(")
        expression = body[0].strip().removeprefix("SELECT")
        # the same folding, as a function the planner does not inline, that says each call
        conn.execute(
            "CREATE OR REPLACE FUNCTION jw_fold(text) RETURNS text LANGUAGE plpgsql IMMUTABLE "
            f"STRICT AS $$ BEGIN RAISE NOTICE 'jw_fold %', $1; RETURN {expression}; END $$"
        )
        for query in ("Você também não crê em Deus?", "What is it that Noah built?"):
            calls, tokens = _fold_calls(conn, TSQUERY_SQL, query)
            assert tokens > 3
            assert calls == tokens, query
            old_calls, _ = _fold_calls(conn, _old_sql(), query)
            assert old_calls > tokens  # what this test would have caught
