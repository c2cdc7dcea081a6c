"""A LlamaIndex ``NodeParser`` over any of our chunkers (extra ``llamaindex``).

>>> from jw_rag.adapters.llamaindex import JwNodeParser
>>> nodes = JwNodeParser("semantic").get_nodes_from_documents(documents)  # doctest: +SKIP

One ``TextNode`` per chunk, its id the chunk's id: the document's metadata
extended with the chunk's provenance (as :mod:`jw_rag.adapters.langchain`),
``start_char_idx``/``end_char_idx`` where the chunk's text stands in the
document, ``SOURCE`` the document, ``PREVIOUS``/``NEXT`` the neighbouring
chunks of the same document and ``PARENT`` the chunk's parent id (chunks from
``parent-child``). The text is one document; blank lines separate its
paragraphs. A document's ``metadata["source"]`` (else its id) is its source
id; chunk ids are unique to the document (see :mod:`jw_rag.adapters.langchain`).
The offsets come from each chunk's span (:mod:`jw_rag.adapters._offsets`), so
they hold across ``\r\n`` line breaks and cost one pass over the document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jw_rag.adapters._offsets import BlockOffsets
from jw_rag.adapters._provenance import document_chunks, provenance
from jw_rag.chunkers import Chunker
from jw_rag.errors import MissingDependencyError
from jw_rag.ingest.pipeline import resolve_chunker

try:
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.schema import BaseNode, NodeRelationship, RelatedNodeInfo, TextNode
    from pydantic import PrivateAttr
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise MissingDependencyError(
        exc.name or "llama-index-core", "llamaindex", "the LlamaIndex adapter"
    ) from None

__all__ = ["JwNodeParser"]


class JwNodeParser(NodeParser):
    """Parses with ``chunker``: a chunker, a name or spec for ``get_chunker``
    (``"semantic:target_chars=800"``), or None for ``$JW_CHUNKER``."""

    _chunker: Chunker = PrivateAttr()

    def __init__(self, chunker: Chunker | str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._chunker = resolve_chunker(chunker)

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for node in nodes:
            out.extend(self._document_nodes(node))
        return out

    def _document_nodes(self, node: BaseNode) -> list[TextNode]:
        """One node per chunk of ``node``, with offsets, provenance and links."""
        text = node.get_content()
        source_id = str(node.metadata.get("source") or node.node_id)
        chunks = document_chunks(self._chunker, text, source_id, node.metadata)
        where = BlockOffsets(text)
        source = node.as_related_node_info()  # hashes the whole document: once, not per chunk
        made: list[TextNode] = []
        for chunk in chunks:
            relations = {NodeRelationship.SOURCE: source.model_copy()}
            parent_id = chunk.metadata.get("parent_id")
            if parent_id:
                relations[NodeRelationship.PARENT] = RelatedNodeInfo(node_id=parent_id)
            span = chunk.metadata.get("span")
            start, end = where.span(span) if span else (None, None)
            meta = (
                {**node.metadata, **provenance(chunk)}
                if self.include_metadata
                else provenance(chunk)
            )
            made.append(
                TextNode(
                    id_=chunk.id,
                    text=chunk.text,
                    metadata=meta,
                    relationships=relations,
                    start_char_idx=start,
                    end_char_idx=end,
                )
            )
        if self.include_prev_next_rel:
            for before, after in zip(made, made[1:], strict=False):
                before.relationships[NodeRelationship.NEXT] = after.as_related_node_info()
                after.relationships[NodeRelationship.PREVIOUS] = before.as_related_node_info()
        return made

    def _postprocess_parsed_nodes(
        self, nodes: list[BaseNode], parent_doc_map: dict[str, Any]
    ) -> list[BaseNode]:
        """Nothing left to do: :meth:`_parse_nodes` set the offsets from each
        chunk's span, the metadata and the links (the base class would search
        each document for each chunk's text instead, see :mod:`._offsets`)."""
        return nodes
