"""EPUB books (ebooklib): one :class:`Document` per chapter, in spine order.

Only the text members reach ebooklib: media (images, fonts, audio),
stylesheets and scripts are emptied first (a missing one is no matter), and
the text may unpack to :data:`MAX_TEXT_BYTES` at most, so a book costs memory
in proportion to its text. A chapter is a spine document with text; its
paragraphs and headings are read like HTML (see :mod:`jw_rag.ingest._html`). Chapter ids are
``"<book>/<chapter file without extension>"`` where ``<book>`` is the file
stem (or the caller's ``source_id``); chapters whose files differ only in
their extension (``ch.xhtml``, ``ch.html``) keep it (``<book>/ch.xhtml``). A
file name is normalised for its id (no ``..`` part, no leading ``/``, a
backslash read as ``/``); two files that it would give one id each keep a
distinct one, with those parts percent-encoded (``<book>/%2E%2E/ch.xhtml``).
Only the spine's documents must be in the archive: another member the
manifest lists (a table of contents, a note file) may be missing. The chapter
title is its first heading, else the book title; the language is the book's
``dc:language``.
"""

from __future__ import annotations

import io
import posixpath
import warnings
import zipfile
from pathlib import Path
from urllib.parse import unquote

from jw_core import normalize_language
from jw_rag.errors import IngestError, shown_value
from jw_rag.ingest._html_walk import read_page
from jw_rag.ingest._identity import DISTINCT_ID_KEY
from jw_rag.ingest._source import Loaded, check_archive, read_path
from jw_rag.model import Document

__all__ = ["MAX_TEXT_BYTES", "parse_epub", "parse_epub_bytes"]

_EPUB_MIMETYPE = b"application/epub+zip"


#: The most an EPUB's members other than media (XHTML, OPF, NCX, CSS...) may
#: unpack to, in all: the text a book holds is a few MiB; ebooklib keeps it all.
MAX_TEXT_BYTES = 64 * 1024 * 1024

#: Members this reader never looks at: emptied before ebooklib reads the book,
#: which would otherwise hold every one of them in memory (and, like ebooklib,
#: refuse the book when one the manifest lists is missing).
_MEDIA = (
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".svg", ".ico",
    ".ttf", ".otf", ".woff", ".woff2", ".mp3", ".mp4", ".m4a", ".m4v", ".ogg", ".webm",
    ".wav", ".pdf", ".css", ".js",
)  # fmt: skip


def _check_text_size(zf: zipfile.ZipFile, name: str) -> None:
    """Refuse a book whose text members would unpack to more than
    :data:`MAX_TEXT_BYTES`, from the archive's directory, before any is read."""
    text = sum(i.file_size for i in zf.infolist() if not i.is_dir() and not _is_media(i.filename))
    if text > MAX_TEXT_BYTES:
        raise IngestError(
            f"{name}: its text would unpack to {text // (1024 * 1024)} MiB (more "
            f"than {MAX_TEXT_BYTES // (1024 * 1024)} MiB); it is not a book this reads"
        )


def _is_media(member: str) -> bool:
    return member.lower().endswith(_MEDIA)


#: Font obfuscation (OCF's and Adobe's): a publisher's, never DRM, whatever the font's name.
_FONT_OBFUSCATION = frozenset(
    {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
)


def _encrypted_member(ref, names: set[str]) -> str | None:  # noqa: ANN001 - an lxml element
    """The member of the book a ``CipherReference`` encrypts, if it is one this
    reader reads (not media, not font obfuscation, present in the book)."""
    data = next(ref.iterancestors("{*}EncryptedData"), None)
    method = data.find("{*}EncryptionMethod") if data is not None else None
    if method is not None and (method.get("Algorithm") or "").strip() in _FONT_OBFUSCATION:
        return None
    uri = unquote(ref.get("URI") or "").strip()
    if not uri:
        return None
    member = posixpath.normpath(uri)
    return member if member in names and not _is_media(member) else None


#: The largest ``META-INF/encryption.xml`` read (a real one lists a few members
#: in a few KiB; lxml holds about 40 times a file's size while it parses it).
_MAX_ENCRYPTION_BYTES = 1024 * 1024


def _check_not_encrypted(zf: zipfile.ZipFile, names: set[str], name: str) -> None:
    """Refuse a book whose ``META-INF/encryption.xml`` encrypts a member this
    reader reads (DRM), naming it; fonts obfuscated by the publisher, and
    references to no member of the book, are no matter."""
    if "META-INF/encryption.xml" not in names:
        return
    if zf.getinfo("META-INF/encryption.xml").file_size > _MAX_ENCRYPTION_BYTES:
        return  # not one a publisher writes: the chapters say whether they are readable
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(zf.read("META-INF/encryption.xml"), parser)
    except etree.Error:
        return  # not readable: the chapters say whether they are
    for ref in root.iter("{*}CipherReference"):
        member = _encrypted_member(ref, names)
        if member is not None:
            raise IngestError(
                f"{name} is protected by DRM (META-INF/encryption.xml encrypts "
                f"{shown_value(member)}); open it with the software it came with, or ingest a "
                "copy without DRM"
            )


def _read_book(loaded: Loaded):  # -> (ebooklib.epub.EpubBook, the OPF's folder)
    from ebooklib import epub

    if not zipfile.is_zipfile(io.BytesIO(loaded.data)):
        raise IngestError(f"{loaded.name} is not an EPUB (not a zip archive); check the file")
    check_archive(loaded.data, loaded.name)
    with zipfile.ZipFile(io.BytesIO(loaded.data)) as zf:
        names = set(zf.namelist())
        if "META-INF/container.xml" not in names:
            raise IngestError(
                f"{loaded.name} is a zip archive but not an EPUB (no META-INF/container.xml)"
            )
        _check_text_size(zf, loaded.name)
        _check_not_encrypted(zf, names, loaded.name)
    missing: set[str] = set()  # members the manifest lists and the archive lacks
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = epub.EpubReader(io.BytesIO(loaded.data), {"ignore_ncx": True})
            read_member = reader.read_file

            def read_file(name: str) -> bytes:  # media is never unpacked, text once
                if _is_media(name):
                    return b""
                try:
                    return read_member(name)
                except KeyError:
                    member = posixpath.normpath(name)
                    if not reader.opf_file:
                        raise
                    if member == posixpath.normpath(reader.opf_file):
                        raise IngestError(
                            f"{loaded.name} is a broken EPUB (META-INF/container.xml names "
                            f"the package document {shown_value(member)}, which the archive "
                            "lacks); check the file"
                        ) from None
                    missing.add(member)  # only a spine document's absence matters
                    return b""

            reader.read_file = read_file
            # the table of contents is not read (the spine is): a missing or
            # broken one is no reason to refuse the book
            reader._parse_nav = reader._parse_ncx = lambda *args, **kwargs: None
            book = reader.load()
            reader.process()
    except IngestError:
        raise
    except Exception as exc:  # ebooklib raises KeyError, EpubException, lxml errors...
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, AttributeError | TypeError):  # ebooklib met XML it cannot walk
            reason = "its container or package document (OPF) is not readable XML"
        raise IngestError(f"{loaded.name} is a broken EPUB ({reason}); check the file") from exc
    _check_spine_present(book, reader.opf_dir, missing, loaded.name)
    return book, reader.opf_dir


def _check_spine_present(book, opf_dir: str, missing: set[str], name: str) -> None:  # noqa: ANN001
    """Refuse a book whose spine lists a document the archive lacks, naming it
    (other members the manifest lists may be missing: they are not read)."""
    import ebooklib

    if not missing:
        return
    for idref, *_rest in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        member = posixpath.normpath(posixpath.join(opf_dir, item.get_name()))
        if member in missing:
            raise IngestError(
                f"{name} is a broken EPUB (its spine lists {shown_value(member)}, which the "
                "archive lacks); check the file"
            )


def _chapter_bytes(item) -> bytes:  # noqa: ANN001 - ebooklib is untyped
    """A chapter's markup as it is in the book, let go by the item (it is read
    once; the caller holds the only reference while it is parsed). A cover page
    ebooklib makes from its template is that template."""
    from ebooklib import epub

    if isinstance(item, epub.EpubCoverHtml):
        return item.get_content() or b""
    content = item.content
    item.content = None
    return content or b""


def _chapter_key(name: str) -> str:
    """A chapter's file name as its id holds it: a backslash read as ``/``,
    ``.`` and ``..`` parts resolved, and what would climb above the book's top
    or start at ``/`` dropped, so an id has no ``..`` part and no leading
    ``/``; an ordinary name (``text/ch1.xhtml``) is unchanged."""
    path = posixpath.normpath(name.replace("\\", "/"))
    return "/".join(p for p in path.split("/") if p not in ("", ".", "..")) or _escaped(name)


def _escaped(name: str) -> str:
    """``name`` with nothing dropped: its ``.`` and ``..`` parts, empty parts (a
    leading ``/``) and backslashes percent-encoded. Two names that
    :func:`_chapter_key` makes one keep two distinct ids this way."""
    shown = {"": "%2F", ".": "%2E", "..": "%2E%2E"}
    return "/".join(shown.get(p, p) for p in name.replace("\\", "%5C").split("/"))


def _first_meta(book, name: str) -> str:  # noqa: ANN001 - ebooklib is untyped
    values = book.get_metadata("DC", name)
    return str(values[0][0]).strip() if values and values[0] and values[0][0] else ""


def parse_epub_bytes(loaded: Loaded, *, base_id: str | None = None) -> list[Document]:
    """Chapters of an already-read EPUB."""
    import ebooklib

    book, opf_dir = _read_book(loaded)
    base = base_id or loaded.stem
    book_title = _first_meta(book, "title")
    language = normalize_language(_first_meta(book, "language"))
    docs: list[Document] = []
    read: set[str] = set()  # a spine may list a member twice: it is one document
    for position, (idref, *_rest) in enumerate(book.spine):
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        name = item.get_name()
        member = posixpath.normpath(posixpath.join(opf_dir, name))  # the one ebooklib read
        if member in read:
            continue
        read.add(member)
        markup = _chapter_bytes(item)
        if not markup.strip():
            continue  # an empty file (a converter's placeholder): a page without text
        paragraphs = read_page(markup, f"{loaded.name}:{name}").paragraphs
        del markup  # held no longer than the parse
        if not any(p.kind != "heading" for p in paragraphs):
            continue  # cover pages, image-only pages, empty title pages
        headings = [p.text for p in paragraphs if p.kind == "heading"]
        key = _chapter_key(name)
        docs.append(
            Document(
                source_id=f"{base}/{posixpath.splitext(key)[0]}",
                paragraphs=paragraphs,
                title=headings[0] if headings else book_title,
                language=language,
                metadata={
                    "source": loaded.url or loaded.name,
                    "format": "epub",
                    "book_title": book_title,
                    "chapter_file": name,
                    "spine_index": position,
                    DISTINCT_ID_KEY: f"{base}/{name if key == name else _escaped(name)}",
                },
            )
        )
    if not docs:
        raise IngestError(f"{loaded.name}: the EPUB has no chapter with text; check the file")
    return docs


def parse_epub(path: str | Path) -> list[Document]:
    """One :class:`Document` per chapter of the EPUB at ``path``."""
    return parse_epub_bytes(read_path(path))
