"""read_jw_library_backup on backups written by jw_formats_builder."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_core.jwlibrary import JwNote, NoteLocation, read_jw_library_backup
from jw_core.jwpub import JwFormatError
from tests.jwpub.jw_formats_builder import BackupSchema, Note, write_backup

NOTES = [
    Note(
        "guid-john",
        "God's love",
        "He gave his only-begotten Son.\n\nCompare 1 John 4:8.",
        tags=("love", "study"),
        location=("nwtsty", 43, 3, None, 0),
        block=(2, 16),
    ),
    Note(
        "guid-w",
        "Watchtower point",
        "Endurance brings approval.",
        tags=("study",),
        location=("w", None, None, 2024201, 20240100),
        block=(1, 5),
    ),
    Note(
        "guid-hl",
        "",
        "Anchored only through a highlight.",
        location=("lff", None, None, 1102021801, 0),
        highlight=(1, 12, 0, 9),
    ),
    Note("guid-free", "Loose thought", "No location at all."),
    Note("guid-empty", "", "   "),  # nothing to keep
]


def test_notes_tags_and_locations(tmp_path: Path) -> None:
    backup = read_jw_library_backup(write_backup(tmp_path / "b.jwlibrary", NOTES))
    assert backup.schema_version == 14
    assert backup.skipped == ()
    assert backup.tags == ("love", "study")
    assert backup.notes == (
        JwNote(
            1, "guid-john", "God's love", "He gave his only-begotten Son.\n\nCompare 1 John 4:8.",
            tags=("love", "study"),
            location=NoteLocation(
                key_symbol="nwtsty", meps_language=0, book_number=43, chapter_number=3, verse=16
            ),
            last_modified="2025-01-02T03:04:05+00:00",
        ),
        JwNote(
            2, "guid-w", "Watchtower point", "Endurance brings approval.", tags=("study",),
            location=NoteLocation(
                key_symbol="w", meps_language=0, document_id=2024201, paragraph=5,
                issue_tag_number=20240100,
            ),
            last_modified="2025-01-02T03:04:05+00:00",
        ),
        JwNote(
            3, "guid-hl", "", "Anchored only through a highlight.",
            location=NoteLocation(
                key_symbol="lff", meps_language=0, document_id=1102021801, paragraph=12
            ),
            last_modified="2025-01-02T03:04:05+00:00",
        ),
        JwNote(4, "guid-free", "Loose thought", "No location at all.",
               last_modified="2025-01-02T03:04:05+00:00"),
    )  # fmt: skip
    assert [(h.user_mark_id, h.ranges) for h in backup.highlights] == [(3, ((1, 12, 0, 9),))]
    assert backup.notes[0].location is not None
    assert backup.notes[0].location.to_dict() == {
        "key_symbol": "nwtsty", "meps_language": 0, "book_number": 43, "chapter_number": 3,
        "verse": 16,
    }  # fmt: skip


def test_missing_optional_tables_are_skipped(tmp_path: Path) -> None:
    schema = BackupSchema(drop_tables=("Location", "Tag", "TagMap", "UserMark", "BlockRange"))
    backup = read_jw_library_backup(write_backup(tmp_path / "old.jwlibrary", NOTES, schema=schema))
    assert backup.skipped == ("Location", "Tag", "TagMap", "UserMark", "BlockRange")
    assert [n.guid for n in backup.notes] == ["guid-john", "guid-w", "guid-hl", "guid-free"]
    assert all(n.tags == () for n in backup.notes)
    # the block identifier alone still anchors a note (no Location row to say more)
    assert backup.notes[0].location == NoteLocation(verse=16)
    assert backup.notes[1].location == NoteLocation(paragraph=5)
    assert backup.notes[3].location is None


def test_missing_note_columns_are_skipped(tmp_path: Path) -> None:
    schema = BackupSchema(note_columns=("NoteId", "Guid", "Content"))
    backup = read_jw_library_backup(write_backup(tmp_path / "min.jwlibrary", NOTES, schema=schema))
    assert [(n.guid, n.title, n.location, n.last_modified) for n in backup.notes] == [
        ("guid-john", "", None, None),
        ("guid-w", "", None, None),
        ("guid-hl", "", None, None),
        ("guid-free", "", None, None),
    ]
    assert backup.notes[0].tags == ("love", "study")


def test_schema_version_falls_back_to_user_version(tmp_path: Path) -> None:
    schema = BackupSchema(user_version=8)
    declared = write_backup(tmp_path / "a.jwlibrary", NOTES[:1], schema=schema, schema_version=13)
    undeclared = write_backup(
        tmp_path / "b.jwlibrary", NOTES[:1], schema=schema, schema_version=None
    )
    assert read_jw_library_backup(declared).schema_version == 13
    assert read_jw_library_backup(undeclared).schema_version == 8


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (BackupSchema(drop_tables=("Note",)), "unknown JW Library schema (no Note table)"),
        (BackupSchema(note_columns=("NoteId", "Guid")), "a Note table without Title or Content"),
    ],
)
def test_unknown_schema_is_refused(tmp_path: Path, schema: BackupSchema, expected: str) -> None:
    path = write_backup(tmp_path / "new.jwlibrary", NOTES, schema=schema)
    with pytest.raises(JwFormatError) as err:
        read_jw_library_backup(path)
    assert expected in str(err.value) and str(path) in str(err.value)


def test_bad_backups(tmp_path: Path) -> None:
    not_zip = tmp_path / "a.jwlibrary"
    not_zip.write_text("hello")
    with pytest.raises(JwFormatError, match="not a ZIP archive"):
        read_jw_library_backup(not_zip)
    no_manifest = write_backup(tmp_path / "b.jwlibrary", NOTES)
    import zipfile

    with zipfile.ZipFile(no_manifest, "w") as z:
        z.writestr("userData.db", b"x")
    with pytest.raises(JwFormatError, match="not a JW Library backup"):
        read_jw_library_backup(no_manifest)
    truncated = write_backup(
        tmp_path / "c.jwlibrary", NOTES, database=b"SQLite format 3\x00" + b"\0" * 40
    )
    with pytest.raises(JwFormatError, match="damaged or truncated"):
        read_jw_library_backup(truncated)
    no_db = write_backup(tmp_path / "d.jwlibrary", NOTES, manifest={"userDataBackup": {}})
    with zipfile.ZipFile(no_db, "w") as z:
        z.writestr("manifest.json", "{}")
    with pytest.raises(JwFormatError, match="holds no userData.db"):
        read_jw_library_backup(no_db)


def test_reading_does_not_touch_the_backup(tmp_path: Path) -> None:
    path = write_backup(tmp_path / "b.jwlibrary", NOTES)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    read_jw_library_backup(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert [p.name for p in tmp_path.iterdir()] == ["b.jwlibrary"]


def test_a_jwpub_is_not_a_backup(tmp_path: Path) -> None:
    from tests.jwpub.jw_formats_builder import Doc, write_jwpub

    pub = write_jwpub(tmp_path / "tp.jwpub", [Doc(1, 2, "T", "<p>x</p>")])
    with pytest.raises(JwFormatError, match="holds no userData.db; not a JW Library backup"):
        read_jw_library_backup(pub)


_line = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40
).filter(lambda t: t.strip() == t and t)


@settings(max_examples=25, deadline=None)
@given(
    notes=st.lists(
        st.tuples(
            _line, st.lists(_line, min_size=1, max_size=3), st.lists(_line, max_size=3, unique=True)
        ),
        min_size=1,
        max_size=6,
    )
)
def test_written_notes_read_back(tmp_path_factory: pytest.TempPathFactory, notes: list) -> None:
    written = [
        Note(f"g{i}", title, "\n".join(body), tags=tuple(tags))
        for i, (title, body, tags) in enumerate(notes)
    ]
    path = write_backup(tmp_path_factory.mktemp("h") / "b.jwlibrary", written)
    got = read_jw_library_backup(path).notes
    assert [(n.guid, n.title, n.body, n.tags) for n in got] == [
        (w.guid, w.title, w.content, w.tags) for w in written
    ]
