"""Ingestion: sources (HTML articles, Bible chapters, EPUB, PDF, Markdown,
text) parsed into :class:`~jw_rag.model.Document` objects, chunked and stored.

>>> from jw_rag.ingest import ingest, load_documents
>>> docs = load_documents("corpus/es/alma.html")
>>> results = ingest(store, "article", "corpus/es/alma.html", chunker="semantic")

The kinds :func:`ingest` takes are :data:`SOURCE_KINDS`; ``ingest_article``,
``ingest_pdf``, ... are :func:`ingest` with the kind filled in.

Every function parses (and chunks) the whole source before touching the
store; bad input raises a one-line :class:`~jw_rag.errors.IngestError`.
:func:`ingest_folder` (``skip_bad=True``) stores a folder's good files and
lists the bad ones with their reasons instead of failing on the first. The
files a folder ingest leaves out because another kind reads them, or none
does, are named in one ``UserWarning`` per folder, or kept as
:class:`LeftOut` records within :func:`collecting_left_out`.
"""

from jw_rag.ingest._left_out import LeftOut, LeftOutGroup, collecting_left_out
from jw_rag.ingest._local import checking_paths
from jw_rag.ingest._source import (
    MAX_PARAGRAPHS,
    MAX_SOURCE_BYTES,
    MAX_TEXT_BYTES,
    checking_addresses,
    checking_urls,
    fetch_limits,
)
from jw_rag.ingest.article import parse_article
from jw_rag.ingest.bible import BOOKS, book_slug, parse_bible_chapter
from jw_rag.ingest.epub import parse_epub
from jw_rag.ingest.folder import FolderIngest, ingest_folder
from jw_rag.ingest.generic import (
    ingest,
    ingest_article,
    ingest_bible_chapter,
    ingest_epub,
    ingest_jwpub,
    ingest_markdown,
    ingest_pdf,
    ingest_text,
    load_kind,
)
from jw_rag.ingest.jw_library import ingest_jw_library_backup, parse_jw_library_backup
from jw_rag.ingest.jwpub import parse_jwpub
from jw_rag.ingest.kinds import SOURCE_KINDS, SourceKind, kind_names, source_kind
from jw_rag.ingest.loader import KINDS, SkippedFile, load_documents, load_folder
from jw_rag.ingest.markdown import parse_markdown
from jw_rag.ingest.pdf import parse_pdf
from jw_rag.ingest.pipeline import (
    IngestResult,
    chunk_document,
    chunk_document_with_parents,
    content_hash,
    ingest_document,
    ingest_documents,
)
from jw_rag.ingest.text import parse_text

__all__ = [
    "BOOKS",
    "KINDS",
    "SOURCE_KINDS",
    "SourceKind",
    "FolderIngest",
    "MAX_PARAGRAPHS",
    "MAX_SOURCE_BYTES",
    "MAX_TEXT_BYTES",
    "IngestResult",
    "LeftOut",
    "LeftOutGroup",
    "SkippedFile",
    "book_slug",
    "checking_addresses",
    "checking_paths",
    "checking_urls",
    "chunk_document",
    "chunk_document_with_parents",
    "collecting_left_out",
    "content_hash",
    "fetch_limits",
    "ingest",
    "ingest_article",
    "ingest_bible_chapter",
    "ingest_document",
    "ingest_documents",
    "ingest_epub",
    "ingest_folder",
    "ingest_jw_library_backup",
    "ingest_jwpub",
    "ingest_markdown",
    "ingest_pdf",
    "ingest_text",
    "kind_names",
    "load_documents",
    "load_folder",
    "load_kind",
    "parse_article",
    "parse_bible_chapter",
    "parse_epub",
    "parse_jw_library_backup",
    "parse_jwpub",
    "parse_markdown",
    "parse_pdf",
    "parse_text",
    "source_kind",
]
