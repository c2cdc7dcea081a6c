"""The LangChain splitter behaves as LangChain's own: ``add_start_index``,
PDF-loader pages (one document per page, one source) and a vector store
round trip."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter

from jw_rag.adapters.langchain import JwTextSplitter

# what PyPDFLoader gives: one Document per page, all with the same source
PAGES = [
    "Chapter one begins here.\n\nIt goes on for a while.",
    "Page two holds the second part.\r\n\r\nAnd a closing line.",
    "Chapter one begins here.\n\nIt goes on for a while.",
]


def pdf_documents() -> list[Document]:
    return [
        Document(page_content=t, metadata={"source": "/data/book.pdf", "page": n})
        for n, t in enumerate(PAGES)
    ]


def test_add_start_index_like_langchains_own() -> None:
    text = "Same line.\n\nSame line.\n\nOther line."
    ours = JwTextSplitter("paragraph:min_chars=1", add_start_index=True).create_documents([text])
    theirs = RecursiveCharacterTextSplitter(
        chunk_size=12, chunk_overlap=0, add_start_index=True
    ).create_documents([text])
    assert [d.page_content for d in ours] == [d.page_content for d in theirs]
    assert [d.metadata["start_index"] for d in ours] == [0, 12, 24]
    assert [d.metadata["start_index"] for d in theirs] == [0, 12, 24]
    for doc in ours:
        start = doc.metadata["start_index"]
        assert text[start : start + len(doc.page_content)] == doc.page_content


def test_no_start_index_unless_asked() -> None:
    docs = JwTextSplitter("paragraph").create_documents(["One.\n\nTwo."])
    assert all("start_index" not in d.metadata for d in docs)


def test_pdf_pages_keep_page_metadata_and_get_distinct_ids() -> None:
    out = JwTextSplitter("paragraph:min_chars=5", add_start_index=True).split_documents(
        pdf_documents()
    )
    assert [d.metadata["page"] for d in out] == [0, 0, 1, 1, 2, 2]
    assert len({d.metadata["chunk_id"] for d in out}) == 6  # the repeated page too
    assert {d.metadata["source_id"] for d in out} == {"/data/book.pdf"}
    for doc in out:
        page = PAGES[doc.metadata["page"]]
        start = doc.metadata["start_index"]
        assert page[start : start + len(doc.page_content)] == doc.page_content
    assert out[3].metadata["start_index"] == len("Page two holds the second part.\r\n\r\n")


@pytest.mark.parametrize("k", [1, 6])
def test_vector_store_round_trip(k: int) -> None:
    docs = JwTextSplitter("paragraph:min_chars=5").split_documents(pdf_documents())
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    ids = store.add_documents(docs, ids=[d.metadata["chunk_id"] for d in docs])
    assert ids == [d.metadata["chunk_id"] for d in docs]
    hits = store.similarity_search(docs[3].page_content, k=k)
    assert hits[0].page_content == docs[3].page_content  # the same text embeds the same
    assert hits[0].metadata == docs[3].metadata  # provenance survives the store
    assert len(hits) == k
    got = store.get_by_ids([docs[0].metadata["chunk_id"]])
    assert got[0].metadata["span"] == docs[0].metadata["span"]
