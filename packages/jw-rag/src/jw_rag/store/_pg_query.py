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


#: CTEs ending in ``q(tsq)``: the OR of the query's lexemes, each quoted as a
#: tsquery literal (operators or quotes in user text are only characters);
#: ``tsq`` is NULL when the query has no words. The lexemes are those each of
#: ``%(cfgs)s`` gives the query (raw and accent-folded: these configurations
#: drop their language's stop words) plus its folded unstemmed words, less the
#: configuration's stop words (a lexeme is kept when one configuration keeps
#: it). A stop word's folded form is left out too (``não`` is a Portuguese stop
#: word, its folded ``nao`` is not), and so is a word whose folded form is a
#: stop word (``é`` -> ``e``: PostgreSQL's Portuguese list lacks ``é``, the
#: most frequent verb; ``pôr`` -> ``por`` goes as well). Unstemmed stop
#: words match nearly every row (``the``, ``de``, ``que``), and PostgreSQL's
#: ranking has no inverse document frequency to weigh them down: with them, a
#: full-text search ranked every chunk of a large store, chunks dense with stop
#: words first. A query of stop words alone ("to be or not to be") keeps them
#: all: it has nothing else to match. Each token is folded once and its folded
#: form stemmed once (``f`` and ``s``; ``OFFSET 0`` keeps the planner from
#: copying the expression back into each of its uses).
TSQUERY_SQL = """
tokens AS (
  SELECT cfg.c, d.lexemes, f.folded, s.folded_stems,
         d.lexemes = '{}' OR COALESCE(s.folded_stems = ''::tsvector, false) AS stop
  FROM unnest(%(cfgs)s::regconfig[]) AS cfg (c),
       LATERAL ts_debug(cfg.c, %(q)s) AS d,
       LATERAL (SELECT jw_fold(d.token) AS folded OFFSET 0) AS f,
       LATERAL (SELECT CASE WHEN d.token <> f.folded THEN to_tsvector(cfg.c, f.folded) END
                  AS folded_stems OFFSET 0) AS s
  WHERE d.lexemes IS NOT NULL
),
stop_stems AS (
  SELECT DISTINCT k.c, s.lexeme
  FROM tokens AS k, LATERAL unnest(k.lexemes || tsvector_to_array(k.folded_stems)) AS s (lexeme)
  WHERE k.stop
),
words AS (
  SELECT t.lexeme, NOT EXISTS (
           SELECT FROM stop_stems AS x WHERE x.c = cfg.c AND x.lexeme = t.lexeme
         ) AS content
  FROM unnest(%(cfgs)s::regconfig[]) AS cfg (c),
       LATERAL unnest(to_tsvector(cfg.c, %(q)s) || to_tsvector(cfg.c, jw_fold(%(q)s))) AS t
  UNION
  SELECT s.lexeme, NOT k.stop AS content
  FROM tokens AS k, LATERAL unnest(to_tsvector('simple'::regconfig, k.folded)) AS s
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
