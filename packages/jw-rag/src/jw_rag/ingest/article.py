"""wol-style HTML articles: ``<p data-pid>`` paragraphs under ``<article>``.

The body is the first ``<article>`` (else ``<body>``). Each paragraph keeps
its ``data-pid`` as ``Paragraph.id``; the visible number (``span.parNum``, or a
leading number equal to the pid) is stripped; headings become ``heading``
paragraphs and the heading path of what follows; footnote markers are
dropped; scripture references stay in the text. The title is the first
``<h1>``, else ``<title>``; the language is ``<html lang>``.
"""

from __future__ import annotations

from pathlib import Path

from jw_core import normalize_language
from jw_rag.errors import IngestError
from jw_rag.ingest._html_walk import read_page
from jw_rag.ingest._source import Loaded, read_source
from jw_rag.model import Document

__all__ = ["parse_article", "parse_article_bytes"]


def parse_article_bytes(loaded: Loaded) -> Document:
    """Parse already-read HTML (used for URLs and by :func:`load_documents`)."""
    page = read_page(loaded.data, loaded.name, article=True)
    paragraphs = page.paragraphs
    if not any(p.kind != "heading" for p in paragraphs):
        raise IngestError(
            f"{loaded.name}: no paragraphs found in the HTML; pass an article page "
            "(wol-style <article> with <p> paragraphs)"
        )
    title = page.h1 if page.h1 is not None else (page.first_h1 or "")
    if not title:
        title = page.title or ""
    lang = page.lang
    meta = {"source": loaded.url or loaded.name, "format": "article"}
    pids = [p.id for p in paragraphs if p.id is not None]
    if pids:
        meta["pids"] = len(pids)
    return Document(
        source_id=loaded.stem,
        paragraphs=paragraphs,
        title=title,
        language=normalize_language(lang),
        metadata=meta,
    )


def parse_article(source: str | Path) -> Document:
    """The article at a local path or an http(s) URL, as a :class:`Document`.

    ``source_id`` is the file's stem, or host + path for a URL.
    """
    return parse_article_bytes(read_source(source))
