"""A JWPUB or backup whose member's data stops early (a file cut short, or
changed while it is read) is named as such: ``zipfile`` raises a bare
``EOFError`` there, and the line read "damaged in the archive ()"."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from jw_core.jwlibrary import read_jw_library_backup
from jw_core.jwpub import JwFormatError, read_jwpub
from tests.jwpub.jw_formats_builder import Doc, Note, backup_database, jwpub_database, zip_bytes

PAGE = "<html><body><article><p data-pid='1'>A paragraph of text.</p></article></body></html>"


def _cut_short(members: dict[str, bytes], member: str) -> bytes:
    """A ZIP of ``members`` (stored, ``member`` the last) whose local header
    for ``member`` puts its data past the end of the file, as a file cut short
    (or changed while read) does: its data ends before it starts."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        header = zf.getinfo(member).header_offset
    data = bytearray(buf.getvalue())
    assert data[header : header + 4] == b"PK\x03\x04"
    data[header + 28 : header + 30] = struct.pack("<H", 0xFFFF)  # the extra field's length
    return bytes(data)


def test_a_jwpub_whose_contents_end_early(tmp_path: Path) -> None:
    db = jwpub_database([Doc(1, 1, "T", PAGE)], symbol="tp", year=2024, meps_language_index=0)
    path = tmp_path / "cut.jwpub"
    path.write_bytes(
        _cut_short({"manifest.json": b"{}", "contents": zip_bytes({"tp.db": db})}, "contents")
    )
    with pytest.raises(JwFormatError) as info:
        read_jwpub(path)
    assert str(info.value) == (
        f"{path}: contents is damaged in the archive (its data ends early); copy the file again"
    )


def test_a_backup_whose_database_ends_early(tmp_path: Path) -> None:
    manifest = b'{"userDataBackup": {"databaseName": "userData.db"}}'
    db = backup_database([Note("g1", "T", "Body")])
    path = tmp_path / "cut.jwlibrary"
    path.write_bytes(_cut_short({"manifest.json": manifest, "userData.db": db}, "userData.db"))
    with pytest.raises(JwFormatError) as info:
        read_jw_library_backup(path)
    assert str(info.value) == (
        f"{path}: userData.db is damaged in the archive (its data ends early); copy the file again"
    )
