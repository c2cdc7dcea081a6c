"""A chunk over many pages lists each page once, in order, in linear work."""

from __future__ import annotations

import pytest

from jw_rag.chunkers import get_chunker
from jw_rag.model import Paragraph


class _Page(int):
    """A page number that counts how often it is compared for equality."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        type(self).compared += 1
        return int.__eq__(self, other)

    __hash__ = int.__hash__


@pytest.mark.parametrize(
    "spec",
    [
        "paragraph:max_chars=1000000000,min_chars=999999999",
        "semantic:target_chars=1000000000,max_chars=1000000000",
    ],
)
def test_a_chunk_over_many_pages_gathers_them_in_linear_work(spec: str) -> None:
    # every new page searched the list so far: 40,000 one-paragraph pages took 7 s
    n = 6000
    paras = [Paragraph(f"p{i} ok.", id=str(i), page=_Page(i // 2 + 1)) for i in range(n)]
    _Page.compared = 0
    chunks = get_chunker(spec).chunk(paras, "d", metadata={"language": "en"})
    assert len(chunks) == 1 and chunks[0].metadata["pages"] == list(range(1, n // 2 + 1))
    assert _Page.compared < 20 * n
