"""The streamed ingest path (issue 30, part 5) gives exactly what the list
path gives: the chunker's chunks one at a time (``ChunkerBase.iter_chunks``),
units made as they come (``iter_passages``) and windows over an iterator
(``with_window_units``), compared with ``chunk`` / ``passages`` /
``iter_window_units`` over whole lists, for any paragraphs."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.chunk_ids import link_in_order, linked_in_order
from jw_rag.chunkers import get_chunker
from jw_rag.ingest.pipeline import add_embed_prefix, chunk_document
from jw_rag.model import Chunk, Document, Paragraph, rebuild_text
from jw_rag.units import DEFAULT_UNITS, NO_UNITS, UnitRules, iter_passages, passages
from jw_rag.windows import iter_window_units, with_window_units

WORDS = ["Water", "the", "garden", "soil.", "keeps", "it", "morning", "Roots", "drink?", "and"]


@st.composite
def paragraphs(draw: st.DrawFn) -> list[Paragraph]:
    out = []
    for i in range(draw(st.integers(1, 40))):
        size = draw(st.sampled_from([1, 2, 5, 20, 60, 150]))
        words = draw(st.lists(st.sampled_from(WORDS), min_size=size, max_size=size))
        heading = draw(st.sampled_from([(), ("One",), ("Two",)]))
        page = draw(st.sampled_from([None, 1, 2]))
        out.append(Paragraph(" ".join(words), id=f"p{i}", page=page, heading_path=heading))
    return out


RULES = [DEFAULT_UNITS, NO_UNITS, UnitRules(passage_chars=120, split_above=200, group_below=60)]


def _dicts(chunks: Sequence[Chunk]) -> list[tuple[str, str, str, dict]]:
    return [(c.id, c.text, c.source_id, dict(c.metadata)) for c in chunks]


def _old_with_windows(chunks: list[Chunk], paras: list[Paragraph], sizes: list[int]) -> list[Chunk]:
    """The list path's order, from the list-based window streams: each chunk,
    then the windows ending at it (one per member list across sizes)."""
    streams: list[Iterator[Chunk]] = [iter_window_units(chunks, paras, max_chars=m) for m in sizes]
    heads = [next(s, None) for s in streams]
    out: list[Chunk] = []
    for chunk in chunks:
        out.append(chunk)
        emitted: set[str] = set()
        for n, stream in enumerate(streams):
            while (head := heads[n]) is not None and head.metadata["window"][-1] == chunk.id:
                if head.id not in emitted:
                    emitted.add(head.id)
                    out.append(head)
                heads[n] = next(stream, None)
    return out


@settings(max_examples=150, deadline=None)
@given(paragraphs(), st.sampled_from(RULES), st.sampled_from([(2000, 3000), (300, 700), (0, 500)]))
def test_streamed_units_and_windows_equal_the_list_path(
    paras: list[Paragraph], rules: UnitRules, sizes: tuple[int, int]
) -> None:
    chunker = get_chunker("paragraph")
    meta = {"language": "en", "title": "T"}
    listed = passages(chunker.chunk(paras, "s", metadata=meta), paras, rules)
    streamed = list(iter_passages(chunker.iter_chunks(paras, "s", metadata=meta), paras, rules))
    assert _dicts(streamed) == _dicts(listed)
    for unit in streamed:  # exact provenance, as the list path promises
        assert rebuild_text(paras, unit.metadata["span"]) == unit.text
    small, wide = sizes
    got = list(with_window_units(iter(streamed), paras, max_chars=small, wide_chars=wide))
    want = _old_with_windows(listed, paras, [small, wide] if wide != small else [small])
    assert _dicts(got) == _dicts(want)


@settings(max_examples=60, deadline=None)
@given(paragraphs())
def test_the_pipeline_stores_what_chunk_document_gives(paras: list[Paragraph]) -> None:
    """ingest_documents streams; chunk_document is the list path: same units."""
    from jw_rag.embed import FakeEmbedder
    from jw_rag.ingest import ingest_documents
    from jw_rag.store import SQLiteStore

    doc = Document("d", paras, title="Garden", language="en")
    want = chunk_document(doc)
    add_embed_prefix(want, doc.title)
    with SQLiteStore(":memory:", FakeEmbedder(dim=8)) as store:
        (result,) = ingest_documents(store, [doc], window_chars=0)
        stored = store.get([c.id for c in want])
    assert result.chunks == len(want)
    assert _dicts(stored) == _dicts(want)


def test_linking_as_they_come_is_linking_the_list() -> None:
    def units(n: int) -> list[Chunk]:
        return [Chunk(f"u{i}", "t", "s", {"chunk_index": 7, "x": i}) for i in range(n)]

    for n in (0, 1, 2, 5):
        listed = units(n)
        link_in_order(listed)
        assert _dicts(list(linked_in_order(iter(units(n))))) == _dicts(listed)
