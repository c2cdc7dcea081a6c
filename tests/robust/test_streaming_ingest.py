"""Ingest whose memory does not grow with the source (issue 30, part 5): a
JWPUB's inner database reaches its private temporary file a piece at a
time, and a big source's units are let go once they are staged, each case
stored whole or not at all."""

from __future__ import annotations

import os
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from tests.jwpub.jw_formats_builder import Doc, jwpub_database, write_jwpub

MB = 1_000_000

XHTML = (
    '<html><body><article><h1 data-pid="1">Water</h1>'
    '<p data-pid="2">Gardens need water every morning, and the soil keeps it.</p>'
    "</article></body></html>"
)


def _padded_database(padding: int) -> bytes:
    """A real publication's database with ``padding`` bytes of random BLOBs beside
    its tables (random: the archive cannot shrink them, as images in a real one)."""
    data = jwpub_database([Doc(1, 101, "Water", XHTML)], symbol="tp", year=2024,
                          meps_language_index=0)  # fmt: skip
    conn = sqlite3.connect(":memory:")
    conn.deserialize(data)
    conn.execute("CREATE TABLE Padding (Blob BLOB)")
    for _ in range(padding // MB):
        conn.execute("INSERT INTO Padding VALUES (?)", (os.urandom(MB),))
    conn.commit()
    out = bytes(conn.serialize())
    conn.close()
    return out


def test_a_jwpubs_inner_database_is_streamed_to_a_temporary_file(tmp_path: Path) -> None:
    from jw_core.jwpub import read_jwpub

    db = _padded_database(48 * MB)
    path = write_jwpub(tmp_path / "big.jwpub", [], database=db)
    del db
    assert path.stat().st_size > 48 * MB
    tracemalloc.start()
    try:
        pub = read_jwpub(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [d.meps_document_id for d in pub.documents] == [101]
    assert "Gardens need water" in pub.documents[0].xhtml
    assert peak < 12 * MB, f"read_jwpub held {peak / MB:.0f} MB of a 48 MB database"


def test_a_broken_inner_database_is_still_one_named_error(tmp_path: Path) -> None:
    from jw_core.jwpub import JwFormatError, read_jwpub

    path = write_jwpub(tmp_path / "bad.jwpub", [], database=b"not a database at all" * 100)
    with pytest.raises(JwFormatError, match=r"bad\.jwpub: contents: tp\.db is not a SQLite"):
        read_jwpub(path)


def test_a_small_file_is_read_without_reserving_the_size_cap(tmp_path: Path) -> None:
    from jw_rag.ingest._source import read_path

    path = tmp_path / "small.txt"
    path.write_bytes(b"Gardens need water.\n\n" * 50_000)  # about 1 MB
    tracemalloc.start()
    try:
        loaded = read_path(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert loaded.data == path.read_bytes()
    assert peak < 4 * MB, f"reading 1 MB held {peak / MB:.0f} MB"  # was the 256 MiB cap


def test_a_file_over_the_source_cap_is_still_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jw_rag.ingest._source as source
    from jw_rag.errors import IngestError

    monkeypatch.setattr(source, "MAX_SOURCE_BYTES", 1000)
    (tmp_path / "at.txt").write_bytes(b"a" * 1000)
    (tmp_path / "over.txt").write_bytes(b"a" * 1001)
    (tmp_path / "empty.txt").write_bytes(b"")
    assert len(source.read_path(tmp_path / "at.txt").data) == 1000
    assert source.read_path(tmp_path / "empty.txt").data == b""
    with pytest.raises(IngestError, match=r"over\.txt is larger than 1000 bytes; split it"):
        source.read_path(tmp_path / "over.txt")
