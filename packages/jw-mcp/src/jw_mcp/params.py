"""Tool parameter types: descriptions, closed vocabularies as enums, bounds, strict types.

Every vocabulary comes from the library's own list (search modes and
expansions from :mod:`jw_rag.defaults`, chunkers from the registry, languages
from :data:`jw_core.SUPPORTED_LANGUAGES`). ``strict=True`` refuses a string
where a number or a boolean is expected (``k="3"``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from jw_core import SUPPORTED_LANGUAGES
from jw_rag.chunkers import available_chunkers
from jw_rag.defaults import DEFAULT_EXPANSION, DEFAULT_SEARCH_MODE, Expansion, SearchMode
from jw_rag.ingest.kinds import kind_names
from jw_rag.limits import MAX_QUERY_CHARS

__all__ = [
    "READ",
    "ChunkId",
    "ChunkerChoice",
    "ChunkerName",
    "ChunkerOptions",
    "ExpandParam",
    "K",
    "KindParam",
    "LanguageChoice",
    "LanguageFilter",
    "Limit",
    "ModeParam",
    "Neighbours",
    "Offset",
    "Query",
    "Replace",
    "SourceFilter",
    "SourceId",
    "SourceName",
    "SourceParam",
    "annotations",
]

MAX_K = 100

_Chunkers: Any = Literal[available_chunkers()]  # type: ignore[valid-type]
_Languages: Any = Literal[SUPPORTED_LANGUAGES]  # type: ignore[valid-type]

ChunkerName = Annotated[_Chunkers, Field(description="Chunker name, e.g. 'paragraph'.")]
ChunkerChoice = Annotated[
    _Chunkers | None,
    Field(description="Chunker for this ingest; omit to use the connection's (get_chunker)."),
]
ChunkerOptions = Annotated[
    dict[str, str | int | float | bool] | None,
    Field(
        description="Chunker options, e.g. {'target_chars': 800} for semantic, "
        "{'max_chars': 600} for paragraph; omit for the defaults.",
    ),
]
LanguageChoice = Annotated[
    _Languages | None,
    Field(description="Language code of the source; omit to detect it from the text."),
]
LanguageFilter = Annotated[
    _Languages | None, Field(description="Only hits in this language; omit for every language.")
]
SourceId = Annotated[
    str | None,
    Field(
        description="Id to store the source under (e.g. 'alma'); omit to derive it from the "
        "file or URL name.",
        min_length=1,
    ),
]
SourceName = Annotated[
    str, Field(description="A stored source id, as list_sources shows it.", min_length=1)
]
SourceFilter = Annotated[
    str | None,
    Field(description="Only hits from this source id (as list_sources shows).", min_length=1),
]
Replace = Annotated[
    bool,
    Field(
        description="true replaces a stored source of the same id that came from another "
        "file or URL.",
        strict=True,
    ),
]
SourceParam = Annotated[
    str,
    Field(
        description="A file or folder path under the server's roots (relative to the first "
        "root), e.g. 'articles/alma.html' or 'articles', or an http(s) URL (kinds article, "
        "bible_chapter, pdf, markdown, text).",
        min_length=1,
    ),
]
KindParam = Annotated[
    Literal[kind_names(public=True)],  # type: ignore[valid-type]
    Field(description="What the source is."),
]
Query = Annotated[
    str,
    Field(
        description=f"What to look for, in plain words (at most {MAX_QUERY_CHARS:,} characters).",
        min_length=1,
    ),
]
K = Annotated[
    int, Field(description=f"Hits to deliver, 1 to {MAX_K}.", ge=1, le=MAX_K, strict=True)
]
ModeParam = Annotated[
    SearchMode,
    Field(
        description=f"Ranking: dense (embeddings), bm25 (words) or hybrid (both fused); "
        f"default {DEFAULT_SEARCH_MODE}."
    ),
]
ExpandParam = Annotated[
    Expansion,
    Field(
        description="Context delivered around each hit: segment (best run of neighbours), "
        "relevant, chain (marker-linked), neighbors, parent, or none; "
        f"default {DEFAULT_EXPANSION}."
    ),
]
ChunkId = Annotated[
    str, Field(description="A chunk id as search or get_chunk returned it.", min_length=1)
]
Neighbours = Annotated[
    int, Field(description="Chunks to include on this side, 0 to 20.", ge=0, le=20, strict=True)
]
Offset = Annotated[
    int, Field(description="Sources to skip (for the next page).", ge=0, strict=True)
]
Limit = Annotated[int, Field(description="Sources per page, 1 to 500.", ge=1, le=500, strict=True)]


def annotations(
    *, read_only: bool, destructive: bool = False, idempotent: bool = True, open_world: bool = False
) -> ToolAnnotations:
    """MCP tool hints: whether the tool changes the store, may remove data, is safe to
    repeat, and reaches outside the server (the web)."""
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


READ = annotations(read_only=True)
