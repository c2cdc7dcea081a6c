"""``ingest_folder``: every supported file below a folder, chunked and stored.

Without ``skip_bad`` a folder is all or nothing: the first bad file raises its
one-line :class:`~jw_rag.errors.IngestError` and nothing is stored. With it,
each bad file (unreadable, empty, not UTF-8, a broken or oversized archive, a
decompression bomb, too big, no text to index once parsed...) is left out and
listed with its reason in :attr:`FolderIngest.skipped`, and every good file is
stored; a folder with no good file at all is still an error. Every file is read,
parsed and chunked before the store is touched, and the good ones are written
in one transaction: a failure there (a full disk) stores none of them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from jw_rag.errors import IngestError, check_flag
from jw_rag.ingest.loader import SkippedFile, load_folder
from jw_rag.ingest.pipeline import (
    ChunkerArg,
    IngestResult,
    check_language,
    ingest_documents,
    with_language,
)
from jw_rag.store.protocol import ListsSourcesBelow, Store

__all__ = [
    "FolderIngest",
    "SkippedFile",
    "Vanished",
    "ingest_folder",
    "nothing_to_ingest",
    "vanished_line",
    "vanished_sources",
]

#: How many ids :func:`vanished_line` names before it counts the rest.
VANISHED_SHOWN = 5


@dataclass(frozen=True, slots=True)
class FolderIngest:
    """What a folder ingest did: one result per stored source, and the files left out."""

    results: list[IngestResult]
    skipped: list[SkippedFile]


def nothing_to_ingest(
    folder: str | Path,
    skipped: list[SkippedFile],
    kind: str | None = None,
    *,
    verb: str = "ingest",
) -> IngestError:
    """The error for a folder whose every file was left out (``skipped`` not
    empty): how many of the files ``kind`` reads (the folder may hold others,
    which the left-out note counts) and the first one's reason; ``verb``
    ``"chunk"`` says it for ``jw rag chunk``, which stores nothing."""
    done, again = ("chunked", "chunk") if verb == "chunk" else ("stored", "ingest")
    first = skipped[0]
    file = f"{kind} file" if kind else "file"
    said = first.message or first.reason
    reason = said if first.path in said else f"{first.path}: {said}"
    if len(skipped) == 1:
        return IngestError(
            f"{folder}: its one {file} was skipped as bad, nothing {done} ({reason}); "
            f"fix the file or {again} another folder"
        )
    return IngestError(
        f"{folder}: all {len(skipped)} {file}s were skipped as bad, nothing {done} "
        f"(first: {reason}); fix the files or {again} another folder"
    )


def ingest_folder(
    store: Store,
    folder: str | Path,
    *,
    kind: str | None = None,
    chunker: ChunkerArg = None,
    language: str | None = None,
    replace: bool = False,
    skip_bad: bool = False,
) -> FolderIngest:
    """Read every file below ``folder`` first (see the module docstring for
    ``skip_bad``), then chunk and store the documents (``chunker``, ``language``
    and ``replace`` as in :func:`~jw_rag.ingest.ingest_documents`)."""
    check_flag("replace", replace)
    check_flag("skip_bad", skip_bad)
    check_language(language)
    docs, skipped = load_folder(folder, kind=kind, skip_bad=skip_bad)
    if not docs:
        raise nothing_to_ingest(folder, skipped, kind)
    for doc in docs:
        with_language(doc, language)
    results = ingest_documents(
        store, docs, chunker=chunker, replace=replace, skipped=skipped if skip_bad else None
    )
    if not results:
        raise nothing_to_ingest(folder, skipped, kind)
    return FolderIngest(results, skipped)


@dataclass(frozen=True, slots=True)
class Vanished:
    """A stored source read from a file below a folder that holds no such file any more."""

    source_id: str
    origin: str


def vanished_sources(store: Store, folder: str | Path) -> list[Vanished]:
    """The stored sources whose origin is a file below ``folder`` (links on the
    way to it followed, as an origin is recorded) that is no longer a file
    there, ordered by id; nothing is deleted (``store.delete_source`` does)."""
    root = Path(folder).expanduser().resolve().as_posix().rstrip("/") + "/"
    if isinstance(store, ListsSourcesBelow):
        pairs = store.sources_below(root)
    else:
        pairs = _origins_below(store, root)
    return [Vanished(sid, origin) for sid, origin in pairs if not os.path.isfile(origin)]


def _origins_below(store: Store, root: str) -> list[tuple[str, str]]:
    """``Store.sources_below`` for a store without it: each source's row read."""
    found = []
    for source_id in sorted(store.stats()["per_source"]):
        row = store.get_source(source_id) or {}
        meta = row.get("metadata") or {}
        origin = meta.get("origin") if isinstance(meta, dict) else None
        if isinstance(origin, str) and origin.startswith(root):
            found.append((source_id, origin))
    return found


def vanished_line(
    folder: str | Path,
    vanished: list[Vanished],
    remove: str = "`jw rag delete --source ID` removes one",
) -> str:
    """One line naming the stored sources of ``folder`` whose file is gone (a
    few ids, then how many more) and how to remove each (``remove``)."""
    ids = ", ".join(repr(v.source_id) for v in vanished[:VANISHED_SHOWN])
    more = len(vanished) - VANISHED_SHOWN
    if more > 0:
        ids += f" and {more} more"
    held = "1 stored source" if len(vanished) == 1 else f"{len(vanished)} stored sources"
    verb = "has" if len(vanished) == 1 else "have"
    return (
        f"{folder}: {held} of this folder {verb} no file any more ({ids}), kept in the store: "
        f"{remove}"
    )
