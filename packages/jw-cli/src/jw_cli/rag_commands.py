"""``jw rag ...``: ingest, search, inspect and compare chunkings (logic lives in :mod:`jw_rag`)."""

from __future__ import annotations

import shlex
import time
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from jw_cli.diff_html import render_chunk_diff
from jw_cli.ingest_commands import ingest_app, skipped_dicts, skipped_line
from jw_cli.json_text import json_text
from jw_cli.options import (
    STORE_NOW,
    ChunkerOpt,
    EmbedderOpt,
    StoreOpt,
    check_choice,
    check_chunker,
    choices_metavar,
    global_options,
    opened_store,
    text_only,
)
from jw_cli.views import (
    chunk_dict,
    chunks_table,
    delivery_dicts,
    hits_table,
    no_hits_line,
    plural,
    shown_id,
    stats_table,
)
from jw_rag.chunkers import split_chunker_specs
from jw_rag.defaults import (
    DEFAULT_EXPANSION,
    DEFAULT_K,
    DEFAULT_MAX_PARENTS,
    DEFAULT_SEARCH_MODE,
    EXPANSIONS,
    SEARCH_MODES,
)
from jw_rag.errors import ConfigError, JwRagWarning, StoreError
from jw_rag.ingest import (
    SkippedFile,
    chunk_document,
    kind_names,
    load_documents,
    load_folder,
)
from jw_rag.ingest.folder import nothing_to_ingest
from jw_rag.ingest.generic import refuse_skip_bad
from jw_rag.ingest.pipeline import SUPPORTED_LANGUAGES, check_language, chunk_documents
from jw_rag.model import Chunk
from jw_rag.retrieve import retrieve, unknown_sources
from jw_rag.store import delete_sources

__all__ = ["rag_app"]

rag_app = typer.Typer(
    help=(
        "Index and search publications. The store is a SQLite file (or a postgresql:// DSN): "
        f"--store, else $JW_STORE, else $JW_HOME/store.sqlite "
        f"(now {STORE_NOW})."
    ),
    no_args_is_help=True,
)
rag_app.add_typer(ingest_app, name="ingest")

JsonOpt = Annotated[bool, typer.Option("--json", metavar="", help="Print JSON instead of a table.")]


def _print_json(value: Any) -> None:
    typer.echo(json_text(value))


def _print_json_lines(rows: list[Any]) -> None:
    """A JSON array written one compact row per line: what a script or an agent
    reads is the text, not indentation (the MCP search tool sends the same)."""
    lines = [json_text(r, indent=None) for r in rows]
    typer.echo("[\n" + ",\n".join(lines) + "\n]" if lines else "[]")


@rag_app.command()
def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for.", callback=text_only("query"))],
    k: Annotated[
        int, typer.Option("--k", "-k", min=1, metavar="N", help="Number of hits.")
    ] = DEFAULT_K,
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            "--retriever",
            metavar=choices_metavar(SEARCH_MODES),
            help="How the store ranks chunks (--retriever, as jw eval chunker-bench spells it, "
            "works too).",
        ),
    ] = DEFAULT_SEARCH_MODE,
    expand: Annotated[
        str,
        typer.Option(metavar=choices_metavar(EXPANSIONS), help="Context delivered with each hit."),
    ] = DEFAULT_EXPANSION,
    max_parents: Annotated[
        int,
        typer.Option(
            "--max-parents",
            min=1,
            metavar="N",
            help="With --expand parent: at most N parents delivered (hits past them are left out).",
        ),
    ] = DEFAULT_MAX_PARENTS,
    language: Annotated[
        str | None,
        typer.Option(
            "--language",
            metavar=choices_metavar(SUPPORTED_LANGUAGES),
            help="Only chunks in this language.",
            callback=text_only("language"),
        ),
    ] = None,
    source: Annotated[
        list[str] | None,
        typer.Option(
            "--source",
            metavar="ID",
            help="Only this source id (repeat for several; see jw rag stats).",
            callback=text_only("id"),
        ),
    ] = None,
    store: StoreOpt = None,
    embedder: EmbedderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search the store; each row shows where the hit comes from, its own text,
    and the hits its delivered context holds (folded: not repeated as rows).
    --json prints one hit a line, best first: score, id, source_id, text (the
    hit with its context, in reading order), hit (\\[start, end] of the hit in
    text), heading, pages, para_ids (strings; #N is a paragraph's position),
    folded.

    Example: jw rag search "¿el alma muere?" -k 3 --language es --json
    """
    mode = check_choice(mode, SEARCH_MODES, "--mode")
    expand = check_choice(expand, EXPANSIONS, "--expand")
    filters: dict[str, Any] = {}
    code = check_language(language)
    if code is not None:
        filters["language"] = code
    source = list(dict.fromkeys(source or []))  # an id given twice is one id
    if source:
        filters["source_id"] = source
    opts = global_options(ctx)
    with opened_store(
        opts.store_for(store), read_only=True, embedder=opts.embedder_for(embedder)
    ) as st:
        delivery = retrieve(
            st, query, k, mode=mode, expand=expand, filters=filters or None,  # type: ignore[arg-type]
            max_parents=max_parents,
        )  # fmt: skip
        missing = unknown_sources(st, filters)
        held = st.stats()["sources"] if not delivery and not as_json else None
    names = ", ".join(repr(s) for s in missing)
    if source and len(missing) == len(source):
        raise StoreError(
            f"no source {names} in the store: `jw rag stats` lists the stored source ids"
        )
    if missing:  # a typo among stored ids: their hits, and the typo named
        warnings.warn(
            f"no source {names} in the store, so only the others were searched: "
            "`jw rag stats` lists the stored source ids",
            JwRagWarning,
            stacklevel=1,
        )
    if as_json:
        _print_json_lines(delivery_dicts(delivery))
    elif held is not None:  # one line, not an empty table, saying where it looked
        typer.echo(no_hits_line(query, held, bool(filters)))
    else:
        Console().print(hits_table(delivery, query))


@rag_app.command()
def stats(
    ctx: typer.Context,
    store: StoreOpt = None,
    embedder: EmbedderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Counts of chunks and sources, by language and chunker; the embedder in use.

    Example: jw rag stats --json
    """
    opts = global_options(ctx)
    with opened_store(
        opts.store_for(store), read_only=True, embedder=opts.embedder_for(embedder)
    ) as st:
        info = st.stats()
    if as_json:
        _print_json(info)
    else:
        Console().print(stats_table(info))


@rag_app.command()
def delete(
    ctx: typer.Context,
    source: Annotated[
        list[str],
        typer.Option(
            "--source",
            metavar="ID",
            help="Source id (repeat for several; see `jw rag stats`).",
            callback=text_only("id"),
        ),
    ],
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove sources' chunks, vectors and parents from the store.

    Every id must name a stored source: when one does not, nothing is deleted.
    The sources go in one transaction: a delete cut short deletes none.

    Example: jw rag delete --source alma --json
    """
    ids = list(dict.fromkeys(source))
    location = global_options(ctx).store_for(store)
    with opened_store(location, existing=True) as st:
        removed = list(zip(ids, delete_sources(st, ids), strict=True))
    records = [{"source_id": i, "deleted_chunks": n} for i, n in removed]
    if as_json:
        _print_json(records[0] if len(records) == 1 else records)
    else:
        for source_id, n in removed:
            typer.echo(f"deleted {plural(n, 'chunk')} of {shown_id(source_id)}")


ChunkSkipBadOpt = Annotated[
    bool,
    typer.Option(
        "--skip-bad",
        metavar="",
        help="For a folder: leave out each file that cannot be read, parsed or chunked, show "
        "the others and list what was skipped and why, as jw rag ingest --skip-bad does "
        "(default: one bad file fails the whole folder).",
    ),
]


@rag_app.command(context_settings={"allow_extra_args": True})
def chunk(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="File, folder or http(s) URL.")],
    chunker: ChunkerOpt = None,
    skip_bad: ChunkSkipBadOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Show how a source would be chunked, with each chunk's provenance; stores nothing.
    The kind of each file comes from its extension (or its content).

    With --skip-bad --json the output is an object: sources (the list printed
    without it) and skipped (each file's path and reason).

    Example: jw rag chunk soul.html --chunker semantic:target_chars=800
    """
    if ctx.args:  # words after the source (the command allows them only to say this)
        _refuse_extra(source, list(ctx.args))
    chosen = global_options(ctx).chunker_for(chunker)
    skipped: list[SkippedFile] | None = None
    if skip_bad:
        refuse_skip_bad(source)
        docs, skipped = load_folder(source, skip_bad=True)
    else:
        docs = load_documents(source)
    chunked = [(doc.source_id, chunks) for doc, chunks in
               chunk_documents(docs, chunker=chosen, skipped=skipped)]  # fmt: skip
    if skipped and not chunked:  # what was skipped, then the error
        if as_json:
            _echo_chunks_json([], skipped)
        else:
            _echo_skipped(skipped, chunked)
        raise nothing_to_ingest(source, skipped, verb="chunk")
    if as_json:  # everything chunked first: an error leaves no partial JSON behind
        _echo_chunks_json(chunked, skipped)
        return
    console = Console()
    for source_id, chunks in chunked:
        name = chunks[0].metadata.get("chunker", chosen) if chunks else chosen
        title = f"{shown_id(source_id)}: {plural(len(chunks), 'chunk')} ({name})"
        console.print(chunks_table(chunks, title))
    if skipped is not None:
        _echo_skipped(skipped, chunked)


def _refuse_extra(source: str, extra: list[str]) -> None:
    """The one-line error for ``jw rag chunk`` given more than one argument:
    a kind word first (``jw rag chunk text notes``, as ``jw rag ingest`` is
    spelled), or several sources."""
    kinds = {*kind_names(), *kind_names(public=True)}
    if source.strip().lower() in kinds and len(extra) == 1:
        raise ConfigError(
            f"jw rag chunk takes no kind ({source!r}): it reads each file's kind from its "
            f"extension; run: jw rag chunk {shlex.quote(extra[0])}"
        )
    given = ", ".join(repr(a) for a in [source, *extra][:5])
    given += f" and {len(extra) - 4} more" if len(extra) > 4 else ""
    raise ConfigError(
        f"jw rag chunk takes one source, got {len(extra) + 1} ({given}): chunk one file, "
        "folder or URL at a time, or put the files in one folder and chunk the folder"
    )


def _echo_skipped(skipped: list[SkippedFile], chunked: list[tuple[str, list[Chunk]]]) -> None:
    """``--skip-bad``'s lines after the tables: each file skipped, then the counts."""
    for s in skipped:
        typer.echo(skipped_line(s))
    total = sum(len(chunks) for _, chunks in chunked)
    typer.echo(
        f"{plural(len(chunked), 'source')}, {plural(total, 'chunk')}; "
        f"{plural(len(skipped), 'file')} skipped"
    )


def _echo_chunks_json(
    chunked: list[tuple[str, list[Chunk]]], skipped: list[SkippedFile] | None = None
) -> None:
    """``[{"source_id": ..., "chunks": [...]}, ...]`` (with ``skipped``: that list
    as ``"sources"`` of an object, beside ``"skipped"``) exactly as
    :func:`_print_json` prints it, written one chunk at a time: the output of a
    long document is never held whole."""
    if skipped is None:
        _echo_sources_json(chunked, 0)
        return
    typer.echo('{\n  "sources": ', nl=False)
    _echo_sources_json(chunked, 1)
    rest = json_text(skipped_dicts(skipped)).replace("\n", "\n  ")
    typer.echo(f',\n  "skipped": {rest}\n}}')


def _echo_sources_json(chunked: list[tuple[str, list[Chunk]]], level: int) -> None:
    """The sources' list, each line indented ``level`` steps (the first line not)."""
    pad = "  " * level

    def dumped(value: Any, depth: int) -> str:
        return json_text(value).replace("\n", "\n" + "  " * (depth + level))

    if not chunked:
        typer.echo("[]", nl=not level)
        return
    typer.echo("[")
    for i, (source_id, chunks) in enumerate(chunked):
        typer.echo(f'{pad}  {{\n{pad}    "source_id": {dumped(source_id, 0)},')
        if not chunks:
            typer.echo(f'{pad}    "chunks": []')
        else:
            typer.echo(f'{pad}    "chunks": [')
            for j, c in enumerate(chunks):
                comma = "," if j + 1 < len(chunks) else ""
                typer.echo(f"{pad}      " + dumped(chunk_dict(c), 3) + comma)
            typer.echo(f"{pad}    ]")
        typer.echo(f"{pad}  }}" + ("," if i + 1 < len(chunked) else ""))
    typer.echo(f"{pad}]", nl=not level)


@rag_app.command()
def diff(
    source: Annotated[str, typer.Argument(help="File, folder or http(s) URL.")],
    html: Annotated[Path, typer.Option("--html", help="HTML file to write.")],
    chunkers: Annotated[
        str,
        typer.Option(
            help="Comma-separated chunker names (or name:key=value specs), one column each."
        ),
    ] = "paragraph,semantic",
) -> None:
    """Write a self-contained HTML page comparing chunkers side by side.

    Example: jw rag diff soul.html --chunkers paragraph,semantic:target_chars=800 --html diff.html
    """
    names = [check_chunker(n) for n in split_chunker_specs(chunkers)]
    if not names:
        raise ConfigError("--chunkers is empty: give names such as paragraph,semantic")
    docs = load_documents(source)
    columns = {name: [chunk_document(doc, chunker=name) for doc in docs] for name in names}
    # a file name that is not UTF-8 (kept as surrogates) is shown escaped, not refused
    page = render_chunk_diff(docs, columns, source=source)
    html.write_text(page, encoding="utf-8", errors="backslashreplace")
    typer.echo(f"wrote {html}")


@rag_app.command()
def reindex(
    ctx: typer.Context,
    m: Annotated[
        int | None,
        typer.Option("--m", help="Links per node of the HNSW graph (2-100; default: the store's)."),
    ] = None,
    ef_construction: Annotated[
        int | None,
        typer.Option(
            "--ef-construction",
            help="Candidate list while building (4-1000, at least 2 x m; default: the store's).",
        ),
    ] = None,
    memory: Annotated[
        str | None,
        typer.Option(
            "--memory", help="maintenance_work_mem for the build, e.g. 3GB (default 1GB)."
        ),
    ] = None,
    by_size: Annotated[
        bool,
        typer.Option(
            "--by-size",
            help="Choose the graph by the store's size again (after --m / --ef-construction).",
        ),
    ] = False,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Rebuild a PostgreSQL store's HNSW index: the graph for its size, or --m / --ef-construction.

    Searches go on meanwhile; writes wait. Example: jw rag reindex --store postgresql://db/library
    """
    if by_size and (m is not None or ef_construction is not None):  # said before any connection
        raise ConfigError(
            "--by-size chooses the graph by the store's size, --m / --ef-construction give one: "
            "pass one or the other"
        )
    location = global_options(ctx).store_for(store)
    with opened_store(location, existing=True) as st:
        rebuild = getattr(st, "rebuild_index", None)
        if rebuild is None:
            raise ConfigError(
                f"{location} is a SQLite store, which keeps no HNSW index to rebuild: "
                "reindex is for postgresql:// stores"
            )
        options: dict[str, Any] = {"m": m, "ef_construction": ef_construction}
        if by_size:
            options["by_size"] = True
        if memory is not None:
            options["memory"] = memory
        started = time.perf_counter()
        built = rebuild(**options)
        seconds = time.perf_counter() - started
        graph = st.hnsw_graph()  # type: ignore[attr-defined]
    if as_json:
        _print_json(
            {"built": built, "m": graph[0], "ef_construction": graph[1], "seconds": seconds}
        )
    elif built:
        typer.echo(
            f"rebuilt the HNSW index: m {graph[0]}, ef_construction {graph[1]} ({seconds:.1f} s)"
        )
    else:
        typer.echo(
            f"no index to build (no vectors yet, or wider than 2,000 dimensions); the next "
            f"build uses m {graph[0]}, ef_construction {graph[1]}"
        )
