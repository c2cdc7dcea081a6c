"""``jw-mcp``: the toolkit's ingest and search over MCP (stdio).

Tools: ``set_chunker`` / ``get_chunker`` (the choice is per client
connection), ``ingest_*`` for every source kind (``chunker=None`` uses the
connection's choice; ``source_id`` names the source and ``replace=True``
replaces one stored from another file or URL, except for JWPUB and backups,
whose ids come from their content), ``search`` (filtered by language or
source), ``list_sources``, ``get_chunk`` (a hit's id with its neighbours),
``delete_source`` and ``stats``; the read-only tools refuse a store that does
not exist. Files are read only under the allowed roots (see
:mod:`jw_mcp.roots`); URLs must be http(s) and, unless the server was started
with ``--allow-private-urls``, on a public address. The store is ``$JW_STORE``, else
``~/.jw-agent-toolkit/store.sqlite``, opened once and shared by every call;
the embedder ``$JW_EMBEDDER``, else ``use``. Library errors come back as tool
errors carrying their one-line message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

import jw_rag.ingest as ingest
from jw_mcp import sessions
from jw_mcp._server import OneLineErrorServer
from jw_mcp.addresses import refuse_private_host
from jw_mcp.holder import StoreHolder
from jw_mcp.params import (
    READ,
    ChunkerChoice,
    ChunkerName,
    ChunkerOptions,
    ChunkId,
    ExpandParam,
    FilePath,
    K,
    LanguageChoice,
    LanguageFilter,
    Limit,
    ModeParam,
    Neighbours,
    Offset,
    Query,
    Replace,
    SourceFilter,
    SourceId,
    SourceName,
    UrlOrPath,
    annotations,
)
from jw_mcp.roots import allowed_roots, confined_path, confined_source
from jw_rag.chunk_context import chunk_with_neighbours
from jw_rag.defaults import DEFAULT_EXPANSION, DEFAULT_K, DEFAULT_SEARCH_MODE
from jw_rag.errors import ConfigError, JwRagError
from jw_rag.ingest import IngestResult, checking_urls
from jw_rag.model import Chunk
from jw_rag.retrieve import retrieve
from jw_rag.source_list import list_sources as source_page

__all__ = ["Setup", "build_server", "main"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Setup:
    """What every tool of one server shares: the store holder, the allowed roots, and
    whether URLs may point at private or loopback addresses."""

    holder: StoreHolder
    roots: tuple[Path, ...]
    allow_private_urls: bool = False


def _tool_errors(fn: F) -> F:
    """Library, option and file errors become a ToolError with the one-line message."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (JwRagError, ValueError, OSError) as exc:
            raise ToolError(" ".join(str(exc).split())) from None

    return wrapper  # type: ignore[return-value]


def _result(r: IngestResult) -> dict[str, Any]:
    return {
        "source_id": r.source_id,
        "chunks": r.chunks,
        "skipped": r.skipped,
        "chunker": r.chunker,
        "language": r.language,
    }


def _chunker(ctx: Context, chunker: str | None, options: dict[str, Any] | None = None) -> str:
    """The chunker spec an ingest uses: the one named (with ``options``), else
    the connection's choice (``options`` added to it)."""
    if chunker is not None:
        return sessions.valid_chunker(chunker, options)
    chosen = sessions.choice(sessions.connection_state(ctx))["chunker"]
    return sessions.valid_chunker(chosen, options) if options else chosen


def _chunk(c: Chunk) -> dict[str, Any]:
    return {"id": c.id, "source_id": c.source_id, "text": c.text}


def _hit(hit: Any, folded: list[str]) -> dict[str, Any]:
    """One delivered hit, shaped as ``jw rag search --json`` shapes it: ``expanded``
    holds every chunk delivered for the hit in reading order (``is_hit`` marks
    the hit's own), ``folded`` the ids of store hits delivered inside it."""
    return {
        "rank": hit.rank,
        "score": hit.score,
        **_chunk(hit.chunk),
        "metadata": dict(hit.chunk.metadata),
        "expanded": [
            {"id": c.id, "is_hit": c.id == hit.chunk.id, "text": c.text} for c in hit.expanded
        ],
        "folded": folded,
    }


def _single_source_tool(
    function_name: str, doc: str, setup: Setup
) -> Callable[..., dict[str, Any]]:
    """A tool for a file or URL that is one source."""
    function = getattr(ingest, function_name)

    @_tool_errors
    def tool(
        url_or_path: UrlOrPath,
        ctx: Context,
        chunker: ChunkerChoice = None,
        language: LanguageChoice = None,
        source_id: SourceId = None,
        replace: Replace = False,
        chunker_options: ChunkerOptions = None,
    ) -> dict[str, Any]:
        source = confined_source(url_or_path, setup.roots)
        guard = nullcontext() if setup.allow_private_urls else checking_urls(refuse_private_host)
        with guard:  # every hop of a fetch, redirects included
            result = function(
                setup.holder.get(),
                source,
                chunker=_chunker(ctx, chunker, chunker_options),
                language=language,
                source_id=source_id,
                replace=replace,
            )
        return _result(result)

    tool.__doc__ = doc
    return tool


def _many_sources_tool(
    function_name: str, doc: str, setup: Setup
) -> Callable[..., list[dict[str, Any]]]:
    """A tool for a file of many sources; their ids come from the content
    (JWPUB, backup) or, for an EPUB, from ``source_id`` followed by each
    chapter's file."""
    function = getattr(ingest, function_name)

    @_tool_errors
    def tool(
        path: FilePath,
        ctx: Context,
        chunker: ChunkerChoice = None,
        language: LanguageChoice = None,
        source_id: SourceId = None,
        replace: Replace = False,
        chunker_options: ChunkerOptions = None,
    ) -> list[dict[str, Any]]:
        named: dict[str, Any] = {}
        if function_name == "ingest_epub":
            named = {"source_id": source_id, "replace": replace}
        elif source_id is not None or replace:
            raise ConfigError(
                f"{function_name} takes no source_id or replace: its source ids come "
                "from the file's content"
            )
        file = str(confined_path(path, setup.roots))
        chosen = _chunker(ctx, chunker, chunker_options)
        results = function(setup.holder.get(), file, chunker=chosen, language=language, **named)
        return [_result(r) for r in results]

    tool.__doc__ = doc
    return tool


#: Tools for one source; the first two also take http(s) URLs (open world).
_SINGLE = {
    "ingest_article": "Parse, chunk and store one HTML article (file path or URL).",
    "ingest_bible_chapter": "Store one Bible chapter page (file path or URL) verse by verse.",
    "ingest_pdf": "Parse, chunk and store a PDF file.",
    "ingest_markdown": "Parse, chunk and store a Markdown file.",
    "ingest_text": "Parse, chunk and store a plain UTF-8 text file.",
}
_MANY = {
    "ingest_epub": "Parse, chunk and store every chapter of an EPUB.",
    "ingest_jwpub": "Parse, chunk and store every document of a .jwpub publication.",
    "ingest_jw_library_backup": "Store every note of a .jwlibrary backup.",
}
_WEB = {"ingest_article", "ingest_bible_chapter"}
_INGEST_DOC = (
    " Re-ingesting a source replaces its chunks (unchanged content is skipped);"
    " files must be under the server's allowed roots."
)


def _add_chunker_tools(server: MCPServer) -> None:
    @server.tool(annotations=annotations(read_only=False))
    @_tool_errors
    def set_chunker(
        name: ChunkerName, ctx: Context, options: ChunkerOptions = None
    ) -> dict[str, str]:
        """Choose the chunker (and its options) this connection's ingest tools use
        (see get_chunker)."""
        return sessions.set_choice(sessions.connection_state(ctx), name, options)

    @server.tool(annotations=READ)
    @_tool_errors
    def get_chunker(ctx: Context) -> dict[str, Any]:
        """The chunker in use for this connection, where it came from, and the valid names."""
        from jw_rag.chunkers import available_chunkers

        out: dict[str, Any] = dict(sessions.choice(sessions.connection_state(ctx)))
        out["available"] = list(available_chunkers())
        return out


def _add_ingest_tools(server: MCPServer, setup: Setup) -> None:
    for name, doc in _SINGLE.items():
        hints = annotations(read_only=False, destructive=True, open_world=name in _WEB)
        tool = _single_source_tool(name, doc, setup)
        server.add_tool(tool, name=name, description=doc + _INGEST_DOC, annotations=hints)
    for name, doc in _MANY.items():
        if getattr(ingest, name, None) is not None:
            hints = annotations(read_only=False, destructive=True)
            tool = _many_sources_tool(name, doc, setup)
            server.add_tool(tool, name=name, description=doc + _INGEST_DOC, annotations=hints)


def _add_read_tools(server: MCPServer, setup: Setup) -> None:
    @server.tool(annotations=READ)
    @_tool_errors
    def search(
        query: Query,
        k: K = DEFAULT_K,
        mode: ModeParam = DEFAULT_SEARCH_MODE,
        expand: ExpandParam = DEFAULT_EXPANSION,
        language: LanguageFilter = None,
        source_id: SourceFilter = None,
    ) -> list[dict[str, Any]]:
        """Search the store; each hit carries its chunk id (for get_chunk), its source id
        and the context delivered around it."""
        named = {"language": language, "source_id": source_id}
        filters = {key: value for key, value in named.items() if value is not None}
        store = setup.holder.get(existing=True)
        hits = retrieve(store, query, k, mode=mode, expand=expand, filters=filters or None)
        return [_hit(h, hits.folded_into(h.rank)) for h in hits]

    @server.tool(annotations=READ)
    @_tool_errors
    def stats() -> dict[str, Any]:
        """Chunk and source counts by language and chunker, the embedder and the store path."""
        return setup.holder.get(existing=True).stats()


def _add_source_tools(server: MCPServer, setup: Setup) -> None:
    @server.tool(annotations=READ)
    @_tool_errors
    def list_sources(offset: Offset = 0, limit: Limit = 50) -> dict[str, Any]:
        """The stored sources ordered by id (id, title, language, chunker, chunk count,
        ingested at), a page at a time: pass next_offset as offset for the next page."""
        page = source_page(setup.holder.get(existing=True), offset=offset, limit=limit)
        end = offset + len(page.sources)
        return {
            "sources": [
                {
                    "source_id": s.source_id,
                    "title": s.title,
                    "language": s.language,
                    "chunker": s.chunker,
                    "chunks": s.chunks,
                    "ingested_at": s.ingested_at,
                }
                for s in page.sources
            ],
            "total": page.total,
            "next_offset": end if end < page.total else None,
        }

    @server.tool(annotations=READ)
    @_tool_errors
    def get_chunk(
        chunk_id: ChunkId, before: Neighbours = 0, after: Neighbours = 0
    ) -> dict[str, Any]:
        """One chunk by id (as search returned it) with up to `before` and `after`
        neighbouring chunks of its source, in reading order."""
        found = chunk_with_neighbours(
            setup.holder.get(existing=True), chunk_id, before=before, after=after
        )
        return {
            **_chunk(found.chunk),
            "metadata": dict(found.chunk.metadata),
            "before": [_chunk(c) for c in found.before],
            "after": [_chunk(c) for c in found.after],
        }

    @server.tool(annotations=annotations(read_only=False, destructive=True))
    @_tool_errors
    def delete_source(source_id: SourceName) -> dict[str, Any]:
        """Remove a source and all its chunks from the store (list_sources shows the ids)."""
        store = setup.holder.get(existing=True)
        if store.get_source(source_id) is None:  # type: ignore[attr-defined]
            raise ConfigError(f"no source {source_id!r} in the store: list_sources shows the ids")
        return {"source_id": source_id, "deleted_chunks": store.delete_source(source_id)}


def build_server(
    roots: Sequence[str] = (),
    holder: StoreHolder | None = None,
    *,
    allow_private_urls: bool = False,
) -> MCPServer:
    """The server with every tool registered; files are read only under ``roots``
    (see :func:`jw_mcp.roots.allowed_roots`), URLs on private or loopback addresses
    are refused unless ``allow_private_urls``, and no store is opened until a tool runs."""
    setup = Setup(holder or StoreHolder(), allowed_roots(roots), allow_private_urls)
    server = OneLineErrorServer("jw-agent-toolkit", instructions=__doc__)
    _add_chunker_tools(server)
    _add_ingest_tools(server, setup)
    _add_read_tools(server, setup)
    _add_source_tools(server, setup)
    return server


def main(argv: Sequence[str] | None = None) -> None:
    """Serve over stdio (see ``jw-mcp --help``)."""
    from jw_mcp.command import parse_args

    args = parse_args(argv)
    build_server(args.root, allow_private_urls=args.allow_private_urls).run()
