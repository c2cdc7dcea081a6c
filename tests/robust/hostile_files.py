"""Writers of hostile files, one function per trick, shared by the reader tests
and the CLI / MCP suite. Every file is generated here, in a temp dir."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from jw_formats_builder import Doc, jwpub_database, write_backup, write_jwpub, zip_bytes

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
    "jwpub_with_database",
    "jwpub_with_manifest",
    "sqlite_bytes",
]
