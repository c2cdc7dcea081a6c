"""SQL for the PostgreSQL store's searches: filters as a parameterised
condition, the full-text query built from the query's own lexemes, and the
pgvector text form of a vector."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from jw_core import SUPPORTED_LANGUAGES, detect_language
from jw_rag.store._filters import SqlFilter, build_filter
from jw_rag.store._pg_schema import ts_config

__all__ = ["TSQUERY_SQL", "pg_filters", "query_configs", "vector_literal"]


def _pg_clause(key: str, values: list[Any], names: Iterator[str]) -> tuple[str, list[Any]]:
    if key == "page":  # JSONB containment, served by the jsonb_path_ops index
        named = [(next(names), f"[{int(v)}]") for v in values]
        sql = " OR ".join(f"c.metadata -> 'pages' @> %({n})s::jsonb" for n, _ in named)
        return f"({sql})", named
    name = next(names)
    return f"c.{key} = ANY(%({name})s)", [(name, values)]


def pg_filters(filters: Mapping[str, Any] | None) -> SqlFilter:
    """``filters`` (the same keys and values as every store) as a condition on
    alias ``c``; ``params`` holds ``(name, value)`` pairs for its ``%(name)s``
    placeholders."""
    return build_filter(filters, _pg_clause, "TRUE")


def query_configs(query: str) -> list[str]:
    """Text search configurations a query is analysed with: the detected
    language's, or all three when the language is unclear."""
    lang = detect_language(query)
    languages = (lang,) if lang in SUPPORTED_LANGUAGES else SUPPORTED_LANGUAGES
    return [ts_config(x) for x in languages]


#: Three CTEs ending in ``q(tsq)``: the OR of the query's lexemes, each quoted
#: as a tsquery literal (operators or quotes in user text are only
#: characters); ``tsq`` is NULL when the query has no words. The lexemes are
#: those each of ``%(cfgs)s`` gives the query (raw and accent-folded: these
#: configurations drop their language's stop words) plus the folded unstemmed
#: words that are not stop words in one of them. Unstemmed stop words match
#: nearly every row (``the``, ``de``, ``que``), and PostgreSQL's ranking has
#: no inverse document frequency to weigh them down: with them, a full-text
#: search ranked every chunk of a large store, chunks dense with stop words
#: first. A query of stop words alone ("to be or not to be") keeps them all:
#: it has nothing else to match.
TSQUERY_SQL = """
words AS (
  SELECT t.lexeme, true AS content
  FROM unnest(%(cfgs)s::regconfig[]) AS cfg (c),
       LATERAL unnest(to_tsvector(cfg.c, %(q)s) || to_tsvector(cfg.c, jw_fold(%(q)s))) AS t
  UNION
  SELECT s.lexeme, d.lexemes <> '{}' AS content
  FROM unnest(%(cfgs)s::regconfig[]) AS cfg (c),
       LATERAL ts_debug(cfg.c, jw_fold(%(q)s)) AS d,
       LATERAL unnest(to_tsvector('simple'::regconfig, d.token)) AS s
  WHERE d.lexemes IS NOT NULL
),
quoted AS (
  SELECT '''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''' AS literal, content
  FROM words
),
q AS (
  SELECT COALESCE(
           (SELECT string_agg(DISTINCT literal, ' | ') FROM quoted WHERE content),
           (SELECT string_agg(DISTINCT literal, ' | ') FROM quoted)
         )::tsquery AS tsq
)
"""


def vector_literal(vector: npt.NDArray[np.float32]) -> str:
    """The pgvector text form of ``vector`` (float32 values round-trip exactly)."""
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).tolist())) + "]"
