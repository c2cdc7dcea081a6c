"""Source identity: where each source came from, and the rule that keeps two
origins from sharing one source id by accident.

A source's *origin* is the absolute path of the file it was read from, or its
URL (without the fragment). Links on the way to the file's folder are followed,
and a file that is itself a link keeps its own name: a folder's file replaced
by a link (to a file of the same or other content) is the same source on
re-ingest, not one from elsewhere; a source stored by an older version with
the link's target as its origin is the same source too, and records the
link's path. Where reads are confined to roots (the MCP server's), a link
leading outside them is refused when it is opened, before any origin is
compared. It is stored in the source's metadata
(``"origin"``). Re-ingesting a source id whose stored origin differs from the
new one is refused with a one-line :class:`~jw_rag.errors.IngestError` naming
both, unless ``replace=True`` (``--replace``); two sources of one ingest that
would get the same id are always refused.

JWPUB documents and JW Library notes carry ids built from what they are
(symbol, year, document and language; the note's GUID), not from a file name,
so they have no origin and are never refused for it.

Within one ingest no two documents share an id, so none overwrites another:
documents of one file that would (an EPUB's ``ch.xhtml`` and ``ch.html``, two
JWPUB documents with one MEPS document id, two notes with one GUID) each take
the distinct id their parser offers (:data:`DISTINCT_ID_KEY`: the chapter's
file name with its extension, ``...:doc<DocumentId>``, ``...:<NoteId>``), the
same in every run; any id still shared is refused before anything is written.

Stores written before origins were recorded: a source stored without one is
replaced as before, and records the new origin. When a folder ingest's id
(``es/alma``) is new but the store holds the id an older version gave the same
file (``alma``, stored from that very path), that id is kept, so re-ingesting
an existing library does not duplicate it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from jw_rag.errors import IngestError, shown_value
from jw_rag.ingest._source import is_url
from jw_rag.model import Document
from jw_rag.store.protocol import Store

__all__ = [
    "CONTENT_ID_FORMATS",
    "DEFAULT_ID_KEY",
    "DISTINCT_ID_KEY",
    "origin_of",
    "refuse_raw_name",
    "settle_source_ids",
]

#: Formats whose source ids come from their content, not from where they were read.
CONTENT_ID_FORMATS = frozenset({"jwpub", "jwlibrary"})

#: Transient ``Document.metadata`` flag: the id is a folder ingest's default (never stored).
DEFAULT_ID_KEY = "_folder_default_id"

#: Transient ``Document.metadata`` entry: the id a document takes when another
#: document of the same file in one ingest has its id (never stored).
DISTINCT_ID_KEY = "_distinct_id"


def _canonical(source: str) -> str:
    """A URL without its fragment; a path made absolute with the links on the
    way to its folder followed, but not a link that is the file itself: a
    folder's file replaced by a link keeps its origin (module docstring)."""
    if is_url(source):
        parts = urlsplit(source)
        return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))
    path = Path(source).expanduser()
    if path.name in ("", ".", ".."):
        return path.resolve().as_posix()
    return (path.parent.resolve() / path.name).as_posix()


def _resolved_origin(doc: Document) -> str | None:
    """The origin an older version recorded for ``doc``: its path with every
    link followed, the file's own too (``None`` for a URL or no path)."""
    source = doc.metadata.get("source")
    if not isinstance(source, str) or not source or is_url(source):
        return None
    return Path(source).expanduser().resolve().as_posix()


def origin_of(doc: Document) -> str | None:
    """Where ``doc`` came from (module docstring); ``None`` for content-id formats."""
    if doc.metadata.get("format") in CONTENT_ID_FORMATS:
        return None
    origin = doc.metadata.get("origin")
    if isinstance(origin, str) and origin:
        return origin
    source = doc.metadata.get("source")
    return _canonical(source) if isinstance(source, str) and source else None


def _stored(store: Store, source_id: str) -> dict[str, Any] | None:
    return store.get_source(source_id)


def _stored_origin(found: dict[str, Any]) -> str | None:
    meta = found.get("metadata") or {}
    origin = meta.get("origin") if isinstance(meta, dict) else None
    return origin if isinstance(origin, str) and origin else None


def _legacy_id(store: Store, doc: Document, origin: str) -> str | None:
    """The id an older version gave this file in a folder ingest (see module docstring)."""
    if "/" not in doc.source_id:
        return None
    legacy = doc.source_id.split("/", 1)[1]
    found = _stored(store, legacy)
    if found is None or _stored_origin(found) is not None:
        return None
    source = (found.get("metadata") or {}).get("source")
    if isinstance(source, str) and source and _canonical(source) == origin:
        return legacy
    return None


def _file_of(doc: Document) -> str | None:
    """The file or URL ``doc`` was read from (its origin, else its ``source``)."""
    source = doc.metadata.get("source")
    return origin_of(doc) or (str(source) if source else None)


def _distinct_ids(docs: Sequence[Document]) -> None:
    """Documents of one file sharing an id each take their distinct id (module docstring)."""
    groups: dict[str, list[Document]] = {}
    for doc in docs:
        groups.setdefault(doc.source_id, []).append(doc)
    for group in groups.values():
        if len(group) < 2 or len({_file_of(d) for d in group}) != 1:
            continue
        distinct = [d.metadata.get(DISTINCT_ID_KEY) for d in group]
        if all(isinstance(i, str) and i for i in distinct) and len(set(distinct)) == len(group):
            for doc, new_id in zip(group, distinct, strict=True):
                doc.source_id = str(new_id)
    for doc in docs:
        doc.metadata.pop(DISTINCT_ID_KEY, None)


def settle_source_ids(store: Store, docs: Sequence[Document], *, replace: bool = False) -> set[str]:
    """Make the documents' ids distinct, record each one's origin and check its
    id against the store and the other documents (module docstring); raises
    before anything is written.

    Returns the ids replaced from another origin (``replace=True``): those are
    rewritten even when their content is unchanged, so the new origin is stored."""
    _distinct_ids(docs)
    moved: set[str] = set()
    for doc in docs:
        _refuse_raw_bytes(doc)
        default_id = bool(doc.metadata.pop(DEFAULT_ID_KEY, False))
        origin = origin_of(doc)
        if origin is None:
            continue
        doc.metadata["origin"] = origin
        found = _stored(store, doc.source_id)
        if found is None and default_id:
            legacy = _legacy_id(store, doc, origin)
            if legacy is not None:
                doc.source_id = legacy
                continue
        stored = _stored_origin(found) if found is not None else None
        if stored is not None and stored != origin and stored == _resolved_origin(doc):
            moved.add(doc.source_id)  # the file's link target, as stored before: same file
            continue
        if stored is not None and stored != origin:
            if replace:
                moved.add(doc.source_id)
                continue
            raise IngestError(
                f"source {doc.source_id!r} was ingested from {stored}; refusing to replace it "
                f"with {origin}: {_other_id_fix(doc.source_id, default_id)}"
            )
    _refuse_shared(docs)
    return moved


def _other_id_fix(source_id: str, default_id: bool) -> str:
    """How to store a source whose id another origin holds: a single source
    takes another id; a folder's file takes its id from the folder's name,
    which --source-id cannot change (a folder refuses it)."""
    if default_id and "/" in source_id:
        folder = source_id.split("/", 1)[0]
        return (
            f"a folder's files take their ids from the folder's name ({folder}/...), so "
            "ingest this folder from a copy or link of another name, or replace them "
            "(--replace / replace=True)"
        )
    return (
        "give this one another id (--source-id / source_id=) or replace it "
        "(--replace / replace=True)"
    )


def _refuse_raw_bytes(doc: Document) -> None:
    """A document whose id or file cannot be stored (:func:`refuse_raw_name`)."""
    refuse_raw_name(_file_of(doc) or "", doc.source_id)


def refuse_raw_name(named: str, source_id: str) -> None:
    """A path that is not UTF-8 (decoded with ``surrogateescape``) can be read,
    but neither the id taken from it nor its origin can be stored (SQLite and
    PostgreSQL both keep UTF-8 text only): one line saying so and how to fix
    it, not a codec's message from the store. A folder checks each file with
    it before reading, so ``skip_bad`` leaves such a file out."""
    for value in (source_id, named):
        if value.isascii():
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise IngestError(
                f"{named or shown_value(source_id)}: the path is not UTF-8, which no store "
                "can keep as the source's id or origin: rename the file (or copy it) to a "
                "UTF-8 name"
            ) from None


def _refuse_shared(docs: Sequence[Document]) -> None:
    """A one-line IngestError for the first id two documents still share."""
    seen: dict[str, Document] = {}
    for doc in docs:
        first = seen.setdefault(doc.source_id, doc)
        if first is doc:
            continue
        a, b = _file_of(first), _file_of(doc)
        if a == b:
            raise IngestError(
                f"two documents of {a} would share the id {doc.source_id!r} and one would "
                "overwrite the other; nothing was stored: give the file to ingest a distinct "
                "id for each, or split it"
            )
        raise IngestError(
            f"two sources would share the id {doc.source_id!r}: {a} and {b}; ingest them "
            "separately, each with its own --source-id"
        )
