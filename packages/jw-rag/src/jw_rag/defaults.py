"""The default retrieval pipeline, in one place: :data:`DEFAULT_PIPELINE`.

Ingestion, ``jw_rag.retrieve.retrieve``, ``jw rag search``, the MCP ``search``
tool and ``jw eval chunker-bench`` all take their defaults from here, so the
numbers the benchmark reports describe the pipeline users get:

- the ``paragraph`` chunker, then retrieval units that fit the text
  (:mod:`jw_rag.units`: long chunks cut into ~500-character passages, runs of
  tiny ones grouped);
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

from dataclasses import dataclass, field
from typing import Literal, get_args

from jw_rag.errors import ConfigError
from jw_rag.units import DEFAULT_UNITS, UnitRules
from jw_rag.windows import DEFAULT_WINDOW_CHARS

__all__ = [
    "DEFAULT_CHUNKER",
    "DEFAULT_EMBEDDER",
    "DEFAULT_PIPELINE",
    "DEFAULT_EXPANSION",
    "DEFAULT_K",
    "DEFAULT_MAX_CONTEXT_TOKENS",
    "DEFAULT_MAX_PARENTS",
    "DEFAULT_SEARCH_MODE",
    "DEFAULT_WINDOW_CHARS",
    "EXPANSIONS",
    "SEARCH_MODES",
    "Expansion",
    "Pipeline",
    "SearchMode",
    "UnitRules",
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
DEFAULT_CHUNKER = "paragraph"
DEFAULT_EMBEDDER = "use"


@dataclass(frozen=True, slots=True)
class Pipeline:
    """Every default of the shipped pipeline, from chunking to delivery.

    Options of the CLI, the MCP server and the benchmark override fields of
    :data:`DEFAULT_PIPELINE` (``dataclasses.replace``); nothing else holds a
    default of its own."""

    chunker: str = DEFAULT_CHUNKER
    units: UnitRules = field(default=DEFAULT_UNITS)
    embedder: str = DEFAULT_EMBEDDER
    mode: SearchMode = DEFAULT_SEARCH_MODE
    expand: Expansion = DEFAULT_EXPANSION
    k: int = DEFAULT_K
    max_context_tokens: int | None = DEFAULT_MAX_CONTEXT_TOKENS
    max_parents: int = DEFAULT_MAX_PARENTS

    def __post_init__(self) -> None:
        if self.mode not in SEARCH_MODES:
            raise ConfigError(f"unknown search mode {self.mode!r}: use {', '.join(SEARCH_MODES)}")
        if self.expand not in EXPANSIONS:
            raise ConfigError(f"unknown expansion {self.expand!r}: use {', '.join(EXPANSIONS)}")
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ConfigError(f"k must be an integer >= 1, got {self.k!r}")
        tokens = self.max_context_tokens
        if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int)
                                   or tokens < 0):  # fmt: skip
            raise ConfigError(f"max_context_tokens must be an integer >= 0 or None, got {tokens!r}")
        if not isinstance(self.units, UnitRules):
            raise ConfigError(f"units must be a UnitRules, got {type(self.units).__name__}")

    @property
    def window_chars(self) -> int:
        """Longest window unit, in characters (0: none)."""
        return self.units.window_chars


#: The pipeline ``jw`` and the library use when nothing is chosen.
DEFAULT_PIPELINE = Pipeline()
