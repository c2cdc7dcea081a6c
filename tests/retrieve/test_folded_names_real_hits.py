"""``Delivery.folded`` names store hits by their chunks' ids: never a window's
internal id, never a hit folded into itself; every id it names is in the
text delivered at the rank it names."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jw_rag.chunkers import ParagraphChunker
from jw_rag.embed import FakeEmbedder
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore
from jw_rag.windows import window_units

ARTICLE = [
    "Many people believe the soul lives on after death, in heaven or somewhere else entirely.",
    "However, Ezekiel 18:4 says plainly that the soul who sins is the one who will die.",
    "Therefore, the soul is the person himself and not an immortal part inside him.",
    "Gardens need water every morning during the hot summer months to grow tomatoes well.",
    "This is why farmers in dry lands dig wells and channels before they plant anything.",
    "Music has been part of worship since ancient times, with harps, cymbals and singing.",
]
WORDS = sorted({w.strip(".,:").lower() for p in ARTICLE for w in p.split()})


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SQLiteStore:
    s = SQLiteStore(tmp_path_factory.mktemp("f") / "s.sqlite", FakeEmbedder(dim=64))
    chunks = ParagraphChunker(min_chars=10).chunk(ARTICLE, "art", metadata={"language": "en"})
    s.replace_source("art", [*chunks, *window_units(chunks, ARTICLE, max_chars=400)])
    return s


def _check(store: SQLiteStore, query: str, mode: str, expand: str) -> None:
    delivery = retrieve(store, query, k=3, mode=mode, expand=expand)  # type: ignore[arg-type]
    by_rank = {h.rank: h for h in delivery}
    for folded_id, rank in delivery.folded.items():
        assert ":w" not in folded_id, (query, folded_id)  # a window's id is internal
        hit = by_rank[rank]
        assert folded_id != hit.chunk.id, (query, folded_id)  # never folded into itself
        assert folded_id in {c.id for c in hit.expanded}, (query, folded_id)


@pytest.mark.parametrize("expand", ["segment", "neighbors", "chain", "none"])
@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_folded_on_the_default_index(store: SQLiteStore, mode: str, expand: str) -> None:
    for query in ("soul", "the soul who sins will die", "water gardens wells", "music"):
        _check(store, query, mode, expand)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join),
    st.sampled_from(["bm25", "hybrid"]),
    st.sampled_from(["segment", "neighbors", "relevant"]),
)
def test_folded_for_any_query(store: SQLiteStore, query: str, mode: str, expand: str) -> None:
    _check(store, query, mode, expand)
