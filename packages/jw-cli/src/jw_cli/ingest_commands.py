"""``jw rag ingest KIND SOURCE``: parse, chunk, embed and store sources.

One command per source kind (``article``, ``bible``, ``epub``, ``pdf``,
``markdown``, ``text``; ``jwpub`` and ``backup`` when the installed jw-rag
provides them). A folder is read recursively. ``--source-id`` names a single
source; ``--replace`` replaces a stored source that came from another file or
URL (refused otherwise, see :mod:`jw_rag.ingest._identity`). ``--skip-bad`` stores
the good files of a folder and lists each bad one with its reason (without it, one
bad file fails the folder). Every document is parsed and chunked before the store
is touched; a rich progress bar on stderr counts the stored documents when there
are several.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

import jw_rag.ingest as ingest
from jw_cli.options import (
    ChunkerOpt,
    EmbedderOpt,
    LanguageOpt,
    StoreOpt,
    global_options,
    opened_store,
)
from jw_cli.progress import stderr_progress
from jw_rag.errors import ConfigError
from jw_rag.ingest import IngestResult, SkippedFile, ingest_documents, load_documents, load_folder
from jw_rag.ingest._source import is_url, refuse_empty_path
from jw_rag.ingest.folder import nothing_to_ingest
from jw_rag.ingest.pipeline import check_language, with_language
from jw_rag.model import Chunk, Document
from jw_rag.store import SourceWrite, Store, replace_sources

__all__ = ["CountingStore", "ingest_app", "skipped_line", "summary_line"]

ingest_app = typer.Typer(
    help="Parse, chunk and store a source (file, folder or URL).", no_args_is_help=True
)


class CountingStore:
    """A store that calls ``advance(1)`` as each source is embedded (or found
    unchanged): drives the progress bar."""

    def __init__(self, inner: Store, advance: Callable[[int], None]) -> None:
        self._inner = inner
        self._advance = advance

    def replace_sources(self, writes: Sequence[SourceWrite], **_: Any) -> list[bool]:
        return replace_sources(self._inner, writes, progress=lambda _sid: self._advance(1))

    def replace_source(self, source_id: str, chunks: Iterable[Chunk], **kwargs: Any) -> bool:
        return self.replace_sources([SourceWrite(source_id, chunks, **kwargs)])[0]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def summary_line(result: IngestResult) -> str:
    """One line per stored source: chunks, chunker, language, and whether it was skipped."""
    state = "unchanged, skipped" if result.skipped else "stored"
    return (
        f"{result.source_id}: {_count(result.chunks, 'chunk')}, chunker {result.chunker}, "
        f"language {result.language or 'unknown'} ({state})"
    )


def skipped_line(skipped: SkippedFile) -> str:
    """One line per file ``--skip-bad`` left out: the file and why."""
    if skipped.reason.startswith(skipped.path):
        return f"skipped {skipped.reason}"
    return f"skipped {skipped.path}: {skipped.reason}"


def _report(
    results: Sequence[IngestResult], as_json: bool, skipped: list[SkippedFile] | None = None
) -> None:
    """The stored sources (and with ``--skip-bad`` the files left out), as lines or JSON."""
    if as_json:
        rows = [asdict(r) for r in results]
        out = (
            rows if skipped is None else {"sources": rows, "skipped": [asdict(s) for s in skipped]}
        )
        typer.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    for r in results:
        typer.echo(summary_line(r))
    for s in skipped or ():
        typer.echo(skipped_line(s))
    if len(results) > 1 or skipped is not None:
        stored = sum(not r.skipped for r in results)
        total = sum(r.chunks for r in results)
        tail = "" if skipped is None else f"; {_count(len(skipped), 'file')} skipped"
        typer.echo(
            f"{_count(len(results), 'source')}, {stored} stored, {_count(total, 'chunk')}{tail}"
        )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


SourceIdOpt = Annotated[
    str | None,
    typer.Option(
        "--source-id",
        metavar="ID",
        help="Id for this one source (default: the file stem; in a folder, the folder name "
        "and the path inside it; an EPUB's chapters get it as a prefix).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", metavar="", help="Print JSON instead of lines.")]
SkipBadOpt = Annotated[
    bool,
    typer.Option(
        "--skip-bad",
        metavar="",
        help="For a folder: leave out each file that cannot be read or parsed, store the "
        "others and list what was skipped and why (default: one bad file fails the whole "
        "folder and nothing is stored).",
    ),
]
ReplaceOpt = Annotated[
    bool,
    typer.Option(
        "--replace",
        metavar="",
        help="Replace a stored source with the same id even when it was ingested from "
        "another file or URL (refused otherwise).",
    ),
]


@dataclass(frozen=True, slots=True)
class _Flags:
    """The per-kind command's options that do not choose the chunker, store or language."""

    source_id: str | None
    replace: bool
    skip_bad: bool
    as_json: bool
    embedder: str | None = None


def _load(
    source: str, kind: str, source_id: str | None, skip_bad: bool
) -> tuple[list[Document], list[SkippedFile] | None]:
    """The documents of ``source`` and, with ``--skip-bad``, the files left out."""
    if not skip_bad:
        return load_documents(source, kind=kind, source_id=source_id), None
    refuse_empty_path(source)
    if is_url(source) or not Path(source).expanduser().is_dir():
        raise ConfigError(f"--skip-bad applies to a folder, and {source} is not one; drop it")
    if source_id is not None:
        raise ConfigError("--source-id names one source; a folder's files get ids from their paths")
    docs, skipped = load_folder(source, kind=kind, skip_bad=True)
    if not docs:
        _report([], False, skipped)
        raise nothing_to_ingest(source, skipped)
    return docs, skipped


def _ingest_parsed(
    ctx: typer.Context,
    kind: str,
    source: str,
    chunker: str | None,
    store: str | None,
    language: str | None,
    flags: _Flags,
) -> None:
    opts = global_options(ctx)
    chosen = opts.chunker_for(chunker)
    check_language(language)
    docs, skipped = _load(source, kind, flags.source_id, flags.skip_bad)
    for doc in docs:
        with_language(doc, language)
    with opened_store(opts.store_for(store), embedder=opts.embedder_for(flags.embedder)) as st:
        show = len(docs) > 1 and sys.stderr.isatty()
        with stderr_progress(enabled=show) as progress:
            advance = progress(f"{kind} {source}", len(docs))
            results = ingest_documents(
                CountingStore(st, advance),
                docs,
                chunker=chosen,
                replace=flags.replace,
                skipped=skipped,
            )
    if not results and skipped:
        _report([], False, skipped)
        raise nothing_to_ingest(source, skipped)
    _report(results, flags.as_json, skipped)


_KIND_HELP = {
    "article": "An HTML article (wol page, saved file or URL).",
    "bible": "A Bible chapter page (stored verse by verse).",
    "epub": "An EPUB book (one source per chapter).",
    "pdf": "A PDF file (paragraphs keep their page numbers).",
    "markdown": "A Markdown file (headings become heading paths).",
    "text": "A plain UTF-8 text file (blank lines separate paragraphs).",
}


_EXAMPLE = {
    "article": "soul.html --chunker semantic:target_chars=800",
    "bible": "genesis-1.html --language en",
    "epub": "book.epub --source-id book",
    "pdf": "brochure.pdf --chunker page",
    "markdown": "notes.md --chunker semantic:target_chars=800 --json",
    "text": "talk.txt --language es",
}


def _register_kind(kind: str) -> None:
    def command(
        ctx: typer.Context,
        source: Annotated[str, typer.Argument(help="File, folder or http(s) URL.")],
        chunker: ChunkerOpt = None,
        store: StoreOpt = None,
        language: LanguageOpt = None,
        source_id: SourceIdOpt = None,
        replace: ReplaceOpt = False,
        skip_bad: SkipBadOpt = False,
        embedder: EmbedderOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        flags = _Flags(source_id, replace, skip_bad, as_json, embedder)
        _ingest_parsed(ctx, kind, source, chunker, store, language, flags)

    command.__doc__ = f"{_KIND_HELP[kind]}\n\nExample: jw rag ingest {kind} {_EXAMPLE[kind]}"
    ingest_app.command(kind)(command)


for _kind in _KIND_HELP:
    _register_kind(_kind)


def _register_file_kind(name: str, function_name: str, help_text: str, example: str) -> None:
    """A kind whose library function reads the file itself (JWPUB, JW Library backup)."""
    function = getattr(ingest, function_name, None)
    if function is None:  # this jw-rag does not provide it
        return

    def command(
        ctx: typer.Context,
        path: Annotated[str, typer.Argument(help="The file to read.")],
        chunker: ChunkerOpt = None,
        store: StoreOpt = None,
        language: LanguageOpt = None,
        embedder: EmbedderOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        opts = global_options(ctx)
        chosen = opts.chunker_for(chunker)
        with opened_store(opts.store_for(store), embedder=opts.embedder_for(embedder)) as st:
            with stderr_progress(enabled=sys.stderr.isatty()) as progress:
                advance = progress(f"{name} {path}", None)  # type: ignore[arg-type]
                results = function(
                    CountingStore(st, advance), path, language=language, chunker=chosen
                )
        _report(results, as_json)

    command.__doc__ = f"{help_text}\n\nExample: jw rag ingest {name} {example}"
    ingest_app.command(name)(command)


_register_file_kind(
    "jwpub", "ingest_jwpub", "A .jwpub publication (one source per document).", "lff_E.jwpub"
)
_register_file_kind(
    "backup",
    "ingest_jw_library_backup",
    "A .jwlibrary backup (one source per note).",
    "UserDataBackup.jwlibrary --language en",
)
