"""The ``ingest_*`` tools: one per source kind, each the library's ingest function.

A file path is confined to the server's roots and the client's
(:mod:`jw_mcp.roots`, :mod:`jw_mcp.client_roots`), checked when the call
arrives and again when the file is opened; a URL (articles, Bible chapters,
PDF, Markdown and text) is fetched under the server's limits, connecting only
to addresses that passed its check. The tools for EPUB, JWPUB and backups
read files only. The work runs on the write pool under ``--call-timeout``
(:mod:`jw_mcp.workers`), reporting progress as it reads and embeds.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

import jw_rag.ingest as ingest
from jw_mcp import sessions, workers
from jw_mcp.calls import Setup, run_call, tool_errors
from jw_mcp.client_roots import client_roots
from jw_mcp.params import (
    ChunkerChoice,
    ChunkerOptions,
    FilePath,
    LanguageChoice,
    Replace,
    SourceId,
    UrlOrPath,
    annotations,
)
from jw_mcp.roots import confined_file, confined_source, is_url
from jw_rag.errors import ConfigError
from jw_rag.ingest import IngestResult

__all__ = ["add_ingest_tools", "chosen_chunker"]

Tool = Callable[..., Coroutine[Any, Any, Any]]

#: Tools for one source, each a file path or an http(s) URL (open world).
_SINGLE = {
    "ingest_article": "Parse, chunk and store one HTML article (file path or URL).",
    "ingest_bible_chapter": "Store one Bible chapter page (file path or URL) verse by verse.",
    "ingest_pdf": "Parse, chunk and store a PDF (file path or URL).",
    "ingest_markdown": "Parse, chunk and store a Markdown document (file path or URL).",
    "ingest_text": "Parse, chunk and store a plain UTF-8 text (file path or URL).",
}
_MANY = {
    "ingest_epub": "Parse, chunk and store every chapter of an EPUB.",
    "ingest_jwpub": "Parse, chunk and store every document of a .jwpub publication.",
    "ingest_jw_library_backup": "Store every note of a .jwlibrary backup.",
}
_INGEST_DOC = (
    " Re-ingesting a source replaces its chunks (unchanged content is skipped);"
    " files must be under the server's allowed roots (none unless it was started with --root)"
    " and the client's roots, if it offers any. Sends progress while it reads and embeds when"
    " the call carries a progress token."
)


def _result(r: IngestResult) -> dict[str, Any]:
    return {
        "source_id": r.source_id,
        "chunks": r.chunks,
        "skipped": r.skipped,
        "chunker": r.chunker,
        "language": r.language,
    }


def chosen_chunker(ctx: Context, chunker: str | None, options: dict[str, Any] | None) -> str:
    """The chunker spec an ingest uses: the one named (with ``options``), else
    the connection's choice (``options`` added to it); options naming something
    on the server's disk are refused (:func:`jw_mcp.sessions.agent_chunker`)."""
    chosen = sessions.choice(sessions.connection_state(ctx))["chunker"]
    if chunker is None and not options:
        return chosen
    return sessions.agent_chunker(chunker, options, chosen)


def _single_source_tool(function_name: str, setup: Setup) -> Tool:
    """A tool for a file or URL that is one source."""
    function = getattr(ingest, function_name)

    @tool_errors
    async def tool(
        url_or_path: UrlOrPath,
        ctx: Context,
        chunker: ChunkerChoice = None,
        language: LanguageChoice = None,
        source_id: SourceId = None,
        replace: Replace = False,
        chunker_options: ChunkerOptions = None,
    ) -> dict[str, Any]:
        offered = None if is_url(url_or_path) else await client_roots(ctx)
        source = confined_source(url_or_path, setup.roots, offered)
        spec = chosen_chunker(ctx, chunker, chunker_options)

        def work() -> dict[str, Any]:
            workers.report(0, None, f"reading {source}")
            with setup.reading(offered):
                store = setup.holder.get()
                named = {"language": language, "source_id": source_id, "replace": replace}
                return _result(function(store, source, chunker=spec, **named))

        return await run_call(setup, ctx, f"{function_name} {url_or_path}", work, writes=True)

    return tool


def _many_sources_tool(function_name: str, setup: Setup) -> Tool:
    """A tool for a file of many sources; their ids come from the content
    (JWPUB, backup) or, for an EPUB, from ``source_id`` followed by each
    chapter's file."""
    function = getattr(ingest, function_name)

    @tool_errors
    async def tool(
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
        offered = None if is_url(path) else await client_roots(ctx)
        file = str(confined_file(function_name, path, setup.roots, offered))
        spec = chosen_chunker(ctx, chunker, chunker_options)

        def work() -> list[dict[str, Any]]:
            workers.report(0, None, f"reading {file}")
            with setup.reading(offered):
                store = setup.holder.get()
                results = function(store, file, chunker=spec, language=language, **named)
            return [_result(r) for r in results]

        return await run_call(setup, ctx, f"{function_name} {path}", work, writes=True)

    return tool


def add_ingest_tools(server: MCPServer, setup: Setup) -> None:
    for name, doc in _SINGLE.items():
        hints = annotations(read_only=False, destructive=True, open_world=True)
        tool = _single_source_tool(name, setup)
        server.add_tool(tool, name=name, description=doc + _INGEST_DOC, annotations=hints)
    for name, doc in _MANY.items():
        if getattr(ingest, name, None) is not None:
            hints = annotations(read_only=False, destructive=True)
            tool = _many_sources_tool(name, setup)
            server.add_tool(tool, name=name, description=doc + _INGEST_DOC, annotations=hints)
