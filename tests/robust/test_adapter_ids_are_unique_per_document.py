"""The LangChain and LlamaIndex adapters give every document its own chunk
ids, even when documents share ``metadata["source"]`` as the pages of one PDF
do, so a vector store keeps every page; the same document always gets the same
ids. LlamaIndex offsets come from the chunks' spans: right across ``\\r\\n``
paragraph breaks, and linear in the document's size."""

from __future__ import annotations

import gc
import re
import time
from pathlib import Path

import pypdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document as LcDocument
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore
from llama_index.core import Document as LiDocument
from llama_index.core import VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding

from jw_rag.adapters._offsets import BlockOffsets
from jw_rag.adapters.langchain import JwTextSplitter
from jw_rag.adapters.llamaindex import JwNodeParser
from jw_rag.model import split_blocks
from tests.ingest.conftest import write_pdf

#: Pages of one length: each page's one chunk has the same span (0.0-0.49).
PAGES = [
    "Gardens need water every single summer morning!!!",
    "Rivers carry the rain from hills down to the sea.",
    "Stones in the field keep the warmth of afternoon.",
]


def pdf_pages(tmp_path: Path) -> list[tuple[str, dict[str, object]]]:
    """A real three-page PDF read the way PDF loaders read one: one document
    per page, each with the same ``source`` and its own ``page``."""
    path = write_pdf(tmp_path / "brochure.pdf", [[(72, 700, text)] for text in PAGES])
    reader = pypdf.PdfReader(path)
    return [
        (page.extract_text(), {"source": str(path), "page": i})
        for i, page in enumerate(reader.pages)
    ]


def test_langchain_pages_of_one_pdf_get_distinct_ids_and_all_reach_the_store(
    tmp_path: Path,
) -> None:
    pages = [LcDocument(page_content=t, metadata=m) for t, m in pdf_pages(tmp_path)]
    docs = JwTextSplitter("paragraph").split_documents(pages)
    ids = [d.metadata["chunk_id"] for d in docs]
    assert len(docs) == 3 and len(set(ids)) == 3
    assert [d.metadata["page"] for d in docs] == [0, 1, 2]
    assert {d.metadata["source_id"] for d in docs} == {pages[0].metadata["source"]}
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_documents(docs, ids=ids)
    kept = store.get_by_ids(ids)
    assert sorted(d.page_content for d in kept) == sorted(PAGES)
    again = JwTextSplitter("paragraph").split_documents(pages)
    assert [d.metadata["chunk_id"] for d in again] == ids  # the same ids every run


def test_llamaindex_pages_of_one_pdf_get_distinct_ids_and_all_reach_the_index(
    tmp_path: Path,
) -> None:
    pages = [LiDocument(text=t, metadata=m) for t, m in pdf_pages(tmp_path)]
    nodes = JwNodeParser("paragraph").get_nodes_from_documents(pages)
    ids = [n.node_id for n in nodes]
    assert len(nodes) == 3 and len(set(ids)) == 3
    assert all(n.node_id == n.metadata["chunk_id"] for n in nodes)
    index = VectorStoreIndex(nodes, embed_model=MockEmbedding(embed_dim=8))
    assert sorted(index.docstore.docs) == sorted(ids)
    assert sorted(n.text for n in index.docstore.docs.values()) == sorted(PAGES)  # type: ignore[attr-defined]


def test_parent_child_ids_are_unique_per_document_too() -> None:
    text = "# Part\n\nGardens need water.\n\nRivers run to the sea."
    docs = [LcDocument(page_content=text, metadata={"source": "s", "page": p}) for p in (1, 2)]
    out = JwTextSplitter("parent-child").split_documents(docs)
    by_page = {p: [d.metadata for d in out if d.metadata["page"] == p] for p in (1, 2)}
    assert {m["parent_id"] for m in by_page[1]}.isdisjoint({m["parent_id"] for m in by_page[2]})
    assert len({d.metadata["chunk_id"] for d in out}) == len(out)


@pytest.mark.parametrize("sep", ["\r\n\r\n", "\n\n\n", "\n \t\n", "\r\r"])
def test_llamaindex_offsets_hold_across_any_paragraph_break(sep: str) -> None:
    paragraphs = [
        "Many believe the soul survives death.",
        "However, Ezekiel 18:4 says the soul who sins will die.",
        "Line one\r\nof a paragraph written on two lines.",
        "Therefore, the soul is the person.",
        "Gardens need water in summer.",
    ]
    text = sep.join(paragraphs)
    nodes = JwNodeParser("semantic").get_nodes_from_documents([LiDocument(text=text)])
    assert any("\n\n" in n.text for n in nodes)  # some chunk spans a paragraph break
    for node in nodes:
        written = text[node.start_char_idx : node.end_char_idx]
        as_chunk = re.sub(r"\n[ \t]*\n+", "\n\n", written.replace("\r\n", "\n").replace("\r", "\n"))
        assert as_chunk == node.text


def _doc(size: int) -> str:
    words = "the soul dies however life water garden many believe scripture".split()
    paras, total, i = [], 0, 0
    while total < size:
        para = " ".join(words[(i + k) % len(words)] for k in range(40 + i % 60)) + "."
        paras.append(para)
        total += len(para) + 2
        i += 1
    return "\n\n".join(paras)


def test_llamaindex_parsing_is_linear_in_document_size() -> None:
    small, large = _doc(250_000), _doc(2_000_000)
    times = []
    gc.collect()
    gc.disable()  # a collection of the older generations in one run alone doubled it (flaky)
    try:
        for text in (small, large):
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                JwNodeParser("paragraph").get_nodes_from_documents([LiDocument(text=text)])
                best = min(best, time.perf_counter() - start)
            times.append(best)
    finally:
        gc.enable()
    # eight times the text: about eight times the time when linear, 64 when quadratic
    assert times[1] / times[0] < 24, times


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \t\r\n\u200b", max_size=80))
def test_block_offsets_match_the_blocks_chunkers_read(text: str) -> None:
    """For any text, each block :func:`split_blocks` gives lies at its offsets
    in the text as written (line breaks read as chunkers read them)."""
    blocks = split_blocks(text)
    where = BlockOffsets(text)
    assert len(where.starts) == len(blocks)
    for i, block in enumerate(blocks):
        start, end = where.offset(i, 0), where.offset(i, len(block))
        assert text[start:end].replace("\r\n", "\n").replace("\r", "\n") == block


def test_any_metadata_gives_stable_ids() -> None:
    meta = {1: "a", "b": {2: 3, "x": [1]}, "source": "s", "when": object}
    doc = LcDocument(page_content="Gardens need water.", metadata=meta)
    first = JwTextSplitter("paragraph").split_documents([doc])
    again = JwTextSplitter("paragraph").split_documents([doc])
    assert [d.metadata["chunk_id"] for d in first] == [d.metadata["chunk_id"] for d in again]
    assert JwTextSplitter("paragraph").split_documents([LcDocument(page_content=" \n\n ")]) == []
