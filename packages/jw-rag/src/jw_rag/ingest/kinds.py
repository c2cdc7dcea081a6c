"""The source kinds: one table of what can be ingested and how.

Each :class:`SourceKind` names a kind (``article``, ``bible``, ``epub``,
``pdf``, ``markdown``, ``text``, ``jwpub``, ``backup``), the reader that turns
it into documents, what it accepts (a file path, an http(s) URL, a folder),
the options it takes besides ``chunker`` and ``language`` (``source_id``,
``replace``) and how to recognise it (file extensions, content types). The
loader's tables (:mod:`jw_rag.ingest.loader`), the kind names the sniffer
reports (:func:`jw_rag.ingest._source.refuse_other_kind`), the ``jw rag ingest
KIND`` commands and the MCP ``ingest`` tool's ``kind`` values are all read
from :data:`SOURCE_KINDS`; :func:`jw_rag.ingest.ingest` ingests any of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from jw_rag.errors import ConfigError, IngestError, shown_value
from jw_rag.ingest._source import Loaded, carries_verse_ids, refuse_other_kind, sniff_kind
from jw_rag.ingest.article import parse_article_bytes
from jw_rag.ingest.bible import parse_bible_bytes
from jw_rag.ingest.epub import parse_epub_bytes
from jw_rag.ingest.jw_library import ingest_jw_library_backup
from jw_rag.ingest.jwpub import parse_jwpub
from jw_rag.ingest.markdown import parse_markdown_bytes
from jw_rag.ingest.pdf import parse_pdf_bytes
from jw_rag.ingest.pipeline import ChunkerArg, IngestResult, check_source_id, with_source_id
from jw_rag.ingest.text import parse_text_bytes
from jw_rag.model import Document
from jw_rag.store.protocol import Store

__all__ = [
    "FOLDER",
    "PATH",
    "SOURCE_KINDS",
    "URL",
    "Accepts",
    "BytesReader",
    "FolderIds",
    "SourceKind",
    "kind_names",
    "source_kind",
]

#: What a kind reads: a local file, an http(s) URL, a folder of files.
PATH: Literal["path"] = "path"
URL: Literal["url"] = "url"
FOLDER: Literal["folder"] = "folder"
Accepts = Literal["path", "url", "folder"]

#: The ids a kind's documents get inside a folder: the file's (``file``), the
#: file's as a prefix of the reader's own (``prefix``), or the reader's (``own``).
FolderIds = Literal["file", "prefix", "own"]

#: Reads already-read bytes; the caller's source id, when given, names the result.
BytesReader = Callable[[Loaded, str | None], list[Document]]
#: Reads a whole file itself (its ids come from its content).
FileReader = Callable[[str | Path, str | None], list[Document]]
#: Reads and stores a whole file itself: (store, path, language, chunker).
FileIngest = Callable[[Store, str | Path, str | None, ChunkerArg], list[IngestResult]]


@dataclass(frozen=True, slots=True)
class SourceKind:
    """One kind of source and everything the library and its front ends know of it.

    Exactly one of ``read_bytes``, ``read_file`` and ``ingest_file`` is set.
    ``tool_name`` is the kind's value in the MCP ``ingest`` tool (the same as
    ``name`` unless that tool has always called it otherwise); ``described`` is
    how an error names a source of this kind ("a PDF")."""

    name: str
    summary: str
    example: str
    described: str
    accepts: frozenset[Accepts]
    options: frozenset[Literal["source_id", "replace"]] = frozenset()
    extensions: tuple[str, ...] = ()
    content_types: tuple[str, ...] = ()
    folder_ids: FolderIds = "file"
    tool_name: str = ""
    read_bytes: BytesReader | None = None
    read_file: FileReader | None = None
    ingest_file: FileIngest | None = None
    #: The files of a folder this kind reads when asked for by name, where they
    #: are not its own ``extensions`` (a Bible chapter is an HTML page).
    folder_extensions: tuple[str, ...] = ()

    @property
    def reads_extensions(self) -> tuple[str, ...]:
        """The extensions of a folder's files ingested as this kind."""
        return self.folder_extensions or self.extensions

    @property
    def public_name(self) -> str:
        """The MCP tool's name for the kind."""
        return self.tool_name or self.name

    def takes(self, what: Accepts) -> bool:
        return what in self.accepts

    def check_options(
        self, *, source_id: str | None, replace: bool, skip_bad: bool, called: str = ""
    ) -> None:
        """A one-line ConfigError for an option this kind does not take
        (``called``: the name the caller gave the kind)."""
        name = called or self.name
        if (source_id is not None and "source_id" not in self.options) or (
            replace and "replace" not in self.options
        ):
            raise ConfigError(
                f"kind {name!r} takes no source_id or replace: its source ids come from "
                "the file's content"
            )
        if skip_bad and not self.takes(FOLDER):
            raise ConfigError(f"kind {name!r} reads no folder, so skip_bad has no use; drop it")


def _single(parse: Callable[[Loaded], Document]) -> BytesReader:
    """A reader of one document, named by the caller's source id when given."""

    def read(loaded: Loaded, source_id: str | None) -> list[Document]:
        return [with_source_id(parse(loaded), source_id)]

    return read


def _html(parse: Callable[[Loaded], Document]) -> Callable[[Loaded], Document]:
    """``parse`` of an HTML page, refusing first a file whose signature shows
    another kind (a PDF, an EPUB, a ZIP), which would otherwise be read as markup."""

    def read(loaded: Loaded) -> Document:
        if sniff_kind(loaded.data) not in (None, "article"):
            refuse_other_kind(loaded, "HTML")
        return parse(loaded)

    return read


def _article(loaded: Loaded) -> Document:
    """An article page; a Bible chapter page (wol verse ids) is refused, naming
    the kind that reads it verse by verse, rather than stored as prose."""
    if carries_verse_ids(loaded.data):
        raise IngestError(
            f"{loaded.name} is a Bible chapter page (it carries wol verse ids), not an "
            "article; ingest it as bible (`jw rag ingest bible ...`, or the MCP ingest "
            "tool's kind bible_chapter)"
        )
    return parse_article_bytes(loaded)


def _epub(loaded: Loaded, source_id: str | None) -> list[Document]:
    base = None if source_id is None else check_source_id(source_id)
    return parse_epub_bytes(loaded, base_id=base)


def _jwpub(path: str | Path, language: str | None) -> list[Document]:
    return parse_jwpub(path, language=language)


def _backup(
    store: Store, path: str | Path, language: str | None, chunker: ChunkerArg
) -> list[IngestResult]:
    return ingest_jw_library_backup(store, path, language=language, chunker=chunker)


_ONE = frozenset({PATH, URL, FOLDER})
_HTML_EXTENSIONS = (".html", ".htm", ".xhtml")
_MARKDOWN_EXTENSIONS = (".md", ".markdown")
#: Plain text is Markdown and Markdown is text: a folder read as either takes both.
_TEXT_FILES = (".txt", *_MARKDOWN_EXTENSIONS)
_NAMED = frozenset({"source_id", "replace"})

#: Every kind, in the order the front ends list them.
SOURCE_KINDS: tuple[SourceKind, ...] = (
    SourceKind(
        "article", "An HTML article (wol page, saved file or URL).",
        "soul.html --chunker semantic:target_chars=800", "HTML", _ONE, _NAMED,
        _HTML_EXTENSIONS, read_bytes=_single(_html(_article)),
    ),
    SourceKind(
        "bible", "A Bible chapter page (stored verse by verse).",
        "genesis-1.html --language en", "a Bible chapter", _ONE, _NAMED,
        folder_ids="own", tool_name="bible_chapter", read_bytes=_single(_html(parse_bible_bytes)),
        folder_extensions=_HTML_EXTENSIONS,
    ),
    SourceKind(
        "pdf", "A PDF file (paragraphs keep their page numbers).", "brochure.pdf --chunker page",
        "a PDF", _ONE, _NAMED, (".pdf",), ("application/pdf",),
        read_bytes=_single(parse_pdf_bytes),
    ),
    SourceKind(
        "markdown", "A Markdown file (headings become heading paths).",
        "notes.md --chunker semantic:target_chars=800 --json", "Markdown", _ONE, _NAMED,
        _MARKDOWN_EXTENSIONS, ("text/markdown",), read_bytes=_single(parse_markdown_bytes),
        folder_extensions=_TEXT_FILES,
    ),
    SourceKind(
        "text", "A plain UTF-8 text file (blank lines separate paragraphs).",
        "talk.txt --language es", "text", _ONE, _NAMED, (".txt",), ("text/plain",),
        read_bytes=_single(parse_text_bytes), folder_extensions=_TEXT_FILES,
    ),
    SourceKind(
        "epub", "An EPUB book (one source per chapter).", "book.epub --source-id book",
        "an EPUB", frozenset({PATH, FOLDER}), _NAMED, (".epub",), ("application/epub+zip",),
        folder_ids="prefix", read_bytes=_epub,
    ),
    SourceKind(
        "jwpub", "A .jwpub publication (one source per document).", "lff_E.jwpub",
        "a JWPUB", frozenset({PATH}), extensions=(".jwpub",), read_file=_jwpub,
    ),
    SourceKind(
        "backup", "A .jwlibrary backup (one source per note).",
        "UserDataBackup.jwlibrary --language en", "a JW Library backup", frozenset({PATH}),
        extensions=(".jwlibrary",), tool_name="jw_library_backup", ingest_file=_backup,
    ),
)  # fmt: skip

_BY_NAME: dict[str, SourceKind] = {
    **{k.name: k for k in SOURCE_KINDS},
    **{k.public_name: k for k in SOURCE_KINDS},
}


def kind_names(*, public: bool = False) -> tuple[str, ...]:
    """Every kind's name (``public``: the MCP tool's names), in table order."""
    return tuple(k.public_name if public else k.name for k in SOURCE_KINDS)


def source_kind(name: str) -> SourceKind:
    """The kind called ``name`` (either of its names, any case); an unknown
    name is a one-line ConfigError listing the kinds."""
    found = _BY_NAME.get(name.strip().lower()) if isinstance(name, str) else None
    if found is None:
        raise ConfigError(
            f"unknown source kind {shown_value(name)}; valid kinds: {', '.join(kind_names())}"
        )
    return found
