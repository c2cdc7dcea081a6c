"""Window units: exact provenance, sizes, members."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jw_rag.chunkers import ParagraphChunker
from jw_rag.errors import ConfigError
from jw_rag.model import rebuild_text
from jw_rag.windows import is_window, members, window_units

PARAS = [
    "First point: the soul is the person himself.",  # 44
    "However, many believe it lives on after death.",  # 46
    "Therefore, the question deserves a careful look at the texts.",  # 61
    "Long. " * 60,  # 360 once stripped of the final space: too long to pair
    "Last words of the article are here.",  # 35
]


def _chunks(paras):
    return ParagraphChunker(min_chars=1).chunk(paras, "src", metadata={"language": "en"})


def test_windows_golden() -> None:
    chunks = _chunks(PARAS)
    wins = window_units(chunks, PARAS, max_chars=200)
    # every chunk starts the longest run that fits in 200 characters (separators
    # counted); "d" is too long to pair, and the last chunk starts nothing
    assert [[chunks.index(c) for c in chunks if c.id in members(w)] for w in wins] == [
        [0, 1, 2],
        [1, 2],
    ]
    assert [len(w.text) for w in wins] == [44 + 2 + 46 + 2 + 61, 46 + 2 + 61]
    w = wins[0]
    assert is_window(w) and not is_window(chunks[0])
    assert w.metadata["chunker"] == "window" and w.metadata["para_ids"] == [0, 1, 2]
    assert w.metadata["prev_id"] is None and w.source_id == "src"
    assert window_units(chunks, PARAS, max_chars=0) == []
    assert members(chunks[0]) == [chunks[0].id]
    with pytest.raises(ConfigError, match="max_chars"):
        window_units(chunks, PARAS, max_chars=-1)


@given(
    st.lists(st.text("ab .", min_size=1, max_size=80).filter(str.strip), min_size=1, max_size=8),
    st.integers(0, 300),
)
def test_windows_rebuild_from_their_span_and_fit(paras: list[str], size: int) -> None:
    chunks = _chunks(paras)
    ids = [c.id for c in chunks]
    for w in window_units(chunks, paras, max_chars=size):
        assert rebuild_text(paras, w.metadata["span"]) == w.text
        assert len(w.text) <= size
        run = members(w)
        assert len(run) >= 2
        start = ids.index(run[0])
        assert run == ids[start : start + len(run)]  # consecutive chunks
    again = window_units(chunks, paras, max_chars=size)
    assert [w.id for w in again] == [w.id for w in window_units(chunks, paras, max_chars=size)]


class _Pid(str):
    """A paragraph id that counts how often it is compared for equality."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        type(self).compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_a_long_window_gathers_its_ids_in_linear_work() -> None:
    # windows as wide as the document (window_chars in the millions): each gathered
    # its members' paragraph ids by searching the list so far, cubic in all
    paras = [f"Paragraph {i} says a few words." for i in range(600)]
    chunks = ParagraphChunker(min_chars=1).chunk(paras, "src", metadata={"language": "en"})
    for c in chunks:
        c.metadata["para_ids"] = [_Pid(p) for p in c.metadata["para_ids"]]
        c.metadata["pages"] = [_Pid(f"page-{p}") for p in c.metadata["para_ids"]]
    wins = window_units(chunks, paras, max_chars=10**9)
    assert len(wins) == len(chunks) - 1
    assert wins[0].metadata["para_ids"] == [str(i) for i in range(600)]
    assert wins[-1].metadata["pages"] == ["page-598", "page-599"]
    assert _Pid.compared < 10 * sum(len(members(w)) for w in wins)
