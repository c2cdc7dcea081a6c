"""JW Library backups: the user's notes, one source per note.

Each note is its own source, ``"jwlibrary:note:{guid}"`` (notes of one backup
sharing a GUID each get ``:{NoteId}`` after it): notes are edited one at a time, so re-ingesting a newer backup rewrites only the notes whose text,
tags or anchor changed (the content hash covers all three), and a hit names
exactly one note. A note's paragraphs are its title (a ``heading``) and each
non-blank line of its body.

Every chunk of a note carries in its metadata ``note_guid``, ``tags`` (list of
names, in the app's order), ``location`` (the fields of
:class:`jw_core.jwlibrary.NoteLocation` that are set: Bible book/chapter/verse
or publication key symbol/document id/paragraph) and ``last_modified``.

A note deleted in the app stays in the store until ``store.delete_source`` is
called with its source id: a backup says what exists, not what was removed.
Highlights carry no text and are not indexed.

The language is the caller's, else detected per note, else detected over all
notes of the backup (short notes give little evidence).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from jw_core import detect_language
from jw_core.jwlibrary import JwLibraryBackup, JwNote, read_jw_library_backup
from jw_core.jwpub import JwFormatError
from jw_rag.errors import IngestError
from jw_rag.ingest._identity import DISTINCT_ID_KEY, settle_source_ids
from jw_rag.ingest._local import open_local
from jw_rag.ingest._source import check_paragraphs, clean_controls
from jw_rag.ingest.pipeline import (
    ChunkerArg,
    IngestResult,
    check_language,
    chunk_document,
    content_hash,
    resolve_chunker,
    with_language,
)
from jw_rag.model import Chunk, Document, Paragraph
from jw_rag.store import SourceWrite, replace_sources
from jw_rag.store.protocol import Store

__all__ = ["ingest_jw_library_backup", "note_document", "note_metadata", "parse_jw_library_backup"]


def note_metadata(note: JwNote) -> dict[str, Any]:
    """What every chunk of ``note`` carries besides the usual provenance."""
    return {
        "note_guid": note.guid,
        "tags": list(note.tags),
        "location": note.location.to_dict() if note.location else None,
        "last_modified": note.last_modified,
    }


def note_document(note: JwNote, *, source: str = "", language: str | None = None) -> Document:
    """``note`` as a Document: title heading, then one paragraph per body line."""
    paragraphs: list[Paragraph] = []
    path: tuple[str, ...] = ()
    title = clean_controls(note.title)
    if title:
        path = (title,)
        paragraphs.append(Paragraph(title, kind="heading", heading_path=path))
    for line in clean_controls(note.body).splitlines():
        if line.strip():
            paragraphs.append(Paragraph(line.strip(), heading_path=path, kind="note"))
            check_paragraphs(len(paragraphs), f"{source or 'the backup'}: note {note.guid}")
    if not any(p.kind != "heading" for p in paragraphs):  # a title-only note
        paragraphs = [Paragraph(title, kind="note")]
    meta: dict[str, Any] = {"source": source, "format": "jwlibrary", "note_guid": note.guid}
    if note.last_modified:
        meta["last_modified"] = note.last_modified
    meta[DISTINCT_ID_KEY] = f"jwlibrary:note:{note.guid}:{note.note_id}"
    return Document(
        source_id=f"jwlibrary:note:{note.guid}",
        paragraphs=paragraphs,
        title=title,
        language=language,
        metadata=meta,
    )


def _read(path: str | Path) -> JwLibraryBackup:
    try:
        with open_local(path) as fh:
            return read_jw_library_backup(path, file=fh)
    except JwFormatError as exc:
        raise IngestError(str(exc)) from exc


def parse_jw_library_backup(
    path: str | Path, *, language: str | None = None
) -> list[tuple[Document, JwNote]]:
    """Every note of the backup at ``path`` as (Document, note), in NoteId order."""
    language = check_language(language)
    backup = _read(path)
    name = str(backup.path)
    notes = sorted(backup.notes, key=lambda n: n.note_id)
    if not notes:
        raise IngestError(f"{name}: the backup holds no notes to index")
    overall = None
    if not language:
        overall = detect_language(" ".join(f"{n.title} {n.body}" for n in notes)[:20000])
    out = []
    for note in notes:
        doc = note_document(note, source=name)
        if language:
            with_language(doc, language)
        else:
            doc.language = detect_language(f"{note.title} {note.body}") or overall
        out.append((doc, note))
    return out


def _note_hash(doc: Document, chunks_hash: str, extra: dict[str, Any]) -> str:
    h = hashlib.sha256(chunks_hash.encode("ascii"))
    h.update(json.dumps(extra, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()


def ingest_jw_library_backup(
    store: Store,
    path: str | Path,
    *,
    language: str | None = None,
    chunker: ChunkerArg = None,
) -> list[IngestResult]:
    """Parse, chunk and store every note of a ``.jwlibrary`` backup, in one
    transaction; one result per note."""
    resolved = resolve_chunker(chunker)
    parsed = parse_jw_library_backup(path, language=language)
    settle_source_ids(store, [doc for doc, _ in parsed])
    prepared: list[tuple[Document, list[Chunk]]] = []
    writes: list[SourceWrite] = []
    for doc, note in parsed:
        extra = note_metadata(note)
        chunks = chunk_document(doc, chunker=resolved)
        for c in chunks:
            c.metadata.update(extra)
        source_meta = {
            k: v for k, v in doc.metadata.items() if isinstance(v, str | int | float | bool)
        }
        source_meta.update(title=doc.title, language=doc.language, chunker=resolved.name)
        source_meta["tags"] = ", ".join(note.tags)
        digest = _note_hash(doc, content_hash(doc, resolved), extra)
        prepared.append((doc, chunks))
        writes.append(SourceWrite(doc.source_id, chunks, digest, source_metadata=source_meta))
    changed = replace_sources(store, writes)
    return [
        IngestResult(
            source_id=doc.source_id,
            chunks=len(chunks),
            skipped=not done,
            chunker=resolved.name,
            language=chunks[0].metadata.get("language") if chunks else doc.language,
        )
        for (doc, chunks), done in zip(prepared, changed, strict=True)
    ]
