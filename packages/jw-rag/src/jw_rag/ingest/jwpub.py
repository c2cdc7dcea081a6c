"""JWPUB publications: every ``Document`` row becomes one source.

The decrypted XHTML of each document goes through the same HTML walk as wol
articles (:mod:`jw_rag.ingest._html`): paragraphs keep their ``data-pid`` as
``Paragraph.id``, headings become ``heading`` paragraphs and heading paths.
Documents without any text (covers, image pages) are left out.

Source ids are ``"jwpub:{symbol}:{year}:{meps_document_id}:{meps_language_index}"``;
the last part keeps the same document in two languages apart (MEPS document
ids are shared between languages). Documents of one publication that share a
MEPS document id each get ``:doc<DocumentId>`` after it. The language is the caller's, else the one
the MEPS index names (:data:`jw_core.jwpub.MEPS_LANGUAGES`), else detected
once over the whole publication's text.

The whole file is read, decrypted and chunked before the store is touched.
"""

from __future__ import annotations

from pathlib import Path

from jw_core import detect_language
from jw_core.jwpub import JwDocument, JwFormatError, JwPublication, read_jwpub
from jw_rag.errors import IngestError
from jw_rag.ingest._html_walk import read_page
from jw_rag.ingest._identity import DISTINCT_ID_KEY
from jw_rag.ingest._local import open_local
from jw_rag.ingest._source import clean_controls
from jw_rag.ingest.pipeline import (
    check_language,
    with_language,
)
from jw_rag.model import Document

__all__ = ["jwpub_source_id", "parse_jwpub"]


def jwpub_source_id(pub: JwPublication, doc: JwDocument) -> str:
    """The source id of one document of ``pub`` (module docstring)."""
    return f"jwpub:{pub.symbol}:{pub.year}:{doc.meps_document_id}:{pub.meps_language_index}"


def _document(pub: JwPublication, doc: JwDocument, name: str) -> Document | None:
    if not doc.xhtml.strip():
        return None
    paragraphs = read_page(
        doc.xhtml.encode("utf-8"), f"{name} (document {doc.document_id})", article=True
    ).paragraphs
    if not any(p.kind != "heading" and p.text.strip() for p in paragraphs):
        return None
    return Document(
        source_id=jwpub_source_id(pub, doc),
        paragraphs=paragraphs,
        title=clean_controls(doc.title or pub.title),
        language=pub.language,
        metadata={
            "source": name,
            "format": "jwpub",
            "symbol": pub.symbol,
            "year": pub.year,
            "issue_tag_number": pub.issue_tag_number,
            "meps_language_index": pub.meps_language_index,
            "meps_document_id": doc.meps_document_id,
            "document_id": doc.document_id,
            "publication_title": pub.title,
            DISTINCT_ID_KEY: f"{jwpub_source_id(pub, doc)}:doc{doc.document_id}",
        },
    )


def parse_jwpub(path: str | Path, *, language: str | None = None) -> list[Document]:
    """The documents of the ``.jwpub`` at ``path`` that hold text, in ``DocumentId`` order."""
    language = check_language(language)
    try:
        with open_local(path) as fh:
            pub = read_jwpub(path, file=fh)
    except JwFormatError as exc:
        raise IngestError(str(exc)) from exc
    name = str(pub.path)
    docs = [d for d in (_document(pub, doc, name) for doc in pub.documents) if d is not None]
    if not docs:
        raise IngestError(f"{name}: the publication holds no document with text to index")
    if language:
        for d in docs:
            with_language(d, language)
    elif pub.language is None:
        sample = " ".join(p.text for d in docs for p in d.paragraphs[:20])[:20000]
        detected = detect_language(sample)
        for d in docs:
            d.language = detected
    return docs
