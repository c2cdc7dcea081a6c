"""Text from JSON may hold lone surrogates (``"\\ud800"`` decodes to one): every
chunker chunks it, in a paragraph's text, its id or the source id, and ids of
valid text are what they always were."""

from __future__ import annotations

import pytest

from jw_rag.chunk_ids import unit_id
from jw_rag.chunkers import available_chunkers, get_chunker
from jw_rag.chunkers.parent_child import source_hash
from jw_rag.embed import FakeEmbedder
from jw_rag.model import Paragraph

INPUTS = {
    "text": (["Bad \ud800 text here.", "Second paragraph."], "doc"),
    "source id": (["Some text here.", "Second paragraph."], "doc\udcff"),
    "paragraph id": ([Paragraph(text="Some text.", id="p\udc80")], "doc"),
}


@pytest.mark.parametrize("name", [n for n in available_chunkers() if n != "llm"])
@pytest.mark.parametrize("case", list(INPUTS))
def test_every_chunker_chunks_text_holding_lone_surrogates(name: str, case: str) -> None:
    paras, source_id = INPUTS[case]
    options = {"embedder": FakeEmbedder()} if name == "embedding" else {}
    chunks = get_chunker(name, **options).chunk(paras, source_id, metadata={"language": "en"})
    assert chunks and all(c.id.startswith(source_id + ":") for c in chunks)
    assert len({c.id for c in chunks}) == len(chunks)


def test_ids_and_hashes_of_valid_text_are_unchanged() -> None:
    assert unit_id("doc", "peer", "0-120") == "doc:c1d7d63bc0b8"
    assert source_hash(["A.", "B."]) == source_hash(["A.", "B."])
    assert source_hash(["caf\u00e9"]) != source_hash(["caf\ud800"])
