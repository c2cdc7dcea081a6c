"""Retrieval with expansion: neighbours, marker-aware chains, parents, caps, staleness."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_eval.bench import DEFAULT_DATASET
from jw_rag.chunkers import ParagraphChunker, ParentChildChunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError, StaleIndexError
from jw_rag.model import Chunk, Paragraph
from jw_rag.retrieve import (
    approx_tokens,
    delivery_order,
    expand_hits,
    retrieve,
    search_depth,
)
from jw_rag.store import SQLiteStore

ARTICLE = [
    "Many people believe the soul lives on after death, in heaven or somewhere else entirely.",
    "However, Ezekiel 18:4 says plainly that the soul who sins is the one who will die.",
    "Therefore, the soul is the person himself and not an immortal part inside him.",
    "Gardens need water every morning during the hot summer months to grow tomatoes well.",
    "This is why farmers in dry lands dig wells and channels before they plant anything.",
    "Music has been part of worship since ancient times, with harps, cymbals and singing.",
]


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    s = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=64))
    chunks = ParagraphChunker(min_chars=10).chunk(ARTICLE, "art", metadata={"language": "en"})
    assert len(chunks) == len(ARTICLE)
    s.replace_source("art", chunks)
    return s


def _paras(hit) -> list[int]:
    return [c.metadata["para_ids"][0] for c in hit.expanded]


def test_no_expansion_delivers_the_hit(store: SQLiteStore) -> None:
    hits = retrieve(store, "Ezekiel 18:4 the soul who sins will die", k=1, expand="none")
    assert _paras(hits[0]) == [1]


def test_default_delivery_brings_the_premise_and_the_conclusion(store: SQLiteStore) -> None:
    # the "However" paragraph comes with the premise it answers and the conclusion
    hits = retrieve(store, "Ezekiel 18:4 the soul who sins will die", k=1)
    assert _paras(hits[0]) == [0, 1, 2]


def test_neighbors_window_and_dedup(store: SQLiteStore) -> None:
    hits = retrieve(store, "Ezekiel 18:4 the soul who sins will die", k=1, expand="neighbors")
    assert _paras(hits[0]) == [0, 1, 2]
    hits = retrieve(
        store, "Ezekiel 18:4 the soul who sins will die", k=1, expand="neighbors", reach=2
    )
    assert _paras(hits[0]) == [0, 1, 2, 3]
    # two adjacent hits: the second one's context was already delivered, nothing twice
    hits = retrieve(store, "soul", k=3, expand="neighbors")
    delivered = [c.id for h in hits for c in h.expanded]
    assert len(delivered) == len(set(delivered))


def test_chain_follows_markers_only(store: SQLiteStore) -> None:
    # the premise: "However" and "Therefore" open the next two paragraphs
    hits = retrieve(
        store, "many people believe the soul lives on after death in heaven", k=1, expand="chain"
    )
    assert _paras(hits[0]) == [0, 1, 2]
    # the conclusion pulls its premises back in
    hits = retrieve(
        store, "the soul is the person himself not an immortal part", k=1, expand="chain"
    )
    assert _paras(hits[0]) == [0, 1, 2]
    # "This is why ..." is a back-reference: the garden paragraph brings it along
    hits = retrieve(store, "gardens need water summer tomatoes", k=1, expand="chain")
    assert _paras(hits[0]) == [3, 4]
    # a self-contained paragraph comes back alone
    hits = retrieve(store, "music worship harps cymbals singing", k=1, expand="chain")
    assert _paras(hits[0]) == [5]


def test_context_cap(store: SQLiteStore) -> None:
    hits = retrieve(store, "soul", k=6, expand="neighbors", max_context_tokens=40)
    total = sum(approx_tokens(c.text) for h in hits for c in h.expanded)
    assert hits and total <= 40 + approx_tokens(max(ARTICLE, key=len)) * 3
    assert sum(approx_tokens(c.text) for h in hits[1:] for c in h.expanded) <= 40


TOPICS = [
    "Zebra herds cross the savanna in the dry season.",
    "On the savanna a zebra foal can run within an hour of birth.",
    "Volcanoes erupt molten rock and ash high into the sky.",
    "Chess openings include the Sicilian defence and the French.",
]


def test_relevant_brings_neighbours_as_close_to_the_query_as_the_weakest_hit(
    tmp_path: Path,
) -> None:
    s = SQLiteStore(tmp_path / "t.sqlite", FakeEmbedder(dim=64))
    s.replace_source(
        "t", ParagraphChunker(min_chars=10).chunk(TOPICS, "t", metadata={"language": "en"})
    )
    # both zebra paragraphs are hits: the better one delivers the other beside
    # it, and stops at the volcano paragraph, which is about something else
    plain = retrieve(s, "zebra savanna", k=2, expand="none")
    assert sorted(_paras(h)[0] for h in plain) == [0, 1]
    hits = retrieve(s, "zebra savanna", k=2, expand="relevant")
    assert _paras(hits[0]) == [0, 1]
    assert hits[0].chunk.id == plain[0].chunk.id
    # k counts delivered hits: the folded zebra hit leaves room for the next one
    assert len(hits) == 2 and not {0, 1} & set(_paras(hits[1]))
    # plain neighbours take whatever is next to the hit
    wide = retrieve(s, "zebra savanna", k=2, expand="neighbors", reach=2)
    assert _paras(wide[0]) == [0, 1, 2, 3]


def test_relevant_follows_markers_and_leaves_self_contained_paragraphs_alone(
    store: SQLiteStore,
) -> None:
    # "However" and "Therefore" link the argument even where the words differ
    hits = retrieve(
        store, "many people believe the soul lives on after death in heaven", k=1, expand="relevant"
    )
    assert _paras(hits[0]) == [0, 1, 2]
    hits = retrieve(store, "music worship harps cymbals singing", k=1, expand="relevant")
    assert _paras(hits[0]) == [5]


def test_relevant_needs_the_query(store: SQLiteStore) -> None:
    hits = store.search("soul", 2)
    with pytest.raises(ConfigError, match="needs the query"):
        expand_hits(store, hits, expand="relevant")


def test_budget_pays_for_the_hit_then_its_nearest_neighbours(store: SQLiteStore) -> None:
    q = "Ezekiel 18:4 the soul who sins will die"
    t = [approx_tokens(p) for p in ARTICLE]
    # the hit (paragraph 1) and, at equal distance, the paragraph before it first
    assert _paras(
        retrieve(store, q, k=1, expand="neighbors", reach=2, max_context_tokens=t[1] + t[0])[0]
    ) == [0, 1]
    assert _paras(
        retrieve(store, q, k=1, expand="neighbors", reach=2, max_context_tokens=t[1] + t[0] + t[2])[
            0
        ]
    ) == [0, 1, 2]
    # the next one out (paragraph 3) only when everything nearer is paid for
    assert _paras(
        retrieve(store, q, k=1, expand="neighbors", reach=2, max_context_tokens=sum(t[:4]))[0]
    ) == [0, 1, 2, 3]
    # a budget below the hit itself still delivers the first hit, alone
    assert _paras(retrieve(store, q, k=1, expand="neighbors", max_context_tokens=1)[0]) == [1]


def test_delivery_order_is_hit_then_nearest_first() -> None:
    group = [Chunk(i, "") for i in "abcdef"]
    assert [c.id for c in delivery_order(group[2], group)] == ["c", "b", "d", "a", "e", "f"]
    assert [c.id for c in delivery_order(group[0], group)] == ["a", "b", "c", "d", "e", "f"]
    # a parent group (the hit is inside the parent, not one of its chunks)
    assert [c.id for c in delivery_order(Chunk("child", ""), [Chunk("parent", "")])] == [
        "child",
        "parent",
    ]


def test_unknown_expansion_is_rejected(store: SQLiteStore) -> None:
    with pytest.raises(ConfigError, match="unknown expansion"):
        retrieve(store, "soul", expand="siblings")


SECTIONED = [
    Paragraph("The soul", kind="heading", heading_path=("The soul",)),
    Paragraph(ARTICLE[0], heading_path=("The soul",)),
    Paragraph(ARTICLE[1], heading_path=("The soul",)),
    Paragraph(ARTICLE[2], heading_path=("The soul",)),
    Paragraph("Gardens", kind="heading", heading_path=("Gardens",)),
    Paragraph(ARTICLE[3], heading_path=("Gardens",)),
    Paragraph(ARTICLE[4], heading_path=("Gardens",)),
]


def _parent_child_store(tmp_path: Path) -> tuple[SQLiteStore, list[Chunk], list[Chunk]]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    s = SQLiteStore(tmp_path / "pc.sqlite", FakeEmbedder(dim=64))
    # parents: one per section (semantic chunker split at the headings is not
    # guaranteed, so build sections with a paragraph chunker over each section)
    pc = ParentChildChunker(
        parent=_SectionChunker(), child=ParagraphChunker(min_chars=10, max_chars=400)
    )
    children, parents = pc.chunk_hierarchy(SECTIONED, "art", metadata={"language": "en"})
    s.replace_source("art", children, parents=parents)
    return s, children, parents


class _SectionChunker:
    """A tiny parent chunker for the test: one chunk per heading-led section."""

    name = "sections"
    version = "t1"

    def chunk(self, paragraphs, source_id, *, metadata=None):
        from jw_rag.chunkers._pieces import Piece, build_chunks
        from jw_rag.model import Span, as_paragraphs

        paras = as_paragraphs(paragraphs)
        starts = [i for i, p in enumerate(paras) if p.kind == "heading"] + [len(paras)]
        pieces = [
            Piece(Span(a, 0, b - 1, len(paras[b - 1].text)))
            for a, b in zip(starts, starts[1:], strict=False)
        ]
        return build_chunks(
            paras,
            pieces,
            source_id,
            chunker=self.name,
            version=self.version,
            language="en",
            metadata=metadata,
        )


def test_parent_expansion_groups_children(tmp_path: Path) -> None:
    s, children, parents = _parent_child_store(tmp_path)
    assert len(parents) == 2
    assert all(c.metadata["parent_id"] in {p.id for p in parents} for c in children)
    hits = retrieve(s, "Ezekiel 18:4 the soul who sins will die", k=4, expand="parent")
    assert hits[0].expanded[0].id == parents[0].id
    assert hits[0].expanded[0].text.startswith("The soul\n\nMany people")
    delivered = [c.id for h in hits for c in h.expanded]
    assert len(delivered) == len(set(delivered)) <= 2
    one = retrieve(s, "soul", k=4, expand="parent", max_parents=1)
    assert len(one) == 1


def test_max_parents_counts_parents_not_hits_without_one(tmp_path: Path) -> None:
    """``expand="parent"`` on chunks that have no parent delivers each hit alone,
    k of them: max_parents (5) caps parents, and such hits deliver none (a
    search asked for 10 got 5, with no word why)."""
    from jw_rag.ingest import ingest_article

    s = SQLiteStore(tmp_path / "plain.sqlite", FakeEmbedder(dim=64))
    for page in sorted((DEFAULT_DATASET / "corpus" / "en").glob("*.html"))[:4]:
        ingest_article(s, page)
    hits = retrieve(s, "the soul", k=10, expand="parent", max_context_tokens=None)
    assert len(hits) == 10
    # each hit alone (a window hit: its members), no context, no parent
    assert all(h.chunk in h.expanded and "parent_id" not in h.chunk.metadata for h in hits)
    assert len(retrieve(s, "the soul", k=10, expand="parent", max_parents=2)) == 10
    s.close()


def test_stale_parent_is_refused(tmp_path: Path) -> None:
    s, children, parents = _parent_child_store(tmp_path)
    changed = Chunk(parents[0].id, parents[0].text + " Edited.", "art", dict(parents[0].metadata))
    changed.metadata["source_hash"] = "0000"
    s.add_parents([changed])
    with pytest.raises(StaleIndexError, match="re-ingest source 'art'"):
        retrieve(s, "Ezekiel 18:4 the soul who sins will die", k=1, expand="parent")
    # a missing parent is stale too
    s2, children2, _ = _parent_child_store(tmp_path / "b")
    s2.replace_source("art", children2)  # parents dropped, children still point at them
    with pytest.raises(StaleIndexError, match="not in the store"):
        retrieve(s2, "gardens water", k=1, expand="parent")


def test_parent_child_ingest_end_to_end(tmp_path: Path) -> None:
    from jw_rag.ingest import ingest_article

    corpus = DEFAULT_DATASET / "corpus"
    article = corpus / "en" / "soul.html"
    s = SQLiteStore(tmp_path / "e2e.sqlite", FakeEmbedder(dim=64))
    chunker = ParentChildChunker(
        parent="semantic", child="paragraph", parent_options={"max_chars": 3000}
    )
    result = ingest_article(s, article, chunker=chunker)
    stats = s.stats()
    assert result.chunks > 0 and stats["parents"] > 0
    hits = retrieve(s, "Does Matthew 10:28 show the soul survives the body?", k=5, expand="parent")
    assert hits and all(
        h.expanded[0].metadata["role"] == "parent"
        for h in hits
        if h.chunk.metadata.get("parent_id")
    )
    # parents are not searched: every hit is a child
    assert all(h.chunk.metadata["role"] == "child" for h in hits)


def test_delivery_accounts_for_every_store_hit(store: SQLiteStore) -> None:
    raw = store.search("soul", search_depth(3), mode="bm25")
    delivery = retrieve(store, "soul", k=3, mode="bm25", expand="neighbors")
    assert delivery.folded, "adjacent hits fold into the first one's neighbours"
    delivered = {h.chunk.id for h in delivery}
    # every store hit is either delivered as a hit or folded into one
    assert [h.chunk.id for h in raw] and all(
        h.chunk.id in delivered or h.chunk.id in delivery.folded for h in raw
    )
    assert len(delivered) + len(delivery.folded) == len(raw)
    by_rank = {h.rank: {c.id for c in h.expanded} for h in delivery}
    for chunk_id, rank in delivery.folded.items():
        assert chunk_id in by_rank[rank] and chunk_id in delivery.folded_into(rank)
