"""Ingest whose memory does not grow with the source (issue 30, part 5): a
JWPUB's inner database reaches its private temporary file a piece at a
time, and a big source's units are let go once they are staged, each case
stored whole or not at all."""

from __future__ import annotations

import os
import sqlite3
import tracemalloc
from pathlib import Path

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
    import pytest

    from jw_core.jwpub import JwFormatError, read_jwpub

    path = write_jwpub(tmp_path / "bad.jwpub", [], database=b"not a database at all" * 100)
    with pytest.raises(JwFormatError, match=r"bad\.jwpub: contents: tp\.db is not a SQLite"):
        read_jwpub(path)
