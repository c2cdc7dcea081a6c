"""JW Library backups (``.jwlibrary``): the user's notes, tags and highlights.

A backup is a ZIP archive holding ``manifest.json`` and a SQLite database
(``userData.db``, named by ``manifest["userDataBackup"]["databaseName"]``).
It holds what the user wrote and marked, not publication text.

The schema differs between app versions, so it is read defensively: a missing
optional table (``Location``, ``Tag``, ``TagMap``, ``UserMark``,
``BlockRange``) or column is skipped. Only a database without a usable
``Note`` table (no ``Title`` nor ``Content`` column) is refused as an unknown
schema.

Where a note points: ``Location`` gives either a Bible chapter (``BookNumber``,
``ChapterNumber``) or a publication document (``KeySymbol``, ``DocumentId``,
``IssueTagNumber``); the note's ``BlockType``/``BlockIdentifier`` (or, when
those are empty, the block range of its highlight) name the verse (block type
2) or the paragraph ``data-pid`` (block type 1) inside it.

Reading never writes into the user's file (see :mod:`jw_core.jwpub`).
"""

from __future__ import annotations

import sqlite3
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from jw_core._bounded import MAX_TEXT_BYTES
from jw_core.jwpub import (
    JwFormatError,
    member_database,
    open_archive,
    read_manifest,
    table_columns,
)

__all__ = [
    "BLOCK_PARAGRAPH",
    "BLOCK_VERSE",
    "JwHighlight",
    "JwLibraryBackup",
    "JwNote",
    "NoteLocation",
    "read_jw_library_backup",
]

#: ``BlockType`` values: the identifier is a paragraph's ``data-pid`` / a verse number.
BLOCK_PARAGRAPH = 1
BLOCK_VERSE = 2


@dataclass(frozen=True, slots=True)
class NoteLocation:
    """Where a note or highlight points; fields the backup lacks are None."""

    key_symbol: str | None = None
    meps_language: int | None = None
    book_number: int | None = None
    chapter_number: int | None = None
    verse: int | None = None
    document_id: int | None = None
    paragraph: int | None = None  # the data-pid of the paragraph
    issue_tag_number: int | None = None
    title: str | None = None

    @property
    def is_bible(self) -> bool:
        return self.book_number is not None

    def to_dict(self) -> dict[str, Any]:
        """The fields that are set, as JSON-ready values."""
        return {k: getattr(self, k) for k in self.__slots__ if getattr(self, k) is not None}


@dataclass(frozen=True, slots=True)
class JwNote:
    """One note: its own text plus where it is anchored and how it is tagged."""

    note_id: int
    guid: str
    title: str
    body: str
    tags: tuple[str, ...] = ()
    location: NoteLocation | None = None
    last_modified: str | None = None


@dataclass(frozen=True, slots=True)
class JwHighlight:
    """One highlight (``UserMark``) and the token ranges it covers."""

    user_mark_id: int
    guid: str | None
    color_index: int | None
    location: NoteLocation | None
    ranges: tuple[tuple[int | None, int | None, int | None, int | None], ...] = ()
    # each range: (block_type, identifier, start_token, end_token)


@dataclass(frozen=True, slots=True)
class JwLibraryBackup:
    """What :func:`read_jw_library_backup` found in one backup."""

    path: Path
    manifest: dict[str, Any] = field(default_factory=dict)
    schema_version: int | None = None
    notes: tuple[JwNote, ...] = ()
    highlights: tuple[JwHighlight, ...] = ()
    tags: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # optional tables absent from this schema


def _int(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


class _Reader:
    """Column-aware SELECTs over one userData.db connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.columns: dict[str, set[str]] = {}

    def has(self, table: str) -> bool:
        return bool(self.cols(table))

    def cols(self, table: str) -> set[str]:
        if table not in self.columns:
            self.columns[table] = table_columns(self.conn, table)
        return self.columns[table]

    def rows(self, table: str, wanted: tuple[str, ...]) -> list[dict[str, Any]]:
        """Every row of ``table`` with the ``wanted`` columns (absent ones read as None)."""
        present = [c for c in wanted if c in self.cols(table)]
        if not present:
            return []
        cursor = self.conn.execute(f"SELECT {', '.join(present)} FROM {table}")
        out = []
        for row in cursor:
            record = dict.fromkeys(wanted)
            record.update(zip(present, row, strict=True))
            out.append(record)
        return out


_LOCATION_COLUMNS = (
    "LocationId", "BookNumber", "ChapterNumber", "DocumentId", "Track", "IssueTagNumber",
    "KeySymbol", "MepsLanguage", "Type", "Title",
)  # fmt: skip
_NOTE_COLUMNS = (
    "NoteId", "Guid", "UserMarkId", "LocationId", "Title", "Content", "LastModified",
    "BlockType", "BlockIdentifier",
)  # fmt: skip


def _locations(reader: _Reader) -> dict[int, dict[str, Any]]:
    return {
        r["LocationId"]: r
        for r in reader.rows("Location", _LOCATION_COLUMNS)
        if r["LocationId"] is not None
    }


def _location(
    row: dict[str, Any] | None, block_type: int | None, identifier: int | None
) -> NoteLocation | None:
    if row is None and identifier is None:
        return None
    row = row or {}
    book = _int(row.get("BookNumber"))
    verse = identifier if block_type == BLOCK_VERSE or (book and block_type is None) else None
    paragraph = identifier if block_type == BLOCK_PARAGRAPH else None
    return NoteLocation(
        key_symbol=_text(row.get("KeySymbol")),
        meps_language=_int(row.get("MepsLanguage")),
        book_number=book,
        chapter_number=_int(row.get("ChapterNumber")),
        verse=verse,
        document_id=_int(row.get("DocumentId")),
        paragraph=paragraph,
        issue_tag_number=_int(row.get("IssueTagNumber")) or None,
        title=_text(row.get("Title")),
    )


def _block_ranges(reader: _Reader) -> dict[int, list[tuple[int | None, ...]]]:
    out: dict[int, list[tuple[int | None, ...]]] = {}
    wanted = ("UserMarkId", "BlockType", "Identifier", "StartToken", "EndToken")
    for r in reader.rows("BlockRange", wanted):
        mark = _int(r["UserMarkId"])
        if mark is not None:
            out.setdefault(mark, []).append(
                tuple(_int(r[c]) for c in ("BlockType", "Identifier", "StartToken", "EndToken"))
            )
    return out


def _note_tags(reader: _Reader) -> dict[int, list[str]]:
    names = {
        r["TagId"]: str(r["Name"])
        for r in reader.rows("Tag", ("TagId", "Name"))
        if r["TagId"] is not None and r["Name"]
    }
    tagged: dict[int, list[tuple[int, str]]] = {}
    for r in reader.rows("TagMap", ("NoteId", "TagId", "Position")):
        note, tag = _int(r["NoteId"]), r["TagId"]
        if note is not None and tag in names:
            tagged.setdefault(note, []).append((_int(r["Position"]) or 0, names[tag]))
    return {note: [name for _, name in sorted(pairs)] for note, pairs in tagged.items()}


def _notes(
    reader: _Reader, locations: dict[int, dict[str, Any]], ranges: dict[int, list[Any]]
) -> tuple[JwNote, ...]:
    tags = _note_tags(reader)
    notes = []
    for r in reader.rows("Note", _NOTE_COLUMNS):
        title, body = str(r["Title"] or "").strip(), str(r["Content"] or "").strip()
        if not title and not body:
            continue
        note_id = _int(r["NoteId"]) or 0
        block_type, identifier = _int(r["BlockType"]), _int(r["BlockIdentifier"])
        mark = _int(r["UserMarkId"])
        if identifier is None and mark in ranges and ranges[mark]:
            block_type, identifier = ranges[mark][0][0], ranges[mark][0][1]
        loc_row = locations.get(r["LocationId"]) if r["LocationId"] is not None else None
        notes.append(
            JwNote(
                note_id=note_id,
                guid=str(r["Guid"] or f"note-{note_id}"),
                title=title,
                body=body,
                tags=tuple(tags.get(note_id, ())),
                location=_location(loc_row, block_type, identifier),
                last_modified=_text(r["LastModified"]),
            )
        )
    return tuple(notes)


def _highlights(
    reader: _Reader, locations: dict[int, dict[str, Any]], ranges: dict[int, list[Any]]
) -> tuple[JwHighlight, ...]:
    out = []
    wanted = ("UserMarkId", "UserMarkGuid", "ColorIndex", "LocationId")
    for r in reader.rows("UserMark", wanted):
        mark = _int(r["UserMarkId"])
        if mark is None:
            continue
        loc_row = locations.get(r["LocationId"]) if r["LocationId"] is not None else None
        out.append(
            JwHighlight(
                user_mark_id=mark,
                guid=_text(r["UserMarkGuid"]),
                color_index=_int(r["ColorIndex"]),
                location=_location(loc_row, None, None) if loc_row else None,
                ranges=tuple(ranges.get(mark, ())),  # type: ignore[arg-type]
            )
        )
    return tuple(out)


def _manifest(archive: zipfile.ZipFile, name: str) -> dict[str, Any]:
    manifest = read_manifest(archive, name)
    if manifest is None:
        raise JwFormatError(
            f"{name} is a ZIP archive but not a JW Library backup (no manifest.json); "
            "pass a .jwlibrary file made by the app's Backup command"
        )
    return manifest


def _database_member(archive: zipfile.ZipFile, manifest: dict[str, Any], name: str) -> str:
    members = archive.namelist()
    backup = manifest.get("userDataBackup")
    declared = backup.get("databaseName") if isinstance(backup, dict) else None
    for candidate in (declared, "userData.db"):
        if isinstance(candidate, str) and candidate in members:
            return candidate
    dbs = [m for m in members if m.lower().endswith(".db")]
    if not dbs:
        raise JwFormatError(f"{name}: the archive holds no userData.db; not a JW Library backup")
    return dbs[0]


def _schema_version(manifest: dict[str, Any], conn: sqlite3.Connection) -> int | None:
    backup = manifest.get("userDataBackup")
    declared = backup.get("schemaVersion") if isinstance(backup, dict) else None
    if declared is not None:
        return _int(declared)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    return int(version) or None


_OPTIONAL_TABLES = ("Location", "Tag", "TagMap", "UserMark", "BlockRange")


def read_jw_library_backup(path: str | Path, *, file: IO[bytes] | None = None) -> JwLibraryBackup:
    """Notes (with tags and locations), highlights and tag names of a ``.jwlibrary``
    backup; read from ``file`` (a seekable binary file already opened) when given,
    ``path`` then only naming it."""
    p = Path(path).expanduser()
    name = str(p)
    archive = open_archive(p if file is None else file, name)
    with archive:
        manifest = _manifest(archive, name)
        member = _database_member(archive, manifest, name)
        with member_database(archive, member, name) as conn:
            return _read_backup(conn, p, manifest)


def _check_note_sizes(conn: sqlite3.Connection, columns: set[str], name: str) -> None:
    """Refuse a note whose title and text hold more than :data:`MAX_TEXT_BYTES`,
    measured in the database before any note is read: each value's size comes
    from an incremental blob handle, which reads none of it (``length()`` would
    load the whole value, twice over)."""
    sized = [c for c in ("Title", "Content") if c in columns]
    guid = "Guid" if "Guid" in columns else "NULL"
    try:
        notes = conn.execute(f"SELECT rowid, {guid} FROM Note").fetchall()
    except sqlite3.OperationalError:  # a view or a table without rowids: measure in SQL
        notes = None
    if notes is None:
        sizes = " + ".join(f"COALESCE(length({c}), 0)" for c in sized)
        query = f"SELECT {guid}, {sizes} FROM Note WHERE {sizes} > ? LIMIT 1"
        row = conn.execute(query, (MAX_TEXT_BYTES,)).fetchone()
    else:
        row = next(
            (
                (g, n)
                for rowid, g in notes
                if (n := _stored_size(conn, sized, rowid)) > MAX_TEXT_BYTES
            ),
            None,
        )
    if row is not None:
        raise JwFormatError(
            f"{name}: note {row[0] or '(no guid)'} holds {row[1] // 1024**2} MiB of text, more "
            f"than the {MAX_TEXT_BYTES // 1024**2} MiB one note may hold; shorten or split "
            "it in JW Library and back up again"
        )


def _stored_size(conn: sqlite3.Connection, columns: list[str], rowid: int) -> int:
    """Bytes stored in ``columns`` of the note at ``rowid`` (text or blob; else 0)."""
    total = 0
    for column in columns:
        try:
            with conn.blobopen("Note", column, rowid, readonly=True) as blob:
                total += len(blob)
        except sqlite3.OperationalError:  # NULL or a number: nothing large
            pass
    return total


def _read_backup(conn: sqlite3.Connection, p: Path, manifest: dict[str, Any]) -> JwLibraryBackup:
    name = str(p)
    reader = _Reader(conn)
    note_cols = reader.cols("Note")
    if not note_cols & {"Title", "Content"}:
        found = "no Note table" if not note_cols else "a Note table without Title or Content"
        raise JwFormatError(
            f"{name}: unknown JW Library schema ({found}); this backup's app version "
            "is not supported"
        )
    _check_note_sizes(conn, note_cols, name)
    locations = _locations(reader)
    ranges = _block_ranges(reader)
    notes = _notes(reader, locations, ranges)
    highlights = _highlights(reader, locations, ranges)
    tags = tuple(str(r["Name"]) for r in reader.rows("Tag", ("Name",)) if r["Name"])
    skipped = tuple(t for t in _OPTIONAL_TABLES if not reader.has(t))
    version = _schema_version(manifest, conn)
    return JwLibraryBackup(
        path=p,
        manifest=manifest,
        schema_version=version,
        notes=notes,
        highlights=highlights,
        tags=tags,
        skipped=skipped,
    )
