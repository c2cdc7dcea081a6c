"""The query length limit counts a query's characters as composed (NFC), so
the same words count the same however they were typed: ``é`` typed as ``e``
plus a combining accent (NFD, as macOS file names and some PDFs give it) was
two characters, and a question of 2,001 accented letters pasted from such a
source was refused while the same question typed on Linux was searched."""

from __future__ import annotations

import time
import unicodedata

import pytest

from jw_rag.errors import ConfigError
from jw_rag.limits import MAX_QUERY_CHARS
from jw_rag.store import check_search
from tests.store.conftest import StoreFactory
from tests.store.store_helpers import make_chunks


def _accented(n: int, form: str) -> str:
    return unicodedata.normalize(form, ("lámps ànd óil " * n)[:n])


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_a_decomposed_query_at_the_limit_is_searched(
    store_factory: StoreFactory, mode: str
) -> None:
    store = store_factory()
    store.add(make_chunks("book", 5))
    query = _accented(MAX_QUERY_CHARS, "NFD")
    assert len(query) > MAX_QUERY_CHARS  # one code point more per accent
    assert len(store.search(query, k=3, mode=mode)) == 3  # type: ignore[arg-type]


@pytest.mark.parametrize("form", ["NFC", "NFD"])
def test_one_over_is_refused_in_either_form_naming_the_same_count(form: str) -> None:
    with pytest.raises(ConfigError) as caught:
        check_search(_accented(MAX_QUERY_CHARS + 1, form), 3)
    assert f"is {MAX_QUERY_CHARS + 1:,} characters long" in str(caught.value)


def test_marks_that_compose_with_nothing_count_each() -> None:
    # a letter piled with combining marks: each mark stays a character
    with pytest.raises(ConfigError, match="over the limit"):
        check_search("a" + "\u0301" * (MAX_QUERY_CHARS + 1), 3)


def test_a_huge_decomposed_query_is_refused_at_once() -> None:
    huge = _accented(2_000_000, "NFD")
    start = time.perf_counter()
    with pytest.raises(ConfigError, match="over the limit"):
        check_search(huge, 3)
    assert time.perf_counter() - start < 0.5
