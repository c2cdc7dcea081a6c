"""``store.source_languages(id)``: the languages a source's chunks record,
sorted, the same on SQLite and PostgreSQL (what ``list_sources`` shows)."""

from __future__ import annotations

import pytest

from jw_rag.store import Store
from tests.store.store_helpers import make_chunks


def test_one_several_none_and_an_unknown_source(store: Store) -> None:
    mixed = make_chunks("mixed", 4, language="es")
    for c in mixed[1::2]:
        c.metadata["language"] = "en"
    store.replace_source("mixed", mixed)
    store.replace_source("one", make_chunks("one", 3, language="pt"))
    unknown = make_chunks("unknown", 2)
    for c in unknown:
        c.metadata["language"] = None
    store.replace_source("unknown", unknown)
    assert store.source_languages("mixed") == ["en", "es"]  # type: ignore[attr-defined]
    assert store.source_languages("one") == ["pt"]  # type: ignore[attr-defined]
    assert store.source_languages("unknown") == []  # type: ignore[attr-defined]
    assert store.source_languages("gone") == []  # type: ignore[attr-defined]
    # rewritten in another language: only the new one
    store.replace_source("mixed", make_chunks("mixed", 2, language="de"))
    assert store.source_languages("mixed") == ["de"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad", ["a\x00b", 5, None])
def test_a_bad_id_is_one_line(store: Store, bad: object) -> None:
    with pytest.raises(Exception) as info:
        store.source_languages(bad)  # type: ignore[attr-defined, arg-type]
    assert "\n" not in str(info.value)
