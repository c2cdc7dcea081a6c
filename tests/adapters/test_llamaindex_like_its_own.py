"""The LlamaIndex adapter behaves as LlamaIndex's own node parsers: the
provenance it adds never reaches the embedded or LLM text, the parser's
``include_metadata`` and ``id_func`` are honoured, every node a ``PARENT``
link names is in the output, and the nodes go through a vector index."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llama_index.core import Document, StorageContext, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.node_parser import SentenceSplitter, get_leaf_nodes, get_root_nodes
from llama_index.core.schema import MetadataMode, NodeRelationship

from jw_rag.adapters.llamaindex import JwNodeParser

TEXT = (
    "Many believe the soul survives death.\n\n"
    "However, Ezekiel 18:4 says the soul who sins will die.\n\n"
    "Gardens need water in summer."
)
PROVENANCE = ("span", "chunk_id", "chunker", "chunker_version", "para_ids", "source_id")

# what a PDF reader gives LlamaIndex: one document per page, one source
PAGES = [
    "Chapter one begins here.\n\nIt goes on for a while.",
    "Page two holds the second part.\n\nAnd a closing line.",
    "Chapter one begins here.\n\nIt goes on for a while.",  # a page repeated verbatim
]


def pdf_documents() -> list[Document]:
    return [
        Document(
            text=text,
            metadata={"source": "book.pdf", "page_label": str(n + 1), "file_name": "book.pdf"},
            excluded_embed_metadata_keys=["file_name"],
        )
        for n, text in enumerate(PAGES)
    ]


@pytest.mark.parametrize("mode", [MetadataMode.EMBED, MetadataMode.LLM])
def test_provenance_never_reaches_model_text(mode: MetadataMode) -> None:
    doc = Document(text=TEXT, metadata={"source": "notes", "author": "Ann"})
    for node in JwNodeParser("paragraph:min_chars=10").get_nodes_from_documents([doc]):
        seen = node.get_content(metadata_mode=mode)
        assert seen == f"source: notes\nauthor: Ann\n\n{node.text}"
        assert all(key in node.metadata for key in PROVENANCE)  # still there, for citations
        assert all(key not in seen for key in PROVENANCE)


def test_document_exclusions_carry_over_like_sentence_splitter() -> None:
    ours = JwNodeParser("paragraph").get_nodes_from_documents(pdf_documents())
    theirs = SentenceSplitter().get_nodes_from_documents(pdf_documents())
    assert {k for n in ours for k in n.excluded_embed_metadata_keys} >= {"file_name"}
    embed = ours[0].get_content(metadata_mode=MetadataMode.EMBED)
    # the same header LlamaIndex's own splitter writes for that page
    their_header = theirs[0].get_content(metadata_mode=MetadataMode.EMBED).split("\n\n")[0]
    assert embed.split("\n\n")[0] == their_header == "source: book.pdf\npage_label: 1"


def test_include_metadata_false_keeps_document_metadata_out() -> None:
    doc = Document(text=TEXT, metadata={"source": "notes", "author": "Ann"})
    nodes = JwNodeParser("paragraph:min_chars=10", include_metadata=False).get_nodes_from_documents(
        [doc]
    )
    for node in nodes:
        assert "author" not in node.metadata and node.metadata["source_id"] == "notes"
        for mode in (MetadataMode.EMBED, MetadataMode.LLM):
            assert node.get_content(metadata_mode=mode) == node.text


def test_id_func_is_honoured_and_links_follow() -> None:
    calls: list[tuple[int, str]] = []

    def id_func(i: int, doc: Any) -> str:
        calls.append((i, doc.doc_id))
        return f"{doc.doc_id}-n{i}"

    doc = Document(text=TEXT, doc_id="d1")
    nodes = JwNodeParser("paragraph:min_chars=10", id_func=id_func).get_nodes_from_documents([doc])
    assert [n.node_id for n in nodes] == ["d1-n0", "d1-n1", "d1-n2"]
    assert calls == [(0, "d1"), (1, "d1"), (2, "d1")]
    assert [n.metadata["chunk_id"] for n in nodes] == ["d1-n0", "d1-n1", "d1-n2"]
    assert nodes[0].next_node.node_id == "d1-n1"  # type: ignore[union-attr]
    assert nodes[2].prev_node.node_id == "d1-n1"  # type: ignore[union-attr]


def test_parents_are_emitted_and_every_link_resolves() -> None:
    text = "# One\n\nFirst part.\n\nMore of it.\n\n# Two\n\nSecond part here."
    nodes = JwNodeParser("parent-child").get_nodes_from_documents([Document(text=text)])
    by_id = {n.node_id: n for n in nodes}
    assert len(by_id) == len(nodes)
    for node in nodes:
        for rel, info in node.relationships.items():
            if rel is NodeRelationship.SOURCE:
                continue
            for one in info if isinstance(info, list) else [info]:
                assert one.node_id in by_id, (rel, one.node_id)
    roots, leaves = get_root_nodes(nodes), get_leaf_nodes(nodes)
    assert len(roots) + len(leaves) == len(nodes) and roots and leaves
    for leaf in leaves:  # a leaf's text lies inside its parent's
        assert leaf.text in by_id[leaf.parent_node.node_id].text  # type: ignore[union-attr]
    for root in roots:
        kids = [by_id[c.node_id].text for c in root.child_nodes or []]
        assert kids and all(k in root.text for k in kids)
    # reading order: each parent just before its first child
    assert nodes.index(roots[0]) < nodes.index(by_id[roots[0].child_nodes[0].node_id])  # type: ignore[index]


def test_pdf_pages_get_distinct_ids_offsets_and_page_metadata() -> None:
    docs = pdf_documents()
    nodes = JwNodeParser("paragraph:min_chars=5").get_nodes_from_documents(docs)
    assert len({n.node_id for n in nodes}) == len(nodes) == 6  # the repeated page too
    for node in nodes:
        page = docs[int(node.metadata["page_label"]) - 1]
        assert page.text[node.start_char_idx : node.end_char_idx] == node.text
        assert node.ref_doc_id == page.doc_id
    assert [n.metadata["page_label"] for n in nodes] == ["1", "1", "2", "2", "3", "3"]


class RecordingEmbedding(MockEmbedding):
    seen: list[str] = []

    def _get_text_embedding(self, text: str) -> list[float]:
        RecordingEmbedding.seen.append(text)
        return super()._get_text_embedding(text)


def test_vector_store_round_trip() -> None:
    RecordingEmbedding.seen = []
    nodes = JwNodeParser("paragraph:min_chars=5").get_nodes_from_documents(pdf_documents())
    index = VectorStoreIndex(
        nodes,
        embed_model=RecordingEmbedding(embed_dim=8),
        storage_context=StorageContext.from_defaults(),
    )
    assert len(RecordingEmbedding.seen) == len(nodes)
    assert all("span" not in t and "chunk_id" not in t for t in RecordingEmbedding.seen)
    assert all(t.endswith(n.text) for t, n in zip(RecordingEmbedding.seen, nodes, strict=True))
    hits = index.as_retriever(similarity_top_k=len(nodes)).retrieve("second part")
    assert {h.node.node_id for h in hits} == {n.node_id for n in nodes}
    for hit in hits:
        stored = next(n for n in nodes if n.node_id == hit.node.node_id)
        assert hit.node.metadata == stored.metadata  # provenance survives the store
        assert hit.node.text == stored.text


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.text(alphabet="abc ,.\n", min_size=1, max_size=40)
        .map(str.strip)
        .filter(lambda p: p and not re.search(r"\n\s*\n", p)),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
    st.sampled_from(["\n\n", "\r\n\r\n", "\n \n\n"]),
)
def test_offsets_and_model_text_hold_for_any_text(
    paras: list[str], include: bool, gap: str
) -> None:
    text = gap.join(p.replace("\n", "\r\n") if "\r" in gap else p for p in paras)
    doc = Document(text=text, metadata={"k": "v"})
    nodes = JwNodeParser(
        "paragraph:min_chars=1", include_metadata=include
    ).get_nodes_from_documents([doc])
    for node in nodes:
        embed = node.get_content(metadata_mode=MetadataMode.EMBED)
        assert embed == (f"k: v\n\n{node.text}" if include else node.text)
        got = text[node.start_char_idx : node.end_char_idx]
        # the same paragraphs, whatever blank lines stood between them
        blocks = re.split(r"\n[ \t]*\n\s*", got.replace("\r\n", "\n"))
        assert blocks == node.text.split("\n\n")
