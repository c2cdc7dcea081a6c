"""The default retrieval pipeline, in one place.

``jw_rag.retrieve.retrieve``, ``jw rag search``, the MCP ``search`` tool and
``jw eval chunker-bench`` all take their defaults from here, so the numbers the
benchmark reports describe the pipeline users get:

- search mode ``hybrid`` (reciprocal rank fusion of dense and BM25 rankings);
- delivery ``segment`` (the best contiguous run of chunks around each hit,
  see :mod:`jw_rag.segments`);
- window units of up to 2,000 characters indexed beside the chunks
  (:mod:`jw_rag.windows`);
- at most 4,000 tokens of delivered context and 10 hits.

The vocabularies (search modes, expansions) are defined here once; the CLI
and the MCP server list them as their choices.
"""

from __future__ import annotations

from typing import Literal, get_args

from jw_rag.windows import DEFAULT_WINDOW_CHARS

__all__ = [
    "DEFAULT_EXPANSION",
    "DEFAULT_K",
    "DEFAULT_MAX_CONTEXT_TOKENS",
    "DEFAULT_MAX_PARENTS",
    "DEFAULT_SEARCH_MODE",
    "DEFAULT_WINDOW_CHARS",
    "EXPANSIONS",
    "SEARCH_MODES",
    "Expansion",
    "SearchMode",
]

SearchMode = Literal["dense", "bm25", "hybrid"]
SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)

Expansion = Literal["segment", "relevant", "chain", "neighbors", "parent", "none"]
EXPANSIONS: tuple[Expansion, ...] = get_args(Expansion)

DEFAULT_SEARCH_MODE: SearchMode = "hybrid"
DEFAULT_EXPANSION: Expansion = "segment"
DEFAULT_K = 10
DEFAULT_MAX_CONTEXT_TOKENS = 4000
DEFAULT_MAX_PARENTS = 5
