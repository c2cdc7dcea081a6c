"""The ``ingest`` tool: one tool, a ``kind`` naming the library's ingest function.

``source`` is a file path or, for the kinds that read one source (article,
bible_chapter, pdf, markdown, text), an http(s) URL; epub, jwpub and
jw_library_backup read files only and refuse a URL in one line. A file path
is confined to the server's roots and the client's (:mod:`jw_mcp.roots`,
:mod:`jw_mcp.client_roots`), checked when the call arrives and again when the
file is opened; a URL is fetched under the server's limits, connecting only
to addresses that passed its check. The work runs on the write pool under
``--call-timeout`` (:mod:`jw_mcp.workers`), reporting progress as it reads and
embeds. The answer is always a list: one entry per stored source. When a
folder's files were left out (another kind reads them, none does, or a link
leads outside the roots: never opened, the other files are stored) the
answer says so twice: a ``warning:`` line after the entries, the one the
``jw`` command prints with the MCP kind names, and ``left_out`` beside
``result`` in the structured content, one entry per folder with its groups
of files (what they are, how many, the kind that reads them, a few names).
A folder's stored sources whose file is gone are named the same way (a
``warning:`` line, and ``vanished`` with each id and origin), never deleted:
the ``delete_source`` tool removes one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, NotRequired, TypedDict

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from jw_mcp import sessions, workers
from jw_mcp.calls import Setup, run_call, tool_errors
from jw_mcp.client_roots import client_roots
from jw_mcp.params import (
    ChunkerChoice,
    ChunkerOptions,
    KindParam,
    LanguageChoice,
    Replace,
    SourceId,
    SourceParam,
    annotations,
)
from jw_mcp.roots import confined_file, confined_source, is_url
from jw_rag.errors import capped_line
from jw_rag.ingest import (
    SOURCE_KINDS,
    IngestResult,
    LeftOut,
    collecting_left_out,
    kind_names,
    source_kind,
)
from jw_rag.ingest import ingest as ingest_source
from jw_rag.ingest.folder import Vanished, vanished_line, vanished_sources
from jw_rag.ingest.kinds import URL

__all__ = ["KINDS", "URL_KINDS", "add_ingest_tools", "chosen_chunker"]

Tool = Callable[..., Coroutine[Any, Any, Any]]

#: The tool's ``kind`` values, from the library's table of source kinds.
KINDS: tuple[str, ...] = kind_names(public=True)
#: The kinds that read an http(s) URL as well as a file.
URL_KINDS: tuple[str, ...] = tuple(k.public_name for k in SOURCE_KINDS if k.takes(URL))

DESCRIPTION = (
    "Parse, chunk and store a source: kind article (HTML), bible_chapter (stored verse by "
    "verse), pdf, markdown or text take a file path or an http(s) URL; epub (one source per "
    "chapter), jwpub (one per document) and jw_library_backup (one per note) take a file path. "
    "Files must be under the server's roots (none unless started with --root) and the "
    "client's. Re-ingesting replaces a source's chunks (unchanged content is skipped). "
    "Returns one entry per stored source; files of a folder it left out are named in a "
    "warning line and in left_out, with the kind that reads them; its stored sources whose "
    "file is gone, in vanished."
)


class IngestAnswer(TypedDict):
    # no docstring: it would be sent as the output schema's description

    result: list[dict[str, Any]]
    left_out: NotRequired[list[dict[str, Any]]]
    vanished: NotRequired[list[dict[str, Any]]]


def _result(r: IngestResult) -> dict[str, Any]:
    return {
        "source_id": r.source_id,
        "chunks": r.chunks,
        "skipped": r.skipped,
        "chunker": r.chunker,
        "language": r.language,
    }


def _public(kind: str) -> str:
    return source_kind(kind).public_name


def _answer(
    done: list[IngestResult], left: list[LeftOut], source: str = "", gone: Sequence[Vanished] = ()
) -> CallToolResult:
    """One text per stored source (as the SDK writes a list), then one
    ``warning:`` line per folder that left files out and one for the folder's
    stored sources whose file is gone; the same as structured content."""
    rows = [_result(r) for r in done]
    texts = [json.dumps(row, ensure_ascii=False, indent=2) for row in rows]
    texts += [f"warning: {capped_line(x.line(_public))}" for x in left]
    if gone:
        removal = "the delete_source tool removes one"
        texts.append(f"warning: {capped_line(vanished_line(source, list(gone), removal))}")
    structured: dict[str, Any] = {"result": rows}
    if left:
        structured["left_out"] = [x.as_dict(_public) for x in left]
    if gone:
        structured["vanished"] = [asdict(v) for v in gone]
    return CallToolResult(
        content=[TextContent(type="text", text=t) for t in texts], structured_content=structured
    )


def chosen_chunker(ctx: Context, chunker: str | None, options: dict[str, Any] | None) -> str:
    """The chunker spec an ingest uses: the one named (with ``options``), else
    the connection's choice (``options`` added to it); options naming something
    on the server's disk are refused (:func:`jw_mcp.sessions.agent_chunker`)."""
    chosen = sessions.choice(sessions.connection_state(ctx))["chunker"]
    if chunker is None and not options:
        return chosen
    return sessions.agent_chunker(chunker, options, chosen)


def _ingest_tool(setup: Setup) -> Tool:
    @tool_errors
    async def ingest(
        kind: KindParam,
        source: SourceParam,
        ctx: Context,
        chunker: ChunkerChoice = None,
        chunker_options: ChunkerOptions = None,
        language: LanguageChoice = None,
        source_id: SourceId = None,
        replace: Replace = False,
    ) -> Annotated[CallToolResult, IngestAnswer]:
        source_kind(kind).check_options(
            source_id=source_id, replace=replace, skip_bad=False, called=kind
        )
        offered = None if is_url(source) else await client_roots(ctx)
        if kind in URL_KINDS:
            where = confined_source(source, setup.roots, offered)
        else:
            where = str(confined_file(f"kind {kind!r}", source, setup.roots, offered))
        spec = chosen_chunker(ctx, chunker, chunker_options)

        def work() -> CallToolResult:
            workers.report(0, None, f"reading {where}")
            with setup.reading(offered), collecting_left_out() as left:
                store = setup.holder.get()
                done = ingest_source(
                    store, kind, where, chunker=spec, language=language, source_id=source_id,
                    replace=replace,
                )  # fmt: skip
                gone = vanished_sources(store, where) if Path(where).is_dir() else []
            return _answer(done, left, where, gone)

        return await run_call(setup, ctx, f"ingest {kind} {source}", work, writes=True)

    return ingest


def add_ingest_tools(server: MCPServer, setup: Setup) -> None:
    """Register the ``ingest`` tool."""
    hints = annotations(read_only=False, destructive=True, open_world=True)
    server.add_tool(_ingest_tool(setup), name="ingest", description=DESCRIPTION, annotations=hints)
