"""Source ids are stored as given, so one that came in NFD (a macOS file
name) and the same id typed in NFC are different strings. The source filter,
delete_source and unknown_sources name a stored id equal under NFC, alike on
every backend; stored ids are never rewritten (a re-ingest keeps its source)."""

from __future__ import annotations

import unicodedata

import pytest

from jw_rag.errors import ConfigError
from jw_rag.retrieve import retrieve, unknown_sources
from jw_rag.store import Store
from tests.store.store_helpers import make_chunks


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def _sources(hits: list) -> set[str]:  # type: ignore[type-arg]
    return {h.chunk.source_id for h in hits}


@pytest.mark.parametrize("stored_form", [nfd, nfc])
def test_an_id_in_the_other_unicode_form_names_the_stored_source(
    store: Store, stored_form: object
) -> None:
    stored = stored_form("café/ñandú")  # type: ignore[operator]
    typed = nfc(stored) if stored != nfc(stored) else nfd(stored)
    assert typed != stored
    store.replace_source(stored, make_chunks(stored, 4))
    store.replace_source("other", make_chunks("other", 4))
    assert store.matching_sources(typed) == [stored] == store.matching_sources(stored)
    for mode in ("bm25", "dense", "hybrid"):
        hits = store.search("lamps", k=20, mode=mode, filters={"source_id": typed})  # type: ignore[arg-type]
        assert _sources(hits) == {stored}, mode
        hits = store.search("lamps", k=20, mode=mode, filters={"source_id": [typed, "other"]})  # type: ignore[arg-type]
        assert _sources(hits) == {stored, "other"}, mode
    assert {
        h.chunk.source_id for h in retrieve(store, "lamps", 3, filters={"source_id": typed})
    } == {stored}
    assert unknown_sources(store, {"source_id": [typed, "nope", "cafe"]}) == ["nope", "cafe"]
    # re-ingesting under the stored id keeps one source; nothing was renamed
    store.replace_source(stored, make_chunks(stored, 4, tag="again"))
    assert store.stats()["sources"] == 2 and store.get_source(stored) is not None
    assert store.get_source(typed) is None  # get_source stays exact
    assert store.delete_source(typed) == 4
    assert store.get_source(stored) is None and store.matching_sources(typed) == []
    assert store.search("lamps", filters={"source_id": typed}, mode="bm25") == []
    assert store.delete_source(typed) == 0


def test_an_exact_id_wins_and_a_mixed_form_is_found(store: Store) -> None:
    composed, decomposed = nfc("éé"), nfd("éé")
    mixed = nfc("é") + nfd("é")
    store.replace_source(composed, make_chunks(composed, 2))
    store.replace_source(decomposed, make_chunks(decomposed, 3))
    assert store.matching_sources(composed) == [composed]
    assert _sources(
        store.search("lamps", k=20, mode="bm25", filters={"source_id": decomposed})
    ) == {decomposed}
    # a third form names both: a search takes both, a delete refuses to guess
    assert sorted(store.matching_sources(mixed)) == sorted([composed, decomposed])
    assert _sources(store.search("lamps", k=20, mode="bm25", filters={"source_id": mixed})) == {
        composed,
        decomposed,
    }
    with pytest.raises(ConfigError, match=r"names 2 stored ids that differ only in Unicode form"):
        store.delete_source(mixed)
    assert store.stats()["chunks"] == 5
    assert store.delete_source(decomposed) == 3
    assert store.matching_sources(mixed) == [composed]
    assert store.delete_source(mixed) == 2


def test_ascii_and_unmatched_ids_are_as_before(store: Store) -> None:
    store.replace_source("alma", make_chunks("alma", 2))
    assert store.matching_sources("alma") == ["alma"]
    for other in ("ALMA", "alma ", "alm%", "", "x" * 50_000, "é" * 50_000):
        assert store.matching_sources(other) == []
        assert store.search("lamps", mode="bm25", filters={"source_id": other}) == []
        assert store.delete_source(other) == 0
    assert store.stats()["chunks"] == 2
