"""The LangChain adapter against the real langchain-text-splitters."""

from __future__ import annotations

import re
from pathlib import Path

from langchain_core.documents import Document
from langchain_text_splitters import TextSplitter

from jw_rag.adapters.langchain import JwTextSplitter
from jw_rag.chunkers import SemanticChunker

README = Path(__file__).resolve().parents[2] / "README.md"

TEXT = (
    "Many believe the soul survives death.\n\n"
    "However, Ezekiel 18:4 says the soul who sins will die.\n\n"
    "Gardens need water in summer."
)


def test_split_text_uses_our_chunker() -> None:
    splitter = JwTextSplitter("paragraph:min_chars=10")
    assert isinstance(splitter, TextSplitter)
    assert splitter.split_text(TEXT) == TEXT.split("\n\n")
    # the semantic chunker joins the "However" paragraph to its premise
    assert JwTextSplitter(SemanticChunker()).split_text(TEXT) == [
        TEXT[: TEXT.index("\n\nGardens")],
        "Gardens need water in summer.",
    ]


def test_split_documents_keeps_metadata_and_adds_provenance() -> None:
    docs = [
        Document(page_content=TEXT, metadata={"source": "notes", "author": "a"}),
        Document(page_content="One paragraph only.", metadata={"page": 3}),
    ]
    out = JwTextSplitter("semantic:target_chars=100,min_chars=10").split_documents(docs)
    assert [d.metadata["source_id"] for d in out] == ["notes", "notes", "doc-1"]
    assert all(d.metadata["author"] == "a" for d in out[:2]) and out[2].metadata["page"] == 3
    assert [d.metadata["para_ids"] for d in out] == [[0, 1], [2], [0]]
    assert {d.metadata["chunker"] for d in out} == {"semantic"}
    assert len({d.metadata["chunk_id"] for d in out}) == 3
    # the spans reproduce each chunk's text from the paragraphs it came from
    paras = TEXT.split("\n\n")
    for doc in out[:2]:
        span = doc.metadata["span"]
        first, last = span["start_para"], span["end_para"]
        joined = "\n\n".join(paras[first : last + 1])
        end = len(joined) - len(paras[last]) + span["end_char"]
        assert doc.page_content == joined[span["start_char"] : end]
    assert docs[0].metadata == {"source": "notes", "author": "a"}  # inputs untouched


def test_readme_example_runs(capsys) -> None:
    block = re.search(
        r"### In a LangChain pipeline.*?```python\n(.*?)```", README.read_text(), re.S
    )
    assert block is not None
    exec(compile(block.group(1), "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "[0, 1] notes Many believe the soul survives death.",
        "[2] notes Gardens need water in summer.",
    ]
