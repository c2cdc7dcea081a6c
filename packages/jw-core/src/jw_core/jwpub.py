"""JWPUB publications: read the metadata and the decrypted XHTML of every document.

A ``.jwpub`` file is a ZIP archive holding ``manifest.json`` (publication
metadata) and ``contents``, a second ZIP archive that holds one SQLite database
(``*.db``). In that database ``Publication`` names the publication
(``MepsLanguageIndex``, ``Symbol``, ``Year``, ``IssueTagNumber``) and each
``Document`` row holds one article, chapter or book as ``Content``.

``Content`` is XHTML that was zlib-compressed, padded (PKCS#7) and encrypted
with AES-128-CBC. Key and IV come from the publication card
``"{MepsLanguageIndex}_{Symbol}_{Year}"`` (with ``"_{IssueTagNumber}"``
appended when that is not zero): its SHA-256 digest XOR :data:`CARD_XOR` gives
32 bytes, the first 16 are the key and the last 16 the IV.

Reading never writes into the user's file: the database is copied out of the
archive into a private temporary file, opened with a read-only SQLite URI
(the file's name is gone once SQLite has opened it, so an interrupted read
leaves nothing behind).
Every problem raises :class:`JwFormatError` with a one-line message naming the
file.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from jw_core._bounded import MAX_TEXT_BYTES, TooLarge, directory_problem, inflate

__all__ = [
    "CARD_XOR",
    "MAX_DOCUMENTS",
    "MAX_DOCUMENT_BYTES",
    "MAX_MANIFEST_BYTES",
    "MAX_MEMBER_BYTES",
    "MAX_MEMBER_RATIO",
    "MAX_PUBLICATION_BYTES",
    "MAX_TEXT_BYTES",
    "MAX_SQL_STEPS",
    "MEPS_LANGUAGES",
    "ContentDecryptError",
    "ContentTooLargeError",
    "JwDocument",
    "JwFormatError",
    "JwPublication",
    "check_member",
    "decrypt_content",
    "derive_key_iv",
    "encrypt_content",
    "open_archive",
    "publication_card",
    "read_jwpub",
    "read_manifest",
    "read_member",
    "member_database",
    "readonly_database",
    "table_columns",
]

#: The fixed 32 bytes XORed with the SHA-256 digest of the publication card.
CARD_XOR = bytes.fromhex("11cbb5587e32846d4c26790c633da289f66fe5842a3a585ce1bc3a294af5ada7")

#: MEPS language indexes whose ISO code is known here (others: detect from the text).
MEPS_LANGUAGES: dict[int, str] = {0: "en", 1: "es"}

#: Largest inner member read into memory (a guard against archive bombs).
MAX_MEMBER_BYTES = 256 * 1024**2

#: Highest unpacked-to-packed ratio of a member over 1 MiB (real databases
#: compress a few times; a bomb of zeros a thousand times).
MAX_MEMBER_RATIO = 200

#: Largest ``manifest.json`` read (real ones are a few kilobytes).
MAX_MANIFEST_BYTES = 1024**2

#: Largest XHTML one ``Document`` row may inflate to (a guard against zlib bombs,
#: and the text one source may hold).
MAX_DOCUMENT_BYTES = MAX_TEXT_BYTES

#: The most ``Document`` rows one publication may hold: a real one holds a few
#: thousand at most, and each document read costs memory until the whole
#: publication is stored (a 6 MB file of 100,000 tiny ones took 640 MB).
MAX_DOCUMENTS = 50_000

#: Largest XHTML a whole publication may inflate to, all documents together.
MAX_PUBLICATION_BYTES = 256 * 1024**2

#: SQLite virtual-machine steps one database may take to read: reading a real
#: publication or backup takes a few million; a recursive view never ends.
MAX_SQL_STEPS = 50_000_000
_SQL_STEPS_PER_CHECK = 100_000


class JwFormatError(ValueError):
    """A JWPUB or JW Library file is not what it claims to be; the message names it."""


class ContentDecryptError(JwFormatError):
    """``Document.Content`` did not decrypt, unpad or inflate with the derived key."""


class ContentTooLargeError(ContentDecryptError):
    """``Document.Content`` inflates past :data:`MAX_DOCUMENT_BYTES` or
    :data:`MAX_MEMBER_RATIO` times its size (a zlib bomb)."""


@dataclass(frozen=True, slots=True)
class JwDocument:
    """One ``Document`` row with its content decrypted to XHTML."""

    document_id: int
    meps_document_id: int
    title: str
    xhtml: str


@dataclass(frozen=True, slots=True)
class JwPublication:
    """What :func:`read_jwpub` found in one ``.jwpub`` file."""

    path: Path
    symbol: str
    year: int
    meps_language_index: int
    issue_tag_number: int
    title: str
    language: str | None  # ISO code when the MEPS index is in MEPS_LANGUAGES
    manifest: dict[str, Any] = field(default_factory=dict)
    documents: tuple[JwDocument, ...] = ()


def publication_card(
    meps_language_index: int, symbol: str, year: int, issue_tag_number: int = 0
) -> str:
    """The string whose digest gives the key: ``"0_nwt_2013"``, ``"1_w22_2022_20220600"``."""
    parts = [str(int(meps_language_index)), str(symbol), str(int(year))]
    if int(issue_tag_number or 0):
        parts.append(str(int(issue_tag_number)))
    return "_".join(parts)


def derive_key_iv(
    meps_language_index: int, symbol: str, year: int, issue_tag_number: int = 0
) -> tuple[bytes, bytes]:
    """(key, iv), 16 bytes each, for a publication (see the module docstring)."""
    card = publication_card(meps_language_index, symbol, year, issue_tag_number)
    digest = hashlib.sha256(card.encode("utf-8")).digest()
    mixed = bytes(a ^ b for a, b in zip(digest, CARD_XOR, strict=True))
    return mixed[:16], mixed[16:]


def _cipher(key: bytes, iv: bytes) -> Cipher[modes.CBC]:
    if len(key) != 16 or len(iv) != 16:
        raise ValueError(f"AES-128-CBC needs a 16-byte key and IV, got {len(key)} and {len(iv)}")
    return Cipher(algorithms.AES(key), modes.CBC(iv))


def decrypt_content(blob: bytes, key: bytes, iv: bytes) -> str:
    """Decrypt, unpad and inflate ``blob``; the XHTML as text.

    Raises :class:`ContentDecryptError` when any step fails (a wrong key almost
    always breaks the padding or the zlib stream), :class:`ContentTooLargeError`
    when the content inflates past the size or ratio cap (it stops there).
    """
    data = bytes(blob)
    if not data or len(data) % 16:
        raise ContentDecryptError(
            f"content of {len(data)} bytes is not whole AES blocks (16 bytes each)"
        )
    decryptor = _cipher(key, iv).decryptor()
    padded = decryptor.update(data) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    try:
        compressed = unpadder.update(padded) + unpadder.finalize()
    except ValueError as exc:
        raise ContentDecryptError("content has invalid padding after decryption") from exc
    try:
        raw = inflate(compressed, limit=MAX_DOCUMENT_BYTES, ratio=MAX_MEMBER_RATIO)
    except zlib.error as exc:
        raise ContentDecryptError(f"decrypted content is not a zlib stream ({exc})") from exc
    except TooLarge as exc:
        raise ContentTooLargeError(f"content {exc}") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ContentDecryptError("decrypted content is not UTF-8 text") from exc


def encrypt_content(xhtml: str, key: bytes, iv: bytes, *, level: int = -1) -> bytes:
    """The inverse of :func:`decrypt_content`: compress (zlib ``level``), pad, encrypt."""
    padder = padding.PKCS7(128).padder()
    padded = padder.update(zlib.compress(xhtml.encode("utf-8"), level)) + padder.finalize()
    encryptor = _cipher(key, iv).encryptor()
    return encryptor.update(padded) + encryptor.finalize()


def open_archive(data: bytes | Path | IO[bytes], name: str) -> zipfile.ZipFile:
    """``data`` (bytes, a path or a seekable binary file) as a ZIP archive;
    anything else is a JwFormatError."""
    if isinstance(data, Path) and data.exists() and not data.is_dir() and not data.is_file():
        raise JwFormatError(f"{name} is not a regular file (a device, FIFO or socket); pass a file")
    try:
        source: Any = io.BytesIO(data) if isinstance(data, bytes) else data
        if isinstance(source, Path):
            with source.open("rb") as fh:
                _check_directory(fh, name)
        else:
            _check_directory(source, name)
        return zipfile.ZipFile(source)
    except JwFormatError:
        raise
    except FileNotFoundError as exc:
        raise JwFormatError(f"{name}: no such file; check the path") from exc
    except IsADirectoryError as exc:
        raise JwFormatError(f"{name} is a directory; pass a file") from exc
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise JwFormatError(
            f"{name} is not a ZIP archive ({_damage(exc)}); pass the file as saved"
        ) from exc


def _damage(exc: BaseException) -> str:
    """What went wrong reading an archive, never empty: ``zipfile`` raises a
    bare ``EOFError`` for a member whose data stops early (a file cut short
    or changed while it was read)."""
    if str(exc):
        return str(exc)
    return "its data ends early" if isinstance(exc, EOFError) else type(exc).__name__


def _check_directory(fp: IO[bytes], name: str) -> None:
    """Refuse an archive whose directory lists too many members, before
    ``zipfile`` reads it (:func:`jw_core._bounded.directory_problem`)."""
    problem = directory_problem(fp)
    if problem is not None:
        raise JwFormatError(f"{name} {problem}; this is not a genuine file")


def read_member(archive: zipfile.ZipFile, member: str, name: str) -> bytes:
    """The bytes of ``member``; a broken or oversized member is a JwFormatError."""
    info = check_member(archive, member, name)
    try:
        return archive.read(info)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise JwFormatError(
            f"{name}: {member} is damaged in the archive ({_damage(exc)}); copy the file again"
        ) from exc


def check_member(archive: zipfile.ZipFile, member: str, name: str) -> zipfile.ZipInfo:
    """The entry of ``member``, refused (JwFormatError) from the directory alone
    when it is larger than :data:`MAX_MEMBER_BYTES` or a decompression bomb."""
    info = archive.getinfo(member)
    if info.file_size > MAX_MEMBER_BYTES:
        raise JwFormatError(f"{name}: {member} is {info.file_size} bytes, too large to read")
    if info.file_size > 1024**2 and info.file_size > MAX_MEMBER_RATIO * max(info.compress_size, 1):
        raise JwFormatError(
            f"{name}: {member} unpacks {info.file_size // max(info.compress_size, 1)} times its "
            "size (a decompression bomb?); this is not a genuine file"
        )
    return info


@contextmanager
def readonly_database(data: bytes, name: str) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a SQLite database given as bytes (a private temp copy)."""
    with _private_database(lambda copy: copy.write(data), name) as conn:
        yield conn


@contextmanager
def member_database(
    archive: zipfile.ZipFile, member: str, name: str
) -> Iterator[sqlite3.Connection]:
    """:func:`readonly_database` of an archive member, unpacked into the private
    copy a piece at a time (never whole in memory); checked as
    :func:`read_member` checks it."""
    info = check_member(archive, member, name)

    def fill(copy: IO[bytes]) -> None:
        try:
            with archive.open(info) as source:
                shutil.copyfileobj(source, copy, 1024**2)
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as exc:
            raise JwFormatError(
                f"{name}: {member} is damaged in the archive ({_damage(exc)}); copy the file again"
            ) from exc

    with _private_database(fill, f"{name}: {member}") as conn:
        yield conn


@contextmanager
def _private_database(
    fill: Callable[[IO[bytes]], object], name: str
) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a private temporary file that ``fill`` writes.

    SQLite needs a file name, but only to open the file: the name is removed
    as soon as it has (before the copy is written), so a process killed while
    copying or reading leaves no file behind (on Windows, where an open file
    keeps its name, it is removed when closed)."""
    fd, named = tempfile.mkstemp(prefix="jw-db-", suffix=".db")
    path = Path(named)
    try:
        with os.fdopen(fd, "w+b") as copy:
            conn = _connect_readonly(path, name)
            try:
                try:
                    path.unlink()
                except OSError:  # Windows: removed once closed (finally below)
                    pass
                fill(copy)
                copy.flush()
                copy.seek(0)
                if copy.read(16) != b"SQLite format 3\x00":
                    raise JwFormatError(f"{name} is not a SQLite database")
                _rollback_mode(copy)
                with _guarded(conn, name):
                    yield conn
            finally:
                conn.close()
    finally:
        path.unlink(missing_ok=True)


def _rollback_mode(copy: IO[bytes]) -> None:
    """Mark the copy as a rollback-journal database when its header says WAL
    mode (byte 18 or 19 is 2): SQLite would then open ``-wal`` and ``-shm``
    files by the copy's name, which is gone, and fail. Only the database file
    was copied, so what is read is that file's rows either way."""
    copy.seek(18)
    if 2 in copy.read(2):
        copy.seek(18)
        copy.write(b"\x01\x01")
        copy.flush()


def _connect_readonly(path: Path, name: str) -> sqlite3.Connection:
    uri = f"file:{quote(str(path))}?mode=ro"
    try:
        return sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise JwFormatError(f"{name}: the database cannot be opened ({exc})") from exc


@contextmanager
def _guarded(conn: sqlite3.Connection, name: str) -> Iterator[sqlite3.Connection]:
    """``conn`` with a bound on the work one read may take, its errors one-line
    :class:`JwFormatError` naming the file."""
    steps = [0]

    def count_steps() -> int:  # a non-zero answer interrupts the running statement
        steps[0] += _SQL_STEPS_PER_CHECK
        return int(steps[0] > MAX_SQL_STEPS)

    conn.set_progress_handler(count_steps, _SQL_STEPS_PER_CHECK)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        yield conn
    except sqlite3.DatabaseError as exc:
        if steps[0] > MAX_SQL_STEPS:
            raise JwFormatError(
                f"{name}: reading the database takes more than {MAX_SQL_STEPS} steps "
                "(a recursive view?); this is not a genuine file"
            ) from exc
        raise JwFormatError(
            f"{name}: the database is damaged or truncated ({exc}); copy the file again"
        ) from exc
    except RecursionError as exc:
        raise JwFormatError(f"{name}: the database nests too deeply to read") from exc


def table_columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """The column names of ``table`` (empty when the table does not exist)."""
    rows = conn.execute(
        "SELECT name FROM pragma_table_info(?)", (table,)
    ).fetchall()  # fmt: skip
    return {r[0] for r in rows}


def read_manifest(archive: zipfile.ZipFile, name: str) -> dict[str, Any] | None:
    """The ``manifest.json`` object of ``archive``; None when the archive has none."""
    if "manifest.json" not in archive.namelist():
        return None
    size = archive.getinfo("manifest.json").file_size
    if size > MAX_MANIFEST_BYTES:
        raise JwFormatError(
            f"{name}: manifest.json is {size} bytes, more than the {MAX_MANIFEST_BYTES} a "
            "manifest can be; not a genuine file"
        )
    raw = read_member(archive, "manifest.json", name)
    try:
        value = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = str(exc).splitlines()[0]
        raise JwFormatError(f"{name}: manifest.json is not valid JSON ({reason})") from exc
    except RecursionError as exc:
        raise JwFormatError(
            f"{name}: manifest.json nests too deeply to read; not a genuine file"
        ) from exc
    if not isinstance(value, dict):
        raise JwFormatError(f"{name}: manifest.json does not hold a JSON object")
    return value


@contextmanager
def _inner_database(archive: zipfile.ZipFile, name: str) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the publication's database, unpacked from
    'contents' into a private temporary file a piece at a time (never whole in
    memory: :func:`member_database`)."""
    if "contents" not in archive.namelist():
        raise JwFormatError(
            f"{name} is a ZIP archive but not a JWPUB (no 'contents' member); "
            "pass a .jwpub publication file"
        )
    # never whole in memory: 'contents' also holds every image of the publication. It
    # goes to an anonymous temporary file first (seeking inside the compressed member
    # would unpack up to 16 MiB at a time to find its directory), then its database to
    # another one
    with tempfile.TemporaryFile(prefix="jw-contents-") as spool:
        try:
            with archive.open(check_member(archive, "contents", name)) as stream:
                shutil.copyfileobj(stream, spool, 1024**2)
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as exc:
            raise JwFormatError(
                f"{name}: contents is damaged in the archive ({_damage(exc)}); copy the file again"
            ) from exc
        spool.seek(0)
        with open_archive(spool, f"{name}: contents") as inner:
            dbs = [m for m in inner.namelist() if m.lower().endswith(".db")]
            if not dbs:
                raise JwFormatError(f"{name}: 'contents' holds no .db database; not a JWPUB")
            with member_database(inner, dbs[0], f"{name}: contents") as conn:
                yield conn


_PUBLICATION_COLUMNS = ("MepsLanguageIndex", "Symbol", "Year")


def _publication_row(conn: sqlite3.Connection, name: str) -> dict[str, Any]:
    columns = table_columns(conn, "Publication")
    missing = [c for c in _PUBLICATION_COLUMNS if c not in columns]
    if missing:
        raise JwFormatError(
            f"{name}: unknown JWPUB schema (table Publication lacks {', '.join(missing)})"
        )
    wanted = [c for c in (*_PUBLICATION_COLUMNS, "IssueTagNumber", "Title") if c in columns]
    row = conn.execute(f"SELECT {', '.join(wanted)} FROM Publication LIMIT 1").fetchone()
    if row is None:
        raise JwFormatError(f"{name}: the Publication table is empty")
    return dict(zip(wanted, row, strict=True))


def _documents(
    conn: sqlite3.Connection, key: bytes, iv: bytes, name: str
) -> tuple[JwDocument, ...]:
    columns = table_columns(conn, "Document")
    missing = [c for c in ("DocumentId", "Content") if c not in columns]
    if missing:
        raise JwFormatError(
            f"{name}: unknown JWPUB schema (table Document lacks {', '.join(missing)})"
        )
    (count,) = conn.execute("SELECT count(*) FROM Document").fetchone()
    if count > MAX_DOCUMENTS:
        raise JwFormatError(
            f"{name}: the publication holds {count:,} documents, more than the "
            f"{MAX_DOCUMENTS:,} one may hold; this is not a genuine publication"
        )
    meps = "MepsDocumentId" if "MepsDocumentId" in columns else "DocumentId"
    title = "Title" if "Title" in columns else "''"
    rows = conn.execute(  # a row at a time: only one encrypted document is held
        f"SELECT DocumentId, {meps}, {title}, Content FROM Document ORDER BY DocumentId"
    )
    out = []
    total = 0
    for document_id, meps_id, doc_title, content in rows:
        if content is None or not len(content):
            continue  # a document without text (e.g. an image-only page)
        if not isinstance(content, bytes | memoryview):
            raise JwFormatError(
                f"{name}: document {document_id} holds {type(content).__name__} content, "
                "not an encrypted BLOB; unknown JWPUB schema"
            )
        try:
            xhtml = decrypt_content(bytes(content), key, iv)
        except ContentTooLargeError as exc:
            raise ContentTooLargeError(
                f"{name}: document {document_id} {exc}; this is not a genuine publication"
            ) from exc
        except ContentDecryptError as exc:
            raise ContentDecryptError(
                f"{name}: document {document_id} does not decrypt ({exc}); the file is "
                "damaged or its Publication row does not match its content"
            ) from exc
        total += len(xhtml)
        if total > MAX_PUBLICATION_BYTES:
            raise JwFormatError(
                f"{name}: the documents inflate past {MAX_PUBLICATION_BYTES} bytes in all; "
                "this is not a genuine publication"
            )
        out.append(JwDocument(int(document_id), int(meps_id), str(doc_title or ""), xhtml))
    return tuple(out)


def _contents(conn: sqlite3.Connection, name: str) -> tuple[dict[str, Any], tuple[JwDocument, ...]]:
    """The Publication row and the decrypted documents of a publication's database."""
    try:
        pub = _publication_row(conn, name)
        lang_index = int(pub["MepsLanguageIndex"])
        symbol = str(pub["Symbol"])
        year = int(pub["Year"])
        issue = int(pub.get("IssueTagNumber") or 0)
        key, iv = derive_key_iv(lang_index, symbol, year, issue)
        pub.update(MepsLanguageIndex=lang_index, Symbol=symbol, Year=year, IssueTagNumber=issue)
        return pub, _documents(conn, key, iv, name)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, JwFormatError):
            raise
        raise JwFormatError(f"{name}: unexpected Publication values ({exc})") from exc


def read_jwpub(path: str | Path, *, file: IO[bytes] | None = None) -> JwPublication:
    """Metadata and decrypted documents of the ``.jwpub`` file at ``path``; read from
    ``file`` (a seekable binary file already opened) when given, ``path`` then only
    naming it."""
    p = Path(path).expanduser()
    name = str(p)
    archive = open_archive(p if file is None else file, name)
    with archive:
        manifest = read_manifest(archive, name) or {}
        with _inner_database(archive, name) as conn:
            pub, documents = _contents(conn, name)
    described = manifest.get("publication")
    fallback = described.get("title") if isinstance(described, dict) else None
    title = str(pub.get("Title") or fallback or "")
    return JwPublication(
        path=p,
        symbol=pub["Symbol"],
        year=pub["Year"],
        meps_language_index=pub["MepsLanguageIndex"],
        issue_tag_number=pub["IssueTagNumber"],
        title=title,
        language=MEPS_LANGUAGES.get(pub["MepsLanguageIndex"]),
        manifest=manifest,
        documents=documents,
    )
