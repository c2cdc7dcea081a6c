"""Writers for test files: a JWPUB built with the documented algorithm (compress,
pad, encrypt with the key of the publication card) and a JW Library backup
holding notes we wrote. Neither uses the readers under test, except that
``encrypt`` defaults to :func:`jw_core.jwpub.encrypt_content`, whose output is
pinned to OpenSSL's in test_jwpub_vectors.py."""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from jw_core.jwpub import derive_key_iv, encrypt_content


@dataclass
class Doc:
    document_id: int
    meps_document_id: int
    title: str
    xhtml: str


def _db_bytes(build: Callable[[sqlite3.Connection], None]) -> bytes:
    conn = sqlite3.connect(":memory:")
    build(conn)
    conn.commit()
    data = conn.serialize()
    conn.close()
    return bytes(data)


def jwpub_database(
    docs: Sequence[Doc],
    *,
    symbol: str,
    year: int,
    meps_language_index: int,
    issue_tag_number: int = 0,
    title: str = "Test Publication",
    key_card: tuple[int, str, int, int] | None = None,
) -> bytes:
    """The inner SQLite database; ``key_card`` encrypts with another publication's key."""
    card = key_card or (meps_language_index, symbol, year, issue_tag_number)
    key, iv = derive_key_iv(*card)

    def build(conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE Publication (PublicationId INTEGER PRIMARY KEY, VersionNumber INTEGER, "
            "Type INTEGER, Title TEXT, ShortTitle TEXT, Symbol TEXT, Year INTEGER, "
            "MepsLanguageIndex INTEGER, IssueTagNumber INTEGER)"
        )
        conn.execute(
            "INSERT INTO Publication VALUES (1, 1, 1, ?, ?, ?, ?, ?, ?)",
            (title, title, symbol, year, meps_language_index, issue_tag_number),
        )
        conn.execute(
            "CREATE TABLE Document (DocumentId INTEGER PRIMARY KEY, PublicationId INTEGER, "
            "MepsDocumentId INTEGER, MepsLanguageIndex INTEGER, Class TEXT, Type INTEGER, "
            "Title TEXT, Content BLOB)"
        )
        for d in docs:
            blob = encrypt_content(d.xhtml, key, iv) if d.xhtml else None
            conn.execute(
                "INSERT INTO Document VALUES (?, 1, ?, ?, '13', 0, ?, ?)",
                (d.document_id, d.meps_document_id, meps_language_index, d.title, blob),
            )

    return _db_bytes(build)


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def write_jwpub(
    path: Path,
    docs: Sequence[Doc],
    *,
    symbol: str = "tp",
    year: int = 2024,
    meps_language_index: int = 0,
    issue_tag_number: int = 0,
    title: str = "Test Publication",
    key_card: tuple[int, str, int, int] | None = None,
    database: bytes | None = None,
) -> Path:
    db = (
        database
        if database is not None
        else jwpub_database(
            docs,
            symbol=symbol,
            year=year,
            meps_language_index=meps_language_index,
            issue_tag_number=issue_tag_number,
            title=title,
            key_card=key_card,
        )
    )
    manifest = {
        "name": path.name,
        "version": 1,
        "contentFormat": "z-a",
        "publication": {
            "fileName": f"{symbol}.db",
            "title": title,
            "symbol": symbol,
            "language": meps_language_index,
            "year": year,
            "issueId": issue_tag_number,
        },
    }
    contents = zip_bytes({f"{symbol}.db": db})
    path.write_bytes(
        zip_bytes({"manifest.json": json.dumps(manifest).encode(), "contents": contents})
    )
    return path


@dataclass
class Note:
    guid: str
    title: str
    content: str
    tags: tuple[str, ...] = ()
    # (KeySymbol, BookNumber, ChapterNumber, DocumentId, IssueTagNumber)
    location: tuple[str | None, int | None, int | None, int | None, int] | None = None
    block: tuple[int, int] | None = None  # (BlockType, BlockIdentifier)
    last_modified: str = "2025-01-02T03:04:05+00:00"
    highlight: tuple[int, int, int, int] | None = None  # (BlockType, Identifier, start, end)


@dataclass
class BackupSchema:
    """What to leave out, to imitate older or newer app versions."""

    drop_tables: tuple[str, ...] = ()
    note_columns: tuple[str, ...] = (
        "NoteId", "Guid", "UserMarkId", "LocationId", "Title", "Content", "LastModified",
        "BlockType", "BlockIdentifier",
    )  # fmt: skip
    user_version: int = 0  # PRAGMA user_version of the database


def backup_database(notes: Sequence[Note], schema: BackupSchema | None = None) -> bytes:
    schema = schema or BackupSchema()
    tables = {
        "Location": "LocationId INTEGER PRIMARY KEY, BookNumber INTEGER, ChapterNumber INTEGER, "
        "DocumentId INTEGER, Track INTEGER, IssueTagNumber INTEGER, KeySymbol TEXT, "
        "MepsLanguage INTEGER, Type INTEGER, Title TEXT",
        "UserMark": "UserMarkId INTEGER PRIMARY KEY, ColorIndex INTEGER, LocationId INTEGER, "
        "StyleIndex INTEGER, UserMarkGuid TEXT, Version INTEGER",
        "BlockRange": "BlockRangeId INTEGER PRIMARY KEY, BlockType INTEGER, Identifier INTEGER, "
        "StartToken INTEGER, EndToken INTEGER, UserMarkId INTEGER",
        "Tag": "TagId INTEGER PRIMARY KEY, Type INTEGER, Name TEXT",
        "TagMap": "TagMapId INTEGER PRIMARY KEY, PlaylistItemId INTEGER, LocationId INTEGER, "
        "NoteId INTEGER, TagId INTEGER, Position INTEGER",
        "Bookmark": "BookmarkId INTEGER PRIMARY KEY, LocationId INTEGER, Title TEXT",
    }
    kinds = {"Guid": "TEXT", "Title": "TEXT", "Content": "TEXT", "LastModified": "TEXT"}

    def build(conn: sqlite3.Connection) -> None:
        conn.execute(f"PRAGMA user_version = {int(schema.user_version)}")
        for name, cols in tables.items():
            if name not in schema.drop_tables:
                conn.execute(f"CREATE TABLE {name} ({cols})")
        if "Note" not in schema.drop_tables:
            cols = [f"{c} {kinds.get(c, 'INTEGER')}" for c in schema.note_columns]
            conn.execute(f"CREATE TABLE Note ({', '.join(cols)})")
        tag_ids: dict[str, int] = {}
        for i, note in enumerate(notes, start=1):
            loc_id = mark_id = None
            if note.location is not None and "Location" not in schema.drop_tables:
                loc_id = i
                key, book, chapter, doc, issue = note.location
                conn.execute(
                    "INSERT INTO Location VALUES (?, ?, ?, ?, NULL, ?, ?, 0, 0, NULL)",
                    (loc_id, book, chapter, doc, issue, key),
                )
            if note.highlight is not None and "UserMark" not in schema.drop_tables:
                mark_id = i
                conn.execute(
                    "INSERT INTO UserMark VALUES (?, 1, ?, 0, ?, 1)", (mark_id, loc_id, f"m-{i}")
                )
                if "BlockRange" not in schema.drop_tables:
                    conn.execute(
                        "INSERT INTO BlockRange VALUES (NULL, ?, ?, ?, ?, ?)",
                        (*note.highlight, mark_id),
                    )
            values = {
                "NoteId": i, "Guid": note.guid, "UserMarkId": mark_id, "LocationId": loc_id,
                "Title": note.title, "Content": note.content, "LastModified": note.last_modified,
                "BlockType": note.block[0] if note.block else 0,
                "BlockIdentifier": note.block[1] if note.block else None,
            }  # fmt: skip
            if "Note" not in schema.drop_tables:
                cols = list(schema.note_columns)
                conn.execute(
                    f"INSERT INTO Note ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                    [values[c] for c in cols],
                )
            if "Tag" in schema.drop_tables or "TagMap" in schema.drop_tables:
                continue
            for pos, tag in enumerate(note.tags):
                if tag not in tag_ids:
                    tag_ids[tag] = len(tag_ids) + 1
                    conn.execute("INSERT INTO Tag VALUES (?, 1, ?)", (tag_ids[tag], tag))
                conn.execute(
                    "INSERT INTO TagMap VALUES (NULL, NULL, NULL, ?, ?, ?)", (i, tag_ids[tag], pos)
                )

    return _db_bytes(build)


def write_backup(
    path: Path,
    notes: Sequence[Note],
    *,
    schema: BackupSchema | None = None,
    schema_version: int | None = 14,
    database: bytes | None = None,
    manifest: dict | None = None,
) -> Path:
    db = database if database is not None else backup_database(notes, schema)
    if manifest is None:
        manifest = {
            "name": "UserDataBackup_test",
            "creationDate": "2025-01-02",
            "version": 1,
            "type": 0,
            "userDataBackup": {
                "lastModifiedDate": "2025-01-02T03:04:05+00:00",
                "deviceName": "test",
                "databaseName": "userData.db",
                "schemaVersion": schema_version,
            },
        }
    path.write_bytes(zip_bytes({"manifest.json": json.dumps(manifest).encode(), "userData.db": db}))
    return path
