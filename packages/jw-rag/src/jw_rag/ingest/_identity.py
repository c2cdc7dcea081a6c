"""Source identity: where each source came from, and the rule that keeps two
origins from sharing one source id by accident.

A source's *origin* is the absolute path of the file it was read from, or its
URL (without the fragment). It is stored in the source's metadata
(``"origin"``). Re-ingesting a source id whose stored origin differs from the
new one is refused with a one-line :class:`~jw_rag.errors.IngestError` naming
both, unless ``replace=True`` (``--replace``); two sources of one ingest that
would get the same id are always refused.

JWPUB documents and JW Library notes carry ids built from what they are
(symbol, year, document and language; the note's GUID), not from a file name,
so they have no origin and are never refused.

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

from jw_rag.errors import IngestError
from jw_rag.ingest._source import is_url
from jw_rag.model import Document

__all__ = ["CONTENT_ID_FORMATS", "DEFAULT_ID_KEY", "origin_of", "settle_source_ids"]

#: Formats whose source ids come from their content, not from where they were read.
CONTENT_ID_FORMATS = frozenset({"jwpub", "jwlibrary"})

#: Transient ``Document.metadata`` flag: the id is a folder ingest's default (never stored).
DEFAULT_ID_KEY = "_folder_default_id"


def _canonical(source: str) -> str:
    if is_url(source):
        parts = urlsplit(source)
        return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))
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


def _stored(store: Any, source_id: str) -> dict[str, Any] | None:
    get_source = getattr(store, "get_source", None)
    if get_source is None:  # a store that cannot say what it holds: nothing to compare
        return None
    found = get_source(source_id)
    return found if isinstance(found, dict) else None


def _stored_origin(found: dict[str, Any]) -> str | None:
    meta = found.get("metadata") or {}
    origin = meta.get("origin") if isinstance(meta, dict) else None
    return origin if isinstance(origin, str) and origin else None


def _legacy_id(store: Any, doc: Document, origin: str) -> str | None:
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


def settle_source_ids(store: Any, docs: Sequence[Document], *, replace: bool = False) -> set[str]:
    """Record each document's origin and check its id against the store and the
    other documents (module docstring); raises before anything is written.

    Returns the ids replaced from another origin (``replace=True``): those are
    rewritten even when their content is unchanged, so the new origin is stored."""
    moved: set[str] = set()
    seen: dict[str, str | None] = {}
    for doc in docs:
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
        if stored is not None and stored != origin:
            if replace:
                moved.add(doc.source_id)
                continue
            raise IngestError(
                f"source {doc.source_id!r} was ingested from {stored}; refusing to replace it "
                f"with {origin}: give this one another id (--source-id / source_id=) or "
                "replace it (--replace / replace=True)"
            )
    for doc in docs:
        origin = doc.metadata.get("origin") if origin_of(doc) is not None else None
        if doc.source_id in seen and seen[doc.source_id] != origin:
            raise IngestError(
                f"two sources would share the id {doc.source_id!r}: {seen[doc.source_id]} and "
                f"{origin}; ingest them separately, each with its own --source-id"
            )
        seen[doc.source_id] = origin
    return moved
