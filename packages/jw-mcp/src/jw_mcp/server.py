"""``jw-mcp``: the toolkit's ingest and search over MCP (stdio).

Tools: ``set_chunker`` / ``get_chunker`` (the choice is per client
connection), ``ingest_*`` for every source kind (``chunker=None`` uses the
connection's choice; ``source_id`` names the source and ``replace=True``
replaces one stored from another file or URL, except for JWPUB and backups,
whose ids come from their content), ``search`` and ``stats`` (both refuse a
store that does not exist). The store is ``$JW_STORE``,
else ``~/.jw-agent-toolkit/store.sqlite``; the embedder ``$JW_EMBEDDER``, else
``use``. Library errors come back as tool errors carrying their one-line
message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

import jw_rag.ingest as ingest
from jw_mcp import sessions
from jw_rag.config import default_store, existing_store
from jw_rag.defaults import (
    DEFAULT_EXPANSION,
    DEFAULT_K,
    DEFAULT_SEARCH_MODE,
    EXPANSIONS,
    SEARCH_MODES,
)
from jw_rag.errors import ConfigError, JwRagError
from jw_rag.ingest import IngestResult
from jw_rag.retrieve import retrieve
from jw_rag.store import Store, open_store

__all__ = ["build_server", "main"]

F = TypeVar("F", bound=Callable[..., Any])

_SEARCH_DOC = (
    "Search the store and deliver each hit with its context. "
    f"mode: {' | '.join(SEARCH_MODES)} (default {DEFAULT_SEARCH_MODE}); "
    f"expand: {' | '.join(EXPANSIONS)} (default {DEFAULT_EXPANSION}); k: hits delivered."
)


def _tool_errors(fn: F) -> F:
    """Library, option and file errors become a ToolError with the one-line message."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (JwRagError, ValueError, OSError) as exc:
            raise ToolError(" ".join(str(exc).split())) from None

    return wrapper  # type: ignore[return-value]


@contextmanager
def _store(*, existing: bool = False) -> Iterator[Store]:
    """The configured store; ``existing=True`` (read-only tools) refuses one that does not exist."""
    location = default_store()
    store = open_store(existing_store(location) if existing else location)
    try:
        yield store
    finally:
        store.close()


def _result(r: IngestResult) -> dict[str, Any]:
    return {
        "source_id": r.source_id,
        "chunks": r.chunks,
        "skipped": r.skipped,
        "chunker": r.chunker,
        "language": r.language,
    }


def _chunker(ctx: Context, chunker: str | None) -> str:
    if chunker is not None:
        return sessions.valid_chunker(chunker)
    return sessions.choice(sessions.connection_state(ctx))["chunker"]


def _hit(hit: Any) -> dict[str, Any]:
    return {
        "rank": hit.rank,
        "score": hit.score,
        "id": hit.chunk.id,
        "source_id": hit.chunk.source_id,
        "text": hit.chunk.text,
        "metadata": dict(hit.chunk.metadata),
        "expanded": [{"id": c.id, "text": c.text} for c in hit.expanded],
    }


def _single_source_tool(function_name: str, doc: str) -> Callable[..., dict[str, Any]]:
    """A tool for a file or URL that is one source."""
    function = getattr(ingest, function_name)

    @_tool_errors
    def tool(
        url_or_path: str,
        ctx: Context,
        chunker: str | None = None,
        language: str | None = None,
        source_id: str | None = None,
        replace: bool = False,
    ) -> dict[str, Any]:
        with _store() as store:
            result = function(
                store,
                url_or_path,
                chunker=_chunker(ctx, chunker),
                language=language,
                source_id=source_id,
                replace=replace,
            )
        return _result(result)

    tool.__doc__ = doc
    return tool


def _many_sources_tool(function_name: str, doc: str) -> Callable[..., list[dict[str, Any]]]:
    """A tool for a file of many sources; their ids come from the content
    (JWPUB, backup) or, for an EPUB, from ``source_id`` followed by each
    chapter's file."""
    function = getattr(ingest, function_name)

    @_tool_errors
    def tool(
        path: str,
        ctx: Context,
        chunker: str | None = None,
        language: str | None = None,
        source_id: str | None = None,
        replace: bool = False,
    ) -> list[dict[str, Any]]:
        named: dict[str, Any] = {}
        if function_name == "ingest_epub":
            named = {"source_id": source_id, "replace": replace}
        elif source_id is not None or replace:
            raise ConfigError(
                f"{function_name} takes no source_id or replace: its source ids come "
                "from the file's content"
            )
        with _store() as store:
            results = function(store, path, chunker=_chunker(ctx, chunker), language=language, **named)
        return [_result(r) for r in results]

    tool.__doc__ = doc
    return tool


_SINGLE = {
    "ingest_article": "Parse, chunk and store one HTML article (file path or URL).",
    "ingest_bible_chapter": "Store one Bible chapter page verse by verse.",
    "ingest_pdf": "Parse, chunk and store a PDF file.",
    "ingest_markdown": "Parse, chunk and store a Markdown file.",
    "ingest_text": "Parse, chunk and store a plain UTF-8 text file.",
}
_MANY = {
    "ingest_epub": "Parse, chunk and store every chapter of an EPUB.",
    "ingest_jwpub": "Parse, chunk and store every document of a .jwpub publication.",
    "ingest_jw_library_backup": "Store every note of a .jwlibrary backup.",
}


def _add_chunker_tools(server: MCPServer) -> None:
    @server.tool()
    @_tool_errors
    def set_chunker(name: str, ctx: Context) -> dict[str, str]:
        """Choose the chunker this connection's ingest tools use (see get_chunker)."""
        return sessions.set_choice(sessions.connection_state(ctx), name)

    @server.tool()
    @_tool_errors
    def get_chunker(ctx: Context) -> dict[str, Any]:
        """The chunker in use for this connection, where it came from, and the valid names."""
        from jw_rag.chunkers import available_chunkers

        out: dict[str, Any] = dict(sessions.choice(sessions.connection_state(ctx)))
        out["available"] = list(available_chunkers())
        return out


def _add_ingest_tools(server: MCPServer) -> None:
    for name, doc in _SINGLE.items():
        server.add_tool(_single_source_tool(name, doc), name=name, description=doc)
    for name, doc in _MANY.items():
        if getattr(ingest, name, None) is not None:
            server.add_tool(_many_sources_tool(name, doc), name=name, description=doc)


def _add_read_tools(server: MCPServer) -> None:
    @server.tool(description=_SEARCH_DOC)
    @_tool_errors
    def search(
        query: str,
        k: int = DEFAULT_K,
        mode: str = DEFAULT_SEARCH_MODE,
        expand: str = DEFAULT_EXPANSION,
    ) -> list[dict[str, Any]]:
        if mode not in SEARCH_MODES:
            raise ValueError(f"mode {mode!r} is not one of {', '.join(SEARCH_MODES)}")
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        with _store(existing=True) as store:
            hits = retrieve(store, query, k, mode=mode, expand=expand)  # type: ignore[arg-type]
        return [_hit(h) for h in hits]

    @server.tool()
    @_tool_errors
    def stats() -> dict[str, Any]:
        """Chunk and source counts by language and chunker, the embedder and the store path."""
        with _store(existing=True) as store:
            return store.stats()


def build_server() -> MCPServer:
    """The server with every tool registered (no store is opened until a tool runs)."""
    server = MCPServer("jw-agent-toolkit", instructions=__doc__)
    _add_chunker_tools(server)
    _add_ingest_tools(server)
    _add_read_tools(server)
    return server


def main() -> None:
    """Serve over stdio."""
    build_server().run()
