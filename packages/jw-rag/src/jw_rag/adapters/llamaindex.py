"""A LlamaIndex ``NodeParser`` over any of our chunkers (extra ``llamaindex``).

>>> from jw_rag.adapters.llamaindex import JwNodeParser
>>> nodes = JwNodeParser("semantic").get_nodes_from_documents(documents)  # doctest: +SKIP

One ``TextNode`` per chunk, as LlamaIndex's own parsers make them:

- the id is the chunk's id, or ``id_func(i, document)`` when an ``id_func``
  is given (links follow the new ids);
- the metadata is the document's (only when ``include_metadata``, the
  default) extended with the chunk's provenance (as
  :mod:`jw_rag.adapters.langchain`). The provenance keys are listed in
  ``excluded_embed_metadata_keys`` and ``excluded_llm_metadata_keys``, so the
  text embedded and the text sent to a model hold the document's metadata
  (minus the document's own exclusions) and the chunk's text, never spans,
  ids or chunker versions. With ``include_metadata=False`` both are the
  chunk's text alone;
- ``start_char_idx``/``end_char_idx`` say where the chunk's text stands in
  the document, ``SOURCE`` is the document, ``PREVIOUS``/``NEXT`` the
  neighbouring chunks of the same document;
- a chunker with parents (``parent-child``) also yields each parent as a
  node, before its children: ``PARENT`` and ``CHILD`` link them, so
  ``get_leaf_nodes`` gives the nodes to embed and every ``PARENT`` id is a
  node of the output (as ``HierarchicalNodeParser``).

The text is one document; blank lines separate its paragraphs. A document's
``metadata["source"]`` (else its id) is its source id; chunk ids are unique
to the document (see :mod:`jw_rag.adapters.langchain`). The offsets come from
each chunk's span (:mod:`jw_rag.adapters._offsets`), so they hold across
``\\r\\n`` line breaks and cost one pass over the document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jw_rag.adapters._offsets import BlockOffsets
from jw_rag.adapters._provenance import PROVENANCE_KEYS, document_hierarchy, provenance
from jw_rag.chunkers import Chunker
from jw_rag.errors import MissingDependencyError
from jw_rag.ingest.pipeline import resolve_chunker
from jw_rag.model import Chunk

try:
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.node_parser.node_utils import default_id_func
    from llama_index.core.schema import BaseNode, NodeRelationship, RelatedNodeInfo, TextNode
    from pydantic import PrivateAttr
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise MissingDependencyError(
        exc.name or "llama-index-core", "llamaindex", "the LlamaIndex adapter"
    ) from None

__all__ = ["JwNodeParser"]

#: Metadata keys the adapter adds, never part of the embedded or LLM text.
HIDDEN_KEYS = ("chunk_id", "source_id", *PROVENANCE_KEYS)


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
        """The nodes of ``node``'s chunks (and their parents), with offsets,
        provenance and links."""
        text = node.get_content()
        source_id = str(node.metadata.get("source") or node.node_id)
        chunks, parents = document_hierarchy(self._chunker, text, source_id, node.metadata)
        where = BlockOffsets(text)
        source = node.as_related_node_info()  # hashes the whole document: once, not per chunk
        ordered = _reading_order(chunks, parents)
        ids = {c.id: self._node_id(i, c, node) for i, c in enumerate(ordered)}
        made = {c.id: self._text_node(c, node, where, source, ids) for c in ordered}
        for c in chunks:
            parent_id = c.metadata.get("parent_id")
            if parent_id in made:
                child, parent = made[c.id], made[parent_id]
                child.relationships[NodeRelationship.PARENT] = parent.as_related_node_info()
                parent.relationships.setdefault(NodeRelationship.CHILD, []).append(  # type: ignore[union-attr]
                    child.as_related_node_info()
                )
            elif parent_id:  # a parent the chunker did not return: named, never dangling
                made[c.id].relationships[NodeRelationship.PARENT] = RelatedNodeInfo(
                    node_id=ids.get(parent_id, parent_id)
                )
        if self.include_prev_next_rel:
            for level in (chunks, parents):
                level_nodes = [made[c.id] for c in level]
                for before, after in zip(level_nodes, level_nodes[1:], strict=False):
                    before.relationships[NodeRelationship.NEXT] = after.as_related_node_info()
                    after.relationships[NodeRelationship.PREVIOUS] = before.as_related_node_info()
        return [made[c.id] for c in ordered]

    def _node_id(self, i: int, chunk: Chunk, document: BaseNode) -> str:
        if self.id_func is default_id_func:
            return chunk.id
        return str(self.id_func(i, document))

    def _text_node(
        self,
        chunk: Chunk,
        document: BaseNode,
        where: BlockOffsets,
        source: RelatedNodeInfo,
        ids: dict[str, str],
    ) -> TextNode:
        node_id = ids[chunk.id]
        span = chunk.metadata.get("span")
        start, end = where.span(span) if span else (None, None)
        found = provenance(chunk)
        found["chunk_id"] = node_id
        if "parent_id" in found:
            found["parent_id"] = ids.get(found["parent_id"], found["parent_id"])
        if self.include_metadata:
            meta = {**document.metadata, **found}
            embed_hidden = [*document.excluded_embed_metadata_keys, *found]
            llm_hidden = [*document.excluded_llm_metadata_keys, *found]
        else:
            meta = found
            embed_hidden = llm_hidden = list(found)
        return TextNode(
            id_=node_id,
            text=chunk.text,
            metadata=meta,
            excluded_embed_metadata_keys=list(dict.fromkeys(embed_hidden)),
            excluded_llm_metadata_keys=list(dict.fromkeys(llm_hidden)),
            metadata_seperator=document.metadata_separator,
            metadata_template=document.metadata_template,
            text_template=document.text_template,
            relationships={NodeRelationship.SOURCE: source.model_copy()},
            start_char_idx=start,
            end_char_idx=end,
        )

    def _postprocess_parsed_nodes(
        self, nodes: list[BaseNode], parent_doc_map: dict[str, Any]
    ) -> list[BaseNode]:
        """Nothing left to do: :meth:`_parse_nodes` set the offsets from each
        chunk's span, the metadata and the links (the base class would search
        each document for each chunk's text instead, see :mod:`._offsets`)."""
        return nodes


def _reading_order(chunks: list[Chunk], parents: list[Chunk]) -> list[Chunk]:
    """Each parent just before its first child; parents without children
    where their span starts."""
    if not parents:
        return list(chunks)
    by_parent: dict[str, list[Chunk]] = {}
    orphans: list[Chunk] = []
    for c in chunks:
        pid = c.metadata.get("parent_id")
        if pid:
            by_parent.setdefault(pid, []).append(c)
        else:
            orphans.append(c)
    out = list(orphans)
    for p in parents:
        out.append(p)
        out.extend(by_parent.pop(p.id, []))
    for rest in by_parent.values():
        out.extend(rest)
    return out
