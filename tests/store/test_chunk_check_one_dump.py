"""A chunk's strings are checked for NUL characters and lone surrogates from one
JSON dump of its metadata; the dump may only ever say "clean" when every string,
keys included, is: anything else is looked at string by string, as before."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.errors import ConfigError, StoreError
from jw_rag.model import Chunk
from jw_rag.store._rows import _check_chunk, _plain_text, _strings

# text with the characters that matter over-represented: NUL, a lone surrogate,
# a backslash and the letters of a literal "\u0000"
_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(["\x00", "\udce9", "\\", "u", "0", "a", "é", " "]), st.characters()
    ),
    max_size=12,
)
_META = st.recursive(
    st.one_of(_TEXT, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=12,
)


def _bad(s: str) -> bool:
    return "\x00" in s or any("\ud800" <= ch <= "\udfff" for ch in s)


@settings(max_examples=400, deadline=None)
@given(text=_TEXT, meta=st.dictionaries(_TEXT, _META, max_size=5))
def test_the_one_dump_says_clean_only_when_every_string_is(text: str, meta: dict) -> None:
    chunk = Chunk(id="s:1", text=text, source_id="s", metadata=meta)
    dirty = any(_bad(s) for s in _strings((text, meta)))
    if dirty:
        assert not _plain_text(chunk)
        with pytest.raises((StoreError, ConfigError)):
            _check_chunk(chunk, "chunk")
    else:
        assert _check_chunk(chunk, "chunk") is chunk


@pytest.mark.parametrize(
    ("meta", "error"),
    [
        ({"title": "a\x00b"}, "NUL character"),
        ({"k\x00": "v"}, "NUL character"),
        ({"ids": ["x", ["y", "caf\udce9"]]}, "not text"),
        ({"caf\udce9": 1}, "not text"),
    ],
)
def test_a_bad_string_deep_in_the_metadata_is_still_named(meta: dict, error: str) -> None:
    with pytest.raises((StoreError, ConfigError), match=error):
        _check_chunk(Chunk(id="s:1", text="t", source_id="s", metadata=meta), "chunk")


def test_a_literal_backslash_u0000_is_text_not_a_nul() -> None:
    chunk = Chunk(id="s:1", text="t", source_id="s", metadata={"note": "write \\u0000 for NUL"})
    assert not _plain_text(chunk)  # the dump cannot tell, so the strings are looked at
    assert _check_chunk(chunk, "chunk") is chunk
