"""Whitespace cleaning (``clean_text``) is done a piece at a time on long text:
the same output as cleaning the whole string at once, for any text and any
piece size, and a peak memory near the text's size, not one object per word."""

from __future__ import annotations

import re
import sys
import tracemalloc
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.ingest import _html
from jw_rag.ingest._html import clean_text

#: Every character ``str.isspace`` (and ``\s``) takes for whitespace, and the
#: invisible ones the cleaner drops.
SPACES = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
INVISIBLE = list("\u00ad\u200b\u200c\u200d\u2060\ufeff")


def whole(text: str) -> str:
    """The cleaner as it was defined before: one pass over the whole string."""
    return re.sub(r"\s+", " ", re.sub("[\u00ad\u200b\u200c\u200d\u2060\ufeff]", "", text)).strip()


texts = st.lists(
    st.one_of(
        st.sampled_from(SPACES),
        st.sampled_from(INVISIBLE),
        st.text(alphabet=st.sampled_from("ab.é\u4e2d\U0001d400"), min_size=1, max_size=4),
        st.text(max_size=3),
    ),
    max_size=60,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts, st.integers(min_value=1, max_value=9))
def test_cleaning_a_piece_at_a_time_is_cleaning_the_whole(text: str, piece: int) -> None:
    with mock.patch.object(_html, "_CLEAN_PIECE", piece):
        assert clean_text(text) == whole(text)
    assert clean_text(text) == whole(text)


def test_edges_of_the_pieces() -> None:
    with mock.patch.object(_html, "_CLEAN_PIECE", 4):
        for text in [
            "",
            " " * 50,
            "\u200b" * 50,
            " \u200b" * 50,
            "a" + " " * 50 + "b",
            "\u3000" * 9 + "a" + "\u2029" * 9,
            "aaaa    bbbb\u200b    cccc",
            "a\u200b \u200bb",
        ]:
            assert clean_text(text) == whole(text), text


def test_a_long_paragraph_is_cleaned_in_about_its_own_size() -> None:
    """A 4 MiB paragraph of prose peaked at about 14 times its size (``re.sub``
    held a string per word until it joined them); a few times it now."""
    text = ("Gardens need water\u00a0every morning,\tand the soil keeps it.\n" * 70_000)[
        : 4 * 1024 * 1024
    ]
    text = " " + text + "\u200b "
    tracemalloc.start()
    try:
        out = clean_text(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out == whole(text)
    assert peak < 3.5 * len(text), f"peak {peak / len(text):.1f} times the text"
