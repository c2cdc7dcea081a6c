"""Writers of hostile files, one function per trick, shared by the reader tests
and the CLI / MCP suite. Every file is generated here, in a temp dir."""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from tests.jwpub.jw_formats_builder import Doc, jwpub_database, write_backup, write_jwpub, zip_bytes

DEEP = 200_000  # nesting far past any parser's recursion limit

CONTAINER = b"""<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/>
</rootfiles></container>"""

OPF = b"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">x</dc:identifier>
<dc:title>T</dc:title><dc:language>en</dc:language></metadata>
<manifest><item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="c1"/></spine></package>"""

CHAPTER = b"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>C</title></head>
<body><h1>One</h1><p>A paragraph of the chapter.</p></body></html>"""

LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lololololololololol">'
    + b"".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'.encode()
        for i in range(1, 10)
    )
    + b"]>\n"
)


def epub_bytes(
    *, container: bytes = CONTAINER, opf: bytes = OPF, chapter: bytes = CHAPTER
) -> bytes:
    return zip_bytes(
        {
            "mimetype": b"application/epub+zip",
            "META-INF/container.xml": container,
            "content.opf": opf,
            "ch1.xhtml": chapter,
        }
    )


def deep_json(depth: int = DEEP) -> bytes:
    return b"[" * depth + b"]" * depth


def deep_html(depth: int = DEEP) -> bytes:
    return (
        b"<html><body><article>"
        + b"<div>" * depth
        + b"<p>deep</p>"
        + b"</div>" * depth
        + b"</article></body></html>"
    )


def sqlite_bytes(*statements: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "db.sqlite"
        conn = sqlite3.connect(path)
        for statement in statements:
            conn.execute(statement)
        conn.commit()
        conn.close()
        return path.read_bytes()


ENDLESS_VIEW = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"


def jwpub_with_manifest(path: Path, manifest: bytes) -> Path:
    doc = Doc(1, 1, "T", "<html><body><p>x</p></body></html>")
    db = jwpub_database([doc], symbol="tp", year=2024, meps_language_index=0)
    path.write_bytes(zip_bytes({"manifest.json": manifest, "contents": zip_bytes({"tp.db": db})}))
    return path


def jwpub_with_database(path: Path, db: bytes) -> Path:
    return write_jwpub(path, [], database=db)


def backup_with_manifest(path: Path, manifest: bytes) -> Path:
    db = sqlite_bytes("CREATE TABLE Note (NoteId INTEGER, Title TEXT, Content TEXT)")
    path.write_bytes(zip_bytes({"manifest.json": manifest, "userData.db": db}))
    return path


def backup_with_database(path: Path, db: bytes) -> Path:
    return write_backup(path, [], database=db)


# -- one hostile file per case, for every ingest kind ------------------------

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 40
_PAGE = "<html><body><article><p>{}</p></article></body></html>"


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def hostile_files(folder: Path) -> list[tuple[str, str, Path]]:
    """``(case, kind, path)`` for every hostile file, written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    d = folder
    endless_pub = (
        "CREATE VIEW Publication AS SELECT i AS MepsLanguageIndex, 'x' AS Symbol, "
        f"2000 AS Year FROM ({ENDLESS_VIEW}) WHERE i < 0"
    )
    endless_notes = (
        "CREATE VIEW Note AS SELECT i AS NoteId, 'x' AS Title, 'y' AS Content "
        f"FROM ({ENDLESS_VIEW}) WHERE i < 0"
    )
    good_db = jwpub_database(
        [Doc(1, 1, "T", _PAGE.format("text"))], symbol="tp", year=2024, meps_language_index=0
    )
    wrong_key = jwpub_database(
        [Doc(1, 1, "T", _PAGE.format("text"))],
        symbol="tp",
        year=2024,
        meps_language_index=0,
        key_card=(1, "zz", 1999, 0),
    )
    cases: list[tuple[str, str, Path]] = [
        ("article-empty", "article", _write(d / "a1.html", b"")),
        ("article-binary", "article", _write(d / "a2.html", PNG)),
        ("article-cp1252", "article", _write(d / "a3.html", _PAGE.format("Canción").encode("cp1252"))),
        ("article-no-paragraphs", "article", _write(d / "a4.html", b"<html><body><div/></body></html>")),
        ("article-deep", "article", _write(d / "a5.html", deep_html())),
        ("article-missing", "article", d / "absent.html"),
        ("article-folder-of-nothing", "article", _mkdir(d / "empty-folder")),
        ("bible-empty", "bible", _write(d / "b1.html", b"  ")),
        ("bible-binary", "bible", _write(d / "b2.html", PNG)),
        ("bible-no-verses", "bible", _write(d / "b3.html", _PAGE.format("no verses").encode())),
        ("bible-deep", "bible", _write(d / "b4.html", deep_html())),
        ("bible-cp1252", "bible", _write(d / "b5.html", "Génesis 1 ñ".encode("cp1252"))),
        ("epub-not-zip", "epub", _write(d / "e1.epub", b"plain text, not a zip")),
        ("epub-zip-no-container", "epub", _write(d / "e2.epub", zip_bytes({"a.txt": b"x"}))),
        ("epub-deep-opf", "epub", _write(d / "e3.epub", epub_bytes(opf=b"<package>" + b"<a>" * DEEP + b"</a>" * DEEP + b"</package>"))),
        ("epub-entity-bomb-container", "epub", _write(d / "e4.epub", epub_bytes(container=LAUGHS + b"<container>&lol9;</container>"))),
        ("epub-entity-bomb-opf", "epub", _write(d / "e5.epub", epub_bytes(opf=LAUGHS + b"<package>&lol9;</package>"))),
        ("epub-no-text", "epub", _write(d / "e6.epub", epub_bytes(chapter=b"<html><body><img/></body></html>"))),
        ("epub-truncated", "epub", _write(d / "e7.epub", epub_bytes()[:300])),
        ("pdf-empty", "pdf", _write(d / "p1.pdf", b"")),
        ("pdf-text", "pdf", _write(d / "p2.pdf", b"this is not a PDF at all\n")),
        ("pdf-truncated", "pdf", _write(d / "p3.pdf", b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog")),
        ("pdf-garbage", "pdf", _write(d / "p4.pdf", b"%PDF-1.7\n" + PNG)),
        ("pdf-zip", "pdf", _write(d / "p5.pdf", zip_bytes({"a": b"b"}))),
        ("markdown-empty", "markdown", _write(d / "m1.md", b"\n\n   \n")),
        ("markdown-binary", "markdown", _write(d / "m2.md", PNG)),
        ("markdown-cp1252", "markdown", _write(d / "m3.md", "# Canción\n\nÁrbol".encode("cp1252"))),
        ("markdown-utf16-broken", "markdown", _write(d / "m4.md", b"\xff\xfe" + b"\x00\xd8" * 3)),
        ("text-html", "text", _write(d / "t1.txt", _PAGE.format("markup").encode())),
        ("text-pdf", "text", _write(d / "t2.txt", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")),
        ("text-epub", "text", _write(d / "t3.txt", epub_bytes())),
        ("text-zip", "text", _write(d / "t4.txt", zip_bytes({"a.txt": b"x"}))),
        ("text-empty", "text", _write(d / "t5.txt", b"")),
        ("text-nul-early", "text", _write(d / "t6.txt", b"abc\x00def" * 10)),
        ("text-cp1252", "text", _write(d / "t7.txt", "Coração".encode("cp1252"))),
        ("jwpub-deep-manifest", "jwpub", jwpub_with_manifest(d / "j1.jwpub", deep_json())),
        ("jwpub-huge-manifest", "jwpub", jwpub_with_manifest(d / "j2.jwpub", b'{"a":"' + b"x" * 1_100_000 + b'"}')),
        ("jwpub-recursive-view", "jwpub", jwpub_with_database(d / "j3.jwpub", sqlite_bytes(endless_pub))),
        ("jwpub-truncated-db", "jwpub", jwpub_with_database(d / "j4.jwpub", good_db[:200] + b"\x00" * 5000)),
        ("jwpub-not-zip", "jwpub", _write(d / "j5.jwpub", b"not a zip")),
        ("jwpub-no-contents", "jwpub", _write(d / "j6.jwpub", zip_bytes({"manifest.json": b"{}"}))),
        ("jwpub-wrong-key", "jwpub", jwpub_with_database(d / "j7.jwpub", wrong_key)),
        ("jwpub-manifest-not-json", "jwpub", jwpub_with_manifest(d / "j8.jwpub", b"{\x00 nope")),
        ("backup-deep-manifest", "backup", backup_with_manifest(d / "k1.jwlibrary", deep_json())),
        ("backup-recursive-view", "backup", backup_with_database(d / "k2.jwlibrary", sqlite_bytes(endless_notes))),
        ("backup-truncated-db", "backup", backup_with_database(d / "k3.jwlibrary", good_db[:200] + b"\x00" * 5000)),
        ("backup-no-manifest", "backup", _write(d / "k4.jwlibrary", zip_bytes({"userData.db": good_db}))),
        ("backup-no-note-table", "backup", backup_with_database(d / "k5.jwlibrary", sqlite_bytes("CREATE TABLE Tag (TagId INTEGER)"))),
        ("backup-not-sqlite", "backup", backup_with_database(d / "k6.jwlibrary", b"SQLite format 2 nope" * 10)),
    ]  # fmt: skip
    return cases


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "readme.json").write_text("{}", "utf-8")
    return path


def snapshot(store: Path) -> dict[str, Any]:
    """Integrity, counts and a SHA-256 over every row of every table, read-only."""
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchall()
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )]  # fmt: skip
        digest = hashlib.sha256()
        for table in tables:
            rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
            digest.update(table.encode())
            for row in sorted(repr(r) for r in rows):
                digest.update(row.encode("utf-8", "surrogatepass"))
        return {
            "integrity": integrity,
            "chunks": conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0],
            "sources": conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0],
            "rows": digest.hexdigest(),
        }
    finally:
        conn.close()


__all__ = [
    "CHAPTER",
    "CONTAINER",
    "DEEP",
    "ENDLESS_VIEW",
    "LAUGHS",
    "OPF",
    "backup_with_database",
    "backup_with_manifest",
    "deep_html",
    "deep_json",
    "epub_bytes",
    "hostile_files",
    "jwpub_with_database",
    "jwpub_with_manifest",
    "snapshot",
    "sqlite_bytes",
]
