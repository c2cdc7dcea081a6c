"""``jw rag ingest KIND SOURCE``: parse, chunk, embed and store sources.

One command per source kind of :data:`jw_rag.ingest.SOURCE_KINDS`, with the
options that kind takes (``article``, ``bible``, ``epub``, ``pdf``,
``markdown``, ``text``, ``jwpub``, ``backup``). A folder is read recursively. ``--source-id`` names a single
source; ``--replace`` replaces a stored source that came from another file or
URL (refused otherwise, see :mod:`jw_rag.ingest._identity`). ``--skip-bad`` stores
the good files of a folder and lists each bad one with its reason (without it, one
bad file fails the folder). Every document is parsed and chunked before the store
is touched; a rich progress bar on stderr counts the stored documents when there
are several.
"""

from __future__ import annotations

import inspect
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from jw_cli.json_text import json_text
from jw_cli.options import (
    ChunkerOpt,
    EmbedderOpt,
    LanguageOpt,
    StoreOpt,
    global_options,
    opened_store,
    text_only,
)
from jw_cli.progress import stderr_progress
from jw_cli.views import shown_id
from jw_rag.ingest import (
    SOURCE_KINDS,
    IngestResult,
    LeftOut,
    SkippedFile,
    SourceKind,
    collecting_left_out,
    ingest,
    ingest_documents,
    load_kind,
)
from jw_rag.ingest.folder import Vanished, nothing_to_ingest, vanished_line, vanished_sources
from jw_rag.ingest.kinds import FOLDER, PATH, URL
from jw_rag.model import Chunk, Document
from jw_rag.store import SourceWrite, Store, replace_sources

__all__ = ["CountingStore", "ingest_app", "skipped_dicts", "skipped_line", "summary_line"]

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
        f"{shown_id(result.source_id)}: {_count(result.chunks, 'chunk')}, chunker {result.chunker}, "
        f"language {result.language or 'unknown'} ({state})"
    )


def skipped_line(skipped: SkippedFile) -> str:
    """One line per file ``--skip-bad`` left out: the file and why."""
    said = skipped.message or skipped.reason
    if said.startswith(skipped.path):
        return f"skipped {said}"
    return f"skipped {skipped.path}: {said}"


def skipped_dicts(skipped: Sequence[SkippedFile]) -> list[dict[str, str]]:
    """The ``"skipped"`` entries of ``--skip-bad --json``: each file and why."""
    return [{"path": s.path, "reason": s.reason} for s in skipped]


def _report(
    results: Sequence[IngestResult],
    as_json: bool,
    skipped: list[SkippedFile] | None = None,
    left_out: Sequence[LeftOut] = (),
    vanished: Sequence[Vanished] = (),
) -> None:
    """The stored sources (and with ``--skip-bad`` the files skipped), as lines
    or JSON; the JSON is a list of sources, or an object with ``sources`` and
    ``skipped`` (``--skip-bad``), ``left_out`` (files of a folder no source
    came from) or ``vanished`` (stored sources of the folder whose file is
    gone), the last two given in the lines as a ``warning:``."""
    if as_json:
        rows = [asdict(r) for r in results]
        out: Any = rows
        if skipped is not None or left_out or vanished:
            out = {"sources": rows}
            if skipped is not None:
                out["skipped"] = skipped_dicts(skipped)
            if left_out:
                out["left_out"] = [x.as_dict() for x in left_out]
            if vanished:
                out["vanished"] = [asdict(v) for v in vanished]
        typer.echo(json_text(out))
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
        callback=text_only("id"),
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

    source_id: str | None = None
    replace: bool = False
    skip_bad: bool = False
    as_json: bool = False
    embedder: str | None = None


def _ingest_source(
    ctx: typer.Context,
    kind: SourceKind,
    source: str,
    chunker: str | None,
    store: str | None,
    language: str | None,
    flags: _Flags,
) -> None:
    # with --json the files a folder left out also go in the JSON: collected,
    # then given as the same warning line (before any error line); without it
    # they are warned about as they are found, and the list stays empty
    left: list[LeftOut] = []
    try:
        with collecting_left_out() if flags.as_json else nullcontext(left) as left:
            _store_source(ctx, kind, source, (chunker, store, language), flags, left)
    finally:
        for x in left:
            warnings.warn(x.message, UserWarning, stacklevel=1)


def _store_source(
    ctx: typer.Context,
    kind: SourceKind,
    source: str,
    choices: tuple[str | None, str | None, str | None],
    flags: _Flags,
    left_out: Sequence[LeftOut],
) -> None:
    chunker, store, language = choices
    opts = global_options(ctx)
    chosen = opts.chunker_for(chunker)
    label = f"{kind.name} {source}"
    docs: list[Document] | None = None  # None: the kind stores its file as it reads it
    skipped: list[SkippedFile] | None = None
    if kind.ingest_file is None:
        docs, skipped = load_kind(
            kind.name, source, language=language, source_id=flags.source_id,
            skip_bad=flags.skip_bad,
        )  # fmt: skip
        if skipped is not None and not docs:
            _report([], flags.as_json, skipped, left_out)
            raise nothing_to_ingest(source, skipped, kind.name)
    with opened_store(opts.store_for(store), embedder=opts.embedder_for(flags.embedder)) as st:
        show = sys.stderr.isatty() and (docs is None or len(docs) > 1)
        with stderr_progress(enabled=show) as progress:
            advance = progress(label, None if docs is None else len(docs))
            counting = CountingStore(st, advance)
            if docs is None:
                results = ingest(counting, kind.name, source, language=language, chunker=chosen)
            else:
                results = ingest_documents(
                    counting, docs, chunker=chosen, replace=flags.replace, skipped=skipped
                )
        # a folder's stored sources whose file is gone: named, never deleted here
        vanished = vanished_sources(st, source) if Path(source).expanduser().is_dir() else []
    if not results and skipped:
        _report([], flags.as_json, skipped, left_out)
        raise nothing_to_ingest(source, skipped, kind.name)
    _report(results, flags.as_json, skipped, left_out, vanished)
    if vanished:
        warnings.warn(vanished_line(source, vanished), UserWarning, stacklevel=1)


_SOURCE_HELP = {
    frozenset({PATH}): "The file to read.",
    frozenset({PATH, FOLDER}): "File or folder.",
    frozenset({PATH, URL}): "File or http(s) URL.",
    frozenset({PATH, URL, FOLDER}): "File, folder or http(s) URL.",
}


def _parameter(name: str, annotation: Any, default: Any = inspect.Parameter.empty) -> Any:
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Parameter(name, kind, default=default, annotation=annotation)


def _signature(kind: SourceKind) -> inspect.Signature:
    """The command's parameters: the options ``kind`` takes, and the common ones."""
    source = Annotated[str, typer.Argument(help=_SOURCE_HELP[kind.accepts])]
    params = [_parameter("ctx", typer.Context), _parameter("source", source)]
    params += [
        _parameter("chunker", ChunkerOpt, None),
        _parameter("store", StoreOpt, None),
        _parameter("language", LanguageOpt, None),
    ]
    if "source_id" in kind.options:
        params.append(_parameter("source_id", SourceIdOpt, None))
    if "replace" in kind.options:
        params.append(_parameter("replace", ReplaceOpt, False))
    if kind.takes(FOLDER):
        params.append(_parameter("skip_bad", SkipBadOpt, False))
    params += [_parameter("embedder", EmbedderOpt, None), _parameter("as_json", JsonOpt, False)]
    return inspect.Signature(params)


def _register(kind: SourceKind) -> None:
    def command(
        ctx: typer.Context,
        source: str,
        chunker: str | None = None,
        store: str | None = None,
        language: str | None = None,
        as_json: bool = False,
        **flags: Any,
    ) -> None:
        options = _Flags(as_json=as_json, **flags)
        _ingest_source(ctx, kind, source, chunker, store, language, options)

    command.__signature__ = _signature(kind)  # type: ignore[attr-defined]
    command.__doc__ = f"{kind.summary}\n\nExample: jw rag ingest {kind.name} {kind.example}"
    ingest_app.command(kind.name)(command)


for _kind in SOURCE_KINDS:
    _register(_kind)
