"""A LlamaIndex ``NodeParser`` over any of our chunkers (extra ``llamaindex``).

>>> from jw_rag.adapters.llamaindex import JwNodeParser
>>> nodes = JwNodeParser("semantic").get_nodes_from_documents(documents)  # doctest: +SKIP

One ``TextNode`` per chunk, its id the chunk's id: the document's metadata
extended with the chunk's provenance (as :mod:`jw_rag.adapters.langchain`),
``start_char_idx``/``end_char_idx`` where the chunk's text stands in the
document, ``SOURCE`` the document, ``PREVIOUS``/``NEXT`` the neighbouring
chunks of the same document and ``PARENT`` the chunk's parent id (chunks from
``parent-child``). The text is one document; blank lines separate its
paragraphs. A document's ``metadata["source"]`` (else its id) is its source id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jw_rag.adapters._provenance import provenance
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
            source_id = str(node.metadata.get("source") or node.node_id)
            for chunk in self._chunker.chunk(node.get_content(), source_id):
                relations = {NodeRelationship.SOURCE: node.as_related_node_info()}
                parent_id = chunk.metadata.get("parent_id")
                if parent_id:
                    relations[NodeRelationship.PARENT] = RelatedNodeInfo(node_id=parent_id)
                out.append(
                    TextNode(
                        id_=chunk.id,
                        text=chunk.text,
                        metadata={**node.metadata, **provenance(chunk)},
                        relationships=relations,
                    )
                )
        return out
