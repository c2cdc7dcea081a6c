"""Readers of untrusted structured data (JSON manifests, XML in EPUB, SQLite
inside JWPUB and backups, zlib inside JWPUB) turn recursion, size and format
tricks into one-line IngestErrors; nothing is written."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from jw_core import jwpub as jwpub_module
from jw_rag.embed.fake import FakeEmbedder
from jw_rag.errors import IngestError
from jw_rag.ingest import ingest_epub, ingest_jw_library_backup, ingest_jwpub
from jw_rag.store import SQLiteStore
from tests.jwpub.jw_formats_builder import Doc, write_jwpub
from tests.robust.hostile_files import (
    CHAPTER,
    DEEP,
    ENDLESS_VIEW,
    LAUGHS,
    backup_with_database,
    backup_with_manifest,
    deep_json,
    epub_bytes,
    jwpub_with_database,
    jwpub_with_manifest,
    sqlite_bytes,
)


def _epub(path: Path, **parts: bytes) -> Path:
    path.write_bytes(epub_bytes(**parts))
    return path


ENDLESS_PUBLICATION = (
    "CREATE VIEW Publication AS SELECT i AS MepsLanguageIndex, 'x' AS Symbol, "
    f"2000 AS Year FROM ({ENDLESS_VIEW}) WHERE i < 0"
)
ENDLESS_NOTES = (
    "CREATE VIEW Note AS SELECT i AS NoteId, 'x' AS Title, 'y' AS Content "
    f"FROM ({ENDLESS_VIEW}) WHERE i < 0"
)

Writer = Callable[[Path], Path]
CASES: list[tuple[str, Writer, Callable, str]] = [
    (
        "jwpub-deep-manifest",
        lambda d: jwpub_with_manifest(d / "p.jwpub", deep_json()),
        ingest_jwpub,
        "manifest.json nests too deeply to read",
    ),
    (
        "backup-deep-manifest",
        lambda d: backup_with_manifest(d / "b.jwlibrary", deep_json()),
        ingest_jw_library_backup,
        "manifest.json nests too deeply to read",
    ),
    (
        "jwpub-huge-manifest",
        lambda d: jwpub_with_manifest(d / "p.jwpub", b'{"a": "' + b"x" * 2_000_000 + b'"}'),
        ingest_jwpub,
        "manifest.json is 2000009 bytes, more than the 1048576",
    ),
    (
        "jwpub-recursive-view",
        lambda d: jwpub_with_database(d / "p.jwpub", sqlite_bytes(ENDLESS_PUBLICATION)),
        ingest_jwpub,
        "reading the database takes more than 50000000 steps (a recursive view?)",
    ),
    (
        "backup-recursive-view",
        lambda d: backup_with_database(d / "b.jwlibrary", sqlite_bytes(ENDLESS_NOTES)),
        ingest_jw_library_backup,
        "reading the database takes more than 50000000 steps (a recursive view?)",
    ),
    (
        "backup-truncated-db",
        lambda d: backup_with_database(
            d / "b.jwlibrary", sqlite_bytes(ENDLESS_NOTES)[:100] + b"\x00" * 3000
        ),
        ingest_jw_library_backup,
        "the database is damaged or truncated",
    ),
    (
        "epub-deep-opf",
        lambda d: _epub(
            d / "e.epub", opf=b"<package>" + b"<a>" * DEEP + b"</a>" * DEEP + b"</package>"
        ),
        ingest_epub,
        "a decompression bomb",
    ),
    (
        "epub-deep-opf-small",  # deep enough for any parser, too small to look like a bomb
        lambda d: _epub(
            d / "e.epub", opf=b"<package>" + b"<a>" * 20_000 + b"</a>" * 20_000 + b"</package>"
        ),
        ingest_epub,
        "is a broken EPUB",
    ),
    (
        "epub-entity-bomb-container",
        lambda d: _epub(d / "e.epub", container=LAUGHS + b"<container>&lol9;</container>"),
        ingest_epub,
        "is a broken EPUB",
    ),
    (
        "epub-entity-bomb-opf",
        lambda d: _epub(d / "e.epub", opf=LAUGHS + b"<package>&lol9;</package>"),
        ingest_epub,
        "is a broken EPUB",
    ),
]


@pytest.mark.parametrize(("name", "write", "ingest", "message"), CASES, ids=[c[0] for c in CASES])
def test_hostile_structured_data_is_a_one_line_ingest_error(
    tmp_path: Path, name: str, write: Writer, ingest: Callable, message: str
) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    path = write(tmp_path)
    with pytest.raises(IngestError) as info:
        ingest(store, path)
    text = str(info.value)
    assert message in text and str(path) in text and "\n" not in text
    assert store.stats()["chunks"] == 0


def test_a_zlib_bomb_document_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bomb = "<html><body><p>" + "x" * 5_000_000 + "</p></body></html>"
    assert len(zlib.compress(bomb.encode())) < 10_000
    path = write_jwpub(tmp_path / "bomb.jwpub", [Doc(1, 1, "Bomb", bomb)])
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    with pytest.raises(IngestError, match=r"document 1 content inflates more than 200 times"):
        ingest_jwpub(store, path)
    monkeypatch.setattr(jwpub_module, "MAX_MEMBER_RATIO", 10**6)
    monkeypatch.setattr(jwpub_module, "MAX_DOCUMENT_BYTES", 1_000_000)
    with pytest.raises(
        IngestError, match=r"document 1 content inflates past 1000000 bytes; this is not a genuine"
    ):
        ingest_jwpub(store, path)
    assert store.stats()["chunks"] == 0


def test_epub_chapter_nested_past_the_parser_limit_is_one_line(tmp_path: Path) -> None:
    deep = CHAPTER.replace(b"<p>", b"<div>" * DEEP + b"<p>").replace(
        b"</p>", b"</p>" + b"</div>" * DEEP
    )
    path = _epub(tmp_path / "deep.epub", chapter=deep)
    with pytest.raises(IngestError) as info:
        ingest_epub(SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16)), path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
