"""The LlamaIndex adapter against the real llama-index-core."""

from __future__ import annotations

import re
from pathlib import Path

from llama_index.core import Document
from llama_index.core.node_parser import NodeParser, get_leaf_nodes
from llama_index.core.schema import NodeRelationship

from jw_rag.adapters.llamaindex import JwNodeParser
from jw_rag.chunkers import ParagraphChunker, get_chunker

README = Path(__file__).resolve().parents[2] / "README.md"

TEXT = (
    "Many believe the soul survives death.\n\n"
    "However, Ezekiel 18:4 says the soul who sins will die.\n\n"
    "Gardens need water in summer."
)


def test_nodes_carry_ids_offsets_relationships_and_provenance() -> None:
    doc = Document(text=TEXT, metadata={"source": "notes", "author": "a"})
    parser = JwNodeParser(ParagraphChunker(min_chars=10))
    assert isinstance(parser, NodeParser)
    nodes = parser.get_nodes_from_documents([doc])
    assert [n.text for n in nodes] == TEXT.split("\n\n")
    for node in nodes:
        assert TEXT[node.start_char_idx : node.end_char_idx] == node.text
        assert node.node_id == node.metadata["chunk_id"] and node.metadata["source_id"] == "notes"
        assert node.metadata["author"] == "a" and node.metadata["chunker"] == "paragraph"
        assert node.relationships[NodeRelationship.SOURCE].node_id == doc.doc_id
    assert [n.metadata["para_ids"] for n in nodes] == [[0], [1], [2]]
    assert nodes[0].next_node.node_id == nodes[1].node_id  # type: ignore[union-attr]
    assert nodes[2].prev_node.node_id == nodes[1].node_id  # type: ignore[union-attr]
    assert nodes[0].prev_node is None and nodes[2].next_node is None


def test_parent_relationship_from_parent_child_ids() -> None:
    doc = Document(text=TEXT)
    nodes = JwNodeParser("parent-child").get_nodes_from_documents([doc])
    children, parents = get_chunker("parent-child").chunk_hierarchy(TEXT, doc.doc_id)
    leaves = get_leaf_nodes(nodes)
    tag = leaves[0].node_id.removeprefix(children[0].id)  # the document's tag on every id
    assert tag.startswith("@") and len(leaves) == len(children)
    assert len(nodes) == len(children) + len(parents)
    assert [c.metadata["parent_id"] + tag for c in children] == [
        n.relationships[NodeRelationship.PARENT].node_id for n in leaves
    ]
    assert all(n.metadata["parent_id"] == n.parent_node.node_id for n in leaves)  # type: ignore[union-attr]


def test_readme_example_runs(capsys) -> None:
    block = re.search(
        r"### In a LlamaIndex pipeline.*?```python\n(.*?)```", README.read_text(), re.S
    )
    assert block is not None
    exec(compile(block.group(1), "README.md", "exec"), {})
    first_next = capsys.readouterr().out.splitlines()
    assert first_next[0].startswith("True 0 93 [0, 1] notes:")
    assert first_next[1] == "True 95 124 [2] None"
