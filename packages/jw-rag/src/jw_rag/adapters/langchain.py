"""A LangChain ``TextSplitter`` over any of our chunkers (extra ``langchain``).

>>> from jw_rag.adapters.langchain import JwTextSplitter
>>> splitter = JwTextSplitter("semantic:target_chars=800")
>>> docs = splitter.split_documents(documents)   # doctest: +SKIP

``split_text`` returns the chunks' texts. ``create_documents`` and
``split_documents`` give one ``Document`` per chunk: the input document's
metadata, extended with the chunk's provenance (``chunk_id``, ``source_id``,
``para_ids``, ``span``, ``chunker``, ``chunker_version`` and, when known,
``language``, ``heading_path``, ``pages``, ``parent_id``). The text is one document; blank lines
separate its paragraphs. A document's ``metadata["source"]`` (else
``doc-<n>``) is its source id; chunk ids are unique to the document (its text
and metadata), so the pages of one PDF, which share a source, never share ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from jw_rag.adapters._offsets import BlockOffsets
from jw_rag.adapters._provenance import document_chunks, provenance
from jw_rag.chunkers import Chunker
from jw_rag.errors import MissingDependencyError
from jw_rag.ingest.pipeline import resolve_chunker

try:
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise MissingDependencyError(
        exc.name or "langchain-text-splitters", "langchain", "the LangChain adapter"
    ) from None

__all__ = ["JwTextSplitter"]


class JwTextSplitter(TextSplitter):
    """Splits with ``chunker``: a chunker, a name or spec for ``get_chunker``
    (``"semantic:target_chars=800"``), or None for ``$JW_CHUNKER``;
    ``add_start_index`` as LangChain's ``TextSplitter``."""

    def __init__(
        self, chunker: Chunker | str | None = None, *, add_start_index: bool = False
    ) -> None:
        super().__init__(chunk_size=1, chunk_overlap=0, add_start_index=add_start_index)
        self.chunker = resolve_chunker(chunker)

    def split_text(self, text: str) -> list[str]:
        return [c.text for c in self.chunker.chunk(text, "text")]

    def create_documents(
        self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
    ) -> list[Document]:
        metas: Sequence[dict[Any, Any]] = metadatas or [{} for _ in texts]
        out: list[Document] = []
        for n, (text, meta) in enumerate(zip(texts, metas, strict=True)):
            source_id = str(meta.get("source") or f"doc-{n}")
            where = BlockOffsets(text) if self._add_start_index else None
            for c in document_chunks(self.chunker, text, source_id, meta):
                found = provenance(c)
                if where is not None and "span" in found:
                    found["start_index"] = where.span(found["span"])[0]
                out.append(Document(page_content=c.text, metadata={**meta, **found}))
        return out

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        docs = list(documents)
        return self.create_documents(
            [d.page_content for d in docs], [dict(d.metadata) for d in docs]
        )
