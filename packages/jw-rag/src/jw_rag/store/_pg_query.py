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


#: A CTE ``q(tsq)``: the OR of every lexeme the query yields under each of
#: ``%(cfgs)s`` (raw and accent-folded) plus its folded unstemmed words. Each
#: lexeme is quoted as a tsquery literal, so operators or quotes in user text
#: are only characters. ``tsq`` is NULL when the query has no words.
TSQUERY_SQL = """
q AS (
  SELECT string_agg(
           '''' || replace(replace(l.lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | '
         )::tsquery AS tsq
  FROM (
    SELECT DISTINCT t.lexeme
    FROM unnest(%(cfgs)s::regconfig[]) AS cfg (c),
         LATERAL unnest(
           to_tsvector(cfg.c, %(q)s) || to_tsvector(cfg.c, jw_fold(%(q)s))
           || to_tsvector('simple'::regconfig, jw_fold(%(q)s))
         ) AS t
  ) AS l
)
"""


def vector_literal(vector: npt.NDArray[np.float32]) -> str:
    """The pgvector text form of ``vector`` (float32 values round-trip exactly)."""
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).tolist())) + "]"
