"""``jw-mcp``: the toolkit's ingest and search over MCP (stdio).

Tools: ``set_chunker`` / ``get_chunker`` (the choice is per client
connection), ``ingest_*`` for every source kind (``chunker=None`` uses the
connection's choice; ``source_id`` names the source and ``replace=True``
replaces one stored from another file or URL, except for JWPUB and backups,
whose ids come from their content), ``search`` (filtered by language or
source), ``list_sources``, ``get_chunk`` (a hit's id with its neighbours),
``delete_source`` and ``stats``; the read-only tools refuse a store that does
not exist. Files are read only under the roots the server was started with
(``--root``; without one, no file is read: see :mod:`jw_mcp.roots`) and, when
the client offers roots, under one of those. URLs must be http(s) and, unless
the server was started with ``--allow-private-urls``, on a public address,
and are fetched under a size cap and one deadline (``--fetch-max-bytes``,
``--fetch-timeout``). Chunker options that name a file, a folder or a model
(``markers_path``, ``cache_dir``, ``embedder``) are server settings, refused
from agents. Each call runs
its blocking work on a bounded pool under a deadline (``--call-timeout`` for
ingests and deletes, ``--read-timeout`` for the rest; see
:mod:`jw_mcp.workers`): a call past it is a tool error and leaves the store
unchanged. Ingests send progress when the call carries a progress token. The
store is ``$JW_STORE``, else ``~/.jw-agent-toolkit/store.sqlite``, opened once
and shared by every call; the embedder ``$JW_EMBEDDER``, else ``use``. Library
errors come back as tool errors carrying their one-line message.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from jw_mcp import sessions, workers
from jw_mcp._server import OneLineErrorServer
from jw_mcp.calls import Setup, run_call, tool_errors
from jw_mcp.holder import StoreHolder
from jw_mcp.ingest_tools import add_ingest_tools
from jw_mcp.options import ServerOptions
from jw_mcp.params import (
    READ,
    ChunkerName,
    ChunkerOptions,
    ChunkId,
    ExpandParam,
    K,
    LanguageFilter,
    Limit,
    ModeParam,
    Neighbours,
    Offset,
    Query,
    SourceFilter,
    SourceName,
    annotations,
)
from jw_mcp.roots import allowed_roots
from jw_rag.chunk_context import chunk_with_neighbours
from jw_rag.defaults import DEFAULT_EXPANSION, DEFAULT_K, DEFAULT_SEARCH_MODE
from jw_rag.errors import ConfigError
from jw_rag.hits import hit_records, para_ids
from jw_rag.model import Chunk
from jw_rag.retrieve import retrieve, unknown_sources
from jw_rag.source_list import list_sources as source_page
from jw_rag.store import check_search

__all__ = ["Setup", "build_server", "main"]


def _chunk(c: Chunk) -> dict[str, Any]:
    return {"id": c.id, "source_id": c.source_id, "text": c.text}


def compact_result(value: Any) -> CallToolResult:
    """``value`` as one compact JSON text, said once: no indentation, no copy
    as structured content (a client model would read the hits twice)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return CallToolResult(content=[TextContent(type="text", text=text)])


def _add_chunker_tools(server: MCPServer) -> None:
    @server.tool(annotations=annotations(read_only=False))
    @tool_errors
    async def set_chunker(
        name: ChunkerName, ctx: Context, options: ChunkerOptions = None
    ) -> dict[str, str]:
        """Choose the chunker (and its options) this connection's ingest tools use
        (see get_chunker)."""
        return sessions.set_choice(sessions.connection_state(ctx), name, options)

    @server.tool(annotations=READ)
    @tool_errors
    async def get_chunker(ctx: Context) -> dict[str, Any]:
        """The chunker in use for this connection, where it came from, and the valid names."""
        from jw_rag.chunkers import available_chunkers

        out: dict[str, Any] = dict(sessions.choice(sessions.connection_state(ctx)))
        out["available"] = list(available_chunkers())
        return out


def _add_read_tools(server: MCPServer, setup: Setup) -> None:
    @server.tool(annotations=READ)
    @tool_errors
    async def search(
        query: Query,
        k: K = DEFAULT_K,
        mode: ModeParam = DEFAULT_SEARCH_MODE,
        expand: ExpandParam = DEFAULT_EXPANSION,
        language: LanguageFilter = None,
        source_id: SourceFilter = None,
    ) -> CallToolResult:
        """Search the store. Each hit, best first: score, id (for get_chunk), source_id,
        text (the hit with its context, in reading order), hit ([start, end] of the hit
        in text, when text holds more), heading (title > headings), pages, para_ids
        (strings; "#N" is a position), folded (ids of other hits text already holds)."""
        named = {"language": language, "source_id": source_id}
        filters = {key: value for key, value in named.items() if value is not None}
        check_search(query, k, mode, filters)  # refused here, not after a wait for a worker

        def work() -> list[dict[str, Any]]:
            store = setup.holder.get(existing=True, write=False)
            hits = retrieve(store, query, k, mode=mode, expand=expand, filters=filters or None)
            if not hits and source_id is not None and unknown_sources(store, filters):
                raise ConfigError(
                    f"no source {source_id!r} in the store: list_sources shows the ids"
                )
            return hit_records(hits)

        found = await run_call(setup, None, "search", work, writes=False)
        return compact_result(found)

    @server.tool(annotations=READ)
    @tool_errors
    async def stats() -> dict[str, Any]:
        """Chunk and source counts by language and chunker, the embedder and the store path."""
        work = lambda: setup.holder.get(existing=True, write=False).stats()  # noqa: E731
        return await run_call(setup, None, "stats", work, writes=False)


def _source_page(setup: Setup, offset: int, limit: int) -> dict[str, Any]:
    page = source_page(setup.holder.get(existing=True, write=False), offset=offset, limit=limit)
    end = offset + len(page.sources)
    return {
        "sources": [
            {
                "source_id": s.source_id,
                "title": s.title,
                # the one language its chunks record, or the list when they are several
                "language": s.language if len(s.languages) < 2 else list(s.languages),
                "chunker": s.chunker,
                "chunks": s.chunks,
                "ingested_at": s.ingested_at,
            }
            for s in page.sources
        ],
        "total": page.total,
        "next_offset": end if end < page.total else None,
    }


def _found_chunk(setup: Setup, chunk_id: str, before: int, after: int) -> dict[str, Any]:
    found = chunk_with_neighbours(
        setup.holder.get(existing=True, write=False), chunk_id, before=before, after=after
    )
    meta = dict(found.chunk.metadata)
    if "para_ids" in meta:  # strings, as in search hits (jw_rag.hits.para_ids)
        meta["para_ids"] = para_ids(meta["para_ids"])
    return {
        **_chunk(found.chunk),
        "metadata": meta,
        "before": [_chunk(c) for c in found.before],
        "after": [_chunk(c) for c in found.after],
    }


def _deleted(setup: Setup, source_id: str) -> dict[str, Any]:
    store = setup.holder.get(existing=True)
    if not store.matching_sources(source_id):
        raise ConfigError(f"no source {source_id!r} in the store: list_sources shows the ids")
    workers.begin_write()
    return {"source_id": source_id, "deleted_chunks": store.delete_source(source_id)}


def _add_source_tools(server: MCPServer, setup: Setup) -> None:
    @server.tool(annotations=READ)
    @tool_errors
    async def list_sources(offset: Offset = 0, limit: Limit = 50) -> dict[str, Any]:
        """The stored sources ordered by id (id, title, language or list of them,
        chunker, chunk count, ingested at), a page at a time: pass next_offset as
        offset for the next page."""
        work = lambda: _source_page(setup, offset, limit)  # noqa: E731
        return await run_call(setup, None, "list_sources", work, writes=False)

    @server.tool(annotations=READ)
    @tool_errors
    async def get_chunk(
        chunk_id: ChunkId, before: Neighbours = 0, after: Neighbours = 0
    ) -> dict[str, Any]:
        """One chunk by id (as search returned it) with up to `before` and `after`
        neighbouring chunks of its source, in reading order."""
        work = lambda: _found_chunk(setup, chunk_id, before, after)  # noqa: E731
        return await run_call(setup, None, f"get_chunk {chunk_id}", work, writes=False)

    @server.tool(annotations=annotations(read_only=False, destructive=True))
    @tool_errors
    async def delete_source(source_id: SourceName) -> dict[str, Any]:
        """Remove a source and all its chunks from the store (list_sources shows the ids)."""
        work = lambda: _deleted(setup, source_id)  # noqa: E731
        return await run_call(setup, None, f"delete_source {source_id}", work, writes=True)


def _server(setup: Setup) -> MCPServer:
    server = OneLineErrorServer("jw-agent-toolkit", instructions=__doc__)
    _add_chunker_tools(server)
    add_ingest_tools(server, setup)
    _add_read_tools(server, setup)
    _add_source_tools(server, setup)
    return server


def build_server(
    roots: Sequence[str] = (),
    holder: StoreHolder | None = None,
    *,
    allow_private_urls: bool = False,
    options: ServerOptions | None = None,
) -> MCPServer:
    """The server with every tool registered, started with ``options`` (else the
    defaults, files read only under ``roots`` -- see :func:`jw_mcp.roots.allowed_roots`;
    none without them -- and URLs on non-public addresses refused unless
    ``allow_private_urls``); no store is opened until a tool runs."""
    if options is None:
        options = ServerOptions(allowed_roots(roots), allow_private_urls=allow_private_urls)
    return _server(Setup.start(options, holder))


def main(argv: Sequence[str] | None = None) -> None:
    """Serve over stdio (see ``jw-mcp --help``) until the client goes (its end of
    stdin closes). Then calls still waiting for a worker are dropped, the running
    ones are given up (:meth:`Setup.close`: a write under way is finished), and the
    process exits within :data:`~jw_mcp.calls.CLOSE_GRACE` seconds, even when a
    given-up call is still blocked (it has written nothing)."""
    from jw_mcp.command import parse_args

    setup = Setup.start(parse_args(argv))
    try:
        _server(setup).run()
    finally:
        if not setup.close():
            failed = sys.exc_info()[0] is not None
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1 if failed else 0)  # blocked threads would keep the interpreter alive
