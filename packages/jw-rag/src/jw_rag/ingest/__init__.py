"""Ingestion: sources (HTML articles, Bible chapters, EPUB, PDF, Markdown,
text) parsed into :class:`~jw_rag.model.Document` objects, chunked and stored.

>>> from jw_rag.ingest import load_documents, ingest_article
>>> docs = load_documents("corpus/es/alma.html")
>>> result = ingest_article(store, "corpus/es/alma.html", chunker="semantic")

Every function parses (and chunks) the whole source before touching the
store; bad input raises a one-line :class:`~jw_rag.errors.IngestError`.
:func:`ingest_folder` (``skip_bad=True``) stores a folder's good files and
lists the bad ones with their reasons instead of failing on the first.
"""

from jw_rag.ingest._local import checking_paths
from jw_rag.ingest._source import (
    MAX_PARAGRAPHS,
    MAX_SOURCE_BYTES,
    MAX_TEXT_BYTES,
    checking_addresses,
    checking_urls,
    fetch_limits,
)
from jw_rag.ingest.article import ingest_article, parse_article
from jw_rag.ingest.bible import BOOKS, book_slug, ingest_bible_chapter, parse_bible_chapter
from jw_rag.ingest.epub import ingest_epub, parse_epub
from jw_rag.ingest.folder import FolderIngest, ingest_folder
from jw_rag.ingest.loader import KINDS, SkippedFile, load_documents, load_folder
from jw_rag.ingest.markdown import ingest_markdown, parse_markdown
from jw_rag.ingest.pdf import ingest_pdf, parse_pdf
from jw_rag.ingest.pipeline import (
    IngestResult,
    chunk_document,
    chunk_document_with_parents,
    content_hash,
    ingest_document,
    ingest_documents,
)
from jw_rag.ingest.text import ingest_text, parse_text

__all__ = [
    "BOOKS",
    "KINDS",
    "FolderIngest",
    "MAX_PARAGRAPHS",
    "MAX_SOURCE_BYTES",
    "MAX_TEXT_BYTES",
    "IngestResult",
    "SkippedFile",
    "book_slug",
    "checking_addresses",
    "checking_paths",
    "checking_urls",
    "chunk_document",
    "chunk_document_with_parents",
    "content_hash",
    "fetch_limits",
    "ingest_article",
    "ingest_bible_chapter",
    "ingest_document",
    "ingest_documents",
    "ingest_epub",
    "ingest_folder",
    "ingest_markdown",
    "ingest_pdf",
    "ingest_text",
    "load_documents",
    "load_folder",
    "parse_article",
    "parse_bible_chapter",
    "parse_epub",
    "parse_markdown",
    "parse_pdf",
    "parse_text",
]

from jw_rag.ingest.jw_library import ingest_jw_library_backup, parse_jw_library_backup
from jw_rag.ingest.jwpub import ingest_jwpub, parse_jwpub

__all__ += ["ingest_jw_library_backup", "ingest_jwpub", "parse_jw_library_backup", "parse_jwpub"]
