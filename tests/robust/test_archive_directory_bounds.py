"""An archive that lists more members than a book or a publication holds is
refused from its end record, before ``zipfile`` reads its directory (which
holds an entry object per member: an 88 MB EPUB of a million empty members
took 1.3 GB). Every archive kind: EPUB, JWPUB (and its ``contents``), backup;
the store keeps what it held, and a folder's other files are still ingested
with ``--skip-bad``."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_core import MAX_ARCHIVE_MEMBERS, MAX_DIRECTORY_BYTES, directory_problem
from jw_core.jwpub import JwFormatError, read_jwpub
from tests.jwpub.jw_formats_builder import Doc, jwpub_database, zip_bytes
from tests.robust.hostile_files import CHAPTER, CONTAINER, OPF, snapshot

GOOD_TEXT = "Gardens need water every morning.\n\nThe soil keeps it for the roots.\n"
PAGE = "<html><body><article><p data-pid='1'>A paragraph of text.</p></article></body></html>"
EPUB = {
    "mimetype": b"application/epub+zip",
    "META-INF/container.xml": CONTAINER,
    "content.opf": OPF,
    "ch1.xhtml": CHAPTER,
}


def _zip(members: dict[str, bytes], *, empty: int = 0, long_names: int = 0) -> bytes:
    """``members``, then ``empty`` empty members, then ``long_names`` empty
    members named with 9,000 characters each (a large directory of few members)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for i in range(empty):
            zf.writestr(str(i), b"")
        for i in range(long_names):
            zf.writestr(f"{i:08d}" + "n" * 9_000, b"")
    return buf.getvalue()


@pytest.fixture(scope="module")
def crowded_epub() -> bytes:
    return _zip(EPUB, empty=MAX_ARCHIVE_MEMBERS)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    path = tmp_path / "store.sqlite"
    (tmp_path / "kept.txt").write_text(GOOD_TEXT, "utf-8")
    assert main(["--store", str(path), "rag", "ingest", "text", str(tmp_path / "kept.txt")]) == 0
    return path


def test_the_end_record_is_read_as_zipfile_reads_it(crowded_epub: bytes) -> None:
    members = MAX_ARCHIVE_MEMBERS + 4
    assert directory_problem(io.BytesIO(crowded_epub)) == (
        f"lists {members:,} members (more than the {MAX_ARCHIVE_MEMBERS:,} one archive may hold)"
    )
    fp = io.BytesIO(zip_bytes(EPUB))
    fp.seek(7)
    assert directory_problem(fp) is None and fp.tell() == 7  # left where it was
    assert directory_problem(io.BytesIO(b"not an archive")) is None
    # few members, a large directory: the bytes zipfile would read are what count
    big = _zip(EPUB, long_names=MAX_DIRECTORY_BYTES // 9_000 + 1)
    assert len(zipfile.ZipFile(io.BytesIO(big)).namelist()) < 1_000
    assert "has a directory of" in (directory_problem(io.BytesIO(big)) or "")


def _as_zip64(data: bytes) -> bytes:
    """``data`` (a ZIP without a comment) ended by ZIP64 records: the plain
    end record's counts saturated, the real ones in the ZIP64 end record."""
    body, end = data[:-22], data[-22:]
    members, directory, offset = struct.unpack("<HIIxx", end[10:])
    record = struct.pack(
        "<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, members, members, directory, offset
    )
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, len(body), 1)
    saturated = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 2**32 - 1, 2**32 - 1, 0
    )
    return body + record + locator + saturated


def test_a_zip64_archive_is_measured_by_its_zip64_record(crowded_epub: bytes) -> None:
    small = _as_zip64(zip_bytes(EPUB))
    with zipfile.ZipFile(io.BytesIO(small)) as zf:
        assert len(zf.namelist()) == 4  # read as zipfile reads it
    assert directory_problem(io.BytesIO(small)) is None  # not the saturated 65,535
    crowded = directory_problem(io.BytesIO(_as_zip64(crowded_epub))) or ""
    assert crowded.startswith(f"lists {MAX_ARCHIVE_MEMBERS + 4:,} members")


def test_a_crowded_epub_is_refused_in_one_line_and_the_store_is_unchanged(
    tmp_path: Path, store: Path, crowded_epub: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "crowded.epub"
    book.write_bytes(crowded_epub)
    before = snapshot(store)
    capsys.readouterr()
    for command in (["rag", "ingest", "epub", str(book)], ["rag", "chunk", str(book)]):
        assert main(["--store", str(store), *command]) == 1
        err = capsys.readouterr().err
        assert err == (
            f"error: {book} lists {MAX_ARCHIVE_MEMBERS + 4:,} members (more than the "
            f"{MAX_ARCHIVE_MEMBERS:,} one archive may hold); it is not a publication this reads\n"
        )
    assert snapshot(store) == before


def test_a_crowded_jwpub_and_its_contents_are_refused(tmp_path: Path) -> None:
    db = jwpub_database([Doc(1, 1, "T", PAGE)], symbol="tp", year=2024, meps_language_index=0)
    outer = tmp_path / "outer.jwpub"
    outer.write_bytes(
        _zip(
            {"manifest.json": b"{}", "contents": zip_bytes({"tp.db": db})},
            empty=MAX_ARCHIVE_MEMBERS,
        )
    )
    inner = tmp_path / "inner.jwpub"
    inner.write_bytes(
        zip_bytes(
            {"manifest.json": b"{}", "contents": _zip({"tp.db": db}, empty=MAX_ARCHIVE_MEMBERS)}
        )
    )
    with pytest.raises(JwFormatError, match=rf"^{outer} lists 50,002 members .*genuine file$"):
        read_jwpub(outer)
    with pytest.raises(JwFormatError, match=rf"^{inner}: contents lists 50,001 members "):
        read_jwpub(inner)


def test_skip_bad_ingests_the_other_books_of_the_folder(
    tmp_path: Path, store: Path, crowded_epub: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    books = tmp_path / "books"
    books.mkdir()
    (books / "crowded.epub").write_bytes(crowded_epub)
    (books / "fine.epub").write_bytes(zip_bytes(EPUB))
    capsys.readouterr()
    assert main(["--store", str(store), "rag", "ingest", "epub", str(books), "--skip-bad"]) == 0
    out = capsys.readouterr().out
    assert "books/fine/ch1: 1 chunk" in out
    assert f"skipped {books / 'crowded.epub'} lists 50,004 members (more than the 50,000" in out
    assert main(["--store", str(store), "rag", "ingest", "text", str(tmp_path / "kept.txt")]) == 0
    assert "kept: 1 chunk" in capsys.readouterr().out  # still stored, unchanged
