"""The chunker base: every chunker's ``params()``, ``repr`` and identity, the one
size check, and the one builder of chunk ids and reading-order links."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jw_rag.chunk_ids import link_in_order, span_id, unit_id
from jw_rag.chunker import chunk_paragraphs
from jw_rag.chunkers import (
    ChunkerBase,
    EmbeddingChunker,
    PageChunker,
    ParagraphChunker,
    SemanticChunker,
    StructureChunker,
    available_chunkers,
    get_chunker,
)
from jw_rag.chunkers.base import ChunkInput, check_sizes
from jw_rag.chunkers.fakes import FakeChunker, FakeParagraphChunker, FakeSemanticChunker
from jw_rag.chunkers.protocol import identity
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.model import Chunk, Paragraph, Span
from jw_rag.units import passages
from jw_rag.windows import window_units

EMBEDDER = FakeEmbedder(16)
#: Options each registered chunker is built with here (no network, no model).
BUILD: dict[str, dict[str, Any]] = {
    "embedding": {"embedder": EMBEDDER},
    "llm": {"provider": "heuristic", "cache": False},
}


def _every_chunker() -> list[Any]:
    built = [get_chunker(name, **BUILD.get(name, {})) for name in available_chunkers()]
    return [*built, FakeChunker(group=2), FakeParagraphChunker(), FakeSemanticChunker()]


# --- params, repr, identity ---------------------------------------------------

GOLDEN_PARAMS = {
    "paragraph": {"max_chars": 1500, "min_chars": 80},
    "semantic": {
        "max_chars": 1500,
        "min_chars": 80,
        "overflow": 0.3,
        "max_continuations": 2,
        "target_chars": None,
        "markers_path": None,
    },
    "structure": {"max_chars": 1500, "min_chars": 200, "prefix_headings": True, "separator": " > "},
    "page": {"max_chars": 1500, "min_chars": 80, "overlap": True, "overlap_chars": 300},
    "embedding": {
        "embedder": EMBEDDER.model_id,
        "window": 3,
        "top_percent": 8.0,
        "min_chars": 200,
        "max_chars": 1500,
    },
}

GOLDEN_REPR = {
    "paragraph": "ParagraphChunker(max_chars=1500, min_chars=80)",
    "semantic": (
        "SemanticChunker(max_chars=1500, min_chars=80, overflow=0.3, max_continuations=2, "
        "target_chars=None, markers_path=None)"
    ),
    "structure": (
        "StructureChunker(max_chars=1500, min_chars=200, prefix_headings=True, separator=' > ')"
    ),
    "page": "PageChunker(max_chars=1500, min_chars=80, overlap=True, overlap_chars=300)",
    "embedding": (
        f"EmbeddingChunker(embedder={EMBEDDER!r}, window=3, top_percent=8.0, "
        "min_chars=200, max_chars=1500)"
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_PARAMS))
def test_params_and_repr_golden(name: str) -> None:
    chunker = get_chunker(name, **BUILD.get(name, {}))
    assert chunker.params() == GOLDEN_PARAMS[name]
    assert list(chunker.params()) == list(GOLDEN_PARAMS[name])  # the order shown
    assert repr(chunker) == GOLDEN_REPR[name]


def test_every_chunker_states_params_repr_and_identity() -> None:
    for chunker in _every_chunker():
        params = chunker.params()
        assert json.loads(json.dumps(params)) == params, chunker.name  # JSON values
        ident = identity(chunker)
        assert ident == {"name": chunker.name, "version": chunker.version, "params": params}
        assert repr(chunker).startswith(type(chunker).__name__ + "(")
        if isinstance(chunker, ChunkerBase):
            assert chunker.identity() == ident
            for option in chunker.options:
                assert f"{option}=" in repr(chunker), (chunker.name, option)


def test_a_path_option_is_recorded_as_text(tmp_path: Any) -> None:
    chunker = SemanticChunker(markers_path=tmp_path / "m.json")
    assert chunker.params()["markers_path"] == str(tmp_path / "m.json")


def test_repr_of_the_default_embedding_chunker_builds_no_embedder() -> None:
    chunker = EmbeddingChunker()
    assert repr(chunker).startswith("EmbeddingChunker(embedder=None, window=3")
    assert chunker._embedder is None


def test_fake_params_and_repr() -> None:
    fake = FakeChunker("fake-x", group=3, language="es")
    assert (fake.name, fake.params()) == ("fake-x", {"group": 3, "language": "es"})
    assert repr(fake) == "FakeChunker(group=3, language='es')"


# --- a chunker of one's own ----------------------------------------------------


class _Halves(ChunkerBase):
    """A minimal chunker on the base: each non-blank paragraph cut in two halves."""

    name = "halves"
    version = "1"
    options = ("min_chars",)

    def __init__(self, *, min_chars: int = 2) -> None:
        self.min_chars = min_chars

    def _pieces_for(self, doc: ChunkInput) -> list[tuple[int, int, int, int, None]]:
        out = []
        for k, text in enumerate(doc.texts):
            if len(text) >= self.min_chars:
                out += [(k, 0, k, len(text) // 2, None), (k, len(text) // 2, k, len(text), None)]
        return out


def test_a_chunker_on_the_base_gets_the_whole_protocol() -> None:
    chunker = _Halves()
    chunks = chunker.chunk(["abcd", "x", "efgh"], "d", metadata={"language": "en", "tag": 1})
    assert [c.text for c in chunks] == ["ab", "cd", "ef", "gh"]
    assert [c.metadata["chunk_index"] for c in chunks] == [0, 1, 2, 3]
    assert all(c.metadata["chunker"] == "halves" and c.metadata["tag"] == 1 for c in chunks)
    assert chunks[1].id == span_id("d", "halves", Span(0, 2, 0, 4))
    assert chunker.identity() == {"name": "halves", "version": "1", "params": {"min_chars": 2}}
    assert repr(chunker) == "_Halves(min_chars=2)"


def test_a_chunker_without_pieces_says_what_it_lacks() -> None:
    class Empty(ChunkerBase):
        name, version = "empty", "1"

    with pytest.raises(NotImplementedError, match="Empty must define _pieces_for"):
        Empty().chunk(["text"], "d")


def test_chunk_input_builds_paragraphs_only_when_asked() -> None:
    doc = ChunkInput("d", ["a", "b"], None, "en", None)
    assert doc.given is None
    assert doc.paragraphs == [Paragraph("a"), Paragraph("b")]
    assert doc.paragraphs is doc.paragraphs  # built once
    given = [Paragraph("a", id="p1")]
    assert ChunkInput("d", ["a"], given, None, None).paragraphs is given


@pytest.mark.parametrize("bad", [b"bytes", {"a": 1}, 42, ["ok", 3]])
def test_every_chunker_refuses_bad_input_in_one_line(bad: Any) -> None:
    for chunker in _every_chunker():
        with pytest.raises(TypeError, match="must be") as info:
            chunker.chunk(bad, "d")
        assert "\n" not in str(info.value), chunker.name


def test_empty_input_gives_no_chunks_from_every_chunker() -> None:
    for chunker in _every_chunker():
        assert chunker.chunk([], "d") == [], chunker.name
        assert chunker.chunk(["", "  \n "], "d") == [], chunker.name


def test_one_chunker_used_from_many_threads_gives_the_same_chunks() -> None:
    paras = [f"Paragraph {k} says something. However, it goes on." for k in range(60)]
    for chunker in (SemanticChunker(), StructureChunker(), PageChunker(), ParagraphChunker()):
        want = [(c.id, c.text) for c in chunker.chunk(paras, "d")]
        with ThreadPoolExecutor(4) as pool:
            runs = list(pool.map(lambda _: chunker.chunk(paras, "d"), range(8)))  # noqa: B023
        assert all([(c.id, c.text) for c in run] == want for run in runs)


# --- the one size check --------------------------------------------------------

SIZED = [
    lambda **kw: chunk_paragraphs(["x"], "s", **kw),
    lambda **kw: ParagraphChunker(**kw),
    lambda **kw: SemanticChunker(**kw),
    lambda **kw: StructureChunker(**kw),
    lambda **kw: PageChunker(**kw),
    lambda **kw: EmbeddingChunker(embedder=EMBEDDER, **kw),
    lambda **kw: get_chunker("llm", provider="heuristic", cache=False, **kw),
]

BAD_SIZES = [
    ({"max_chars": 0}, "max_chars must be from 1 to 1000000000, got 0"),
    (
        {"max_chars": 100, "min_chars": 200},
        "min_chars must be between 0 and max_chars (100), got 200: give a min_chars of at most "
        "100 or a max_chars of at least 200",
    ),
    ({"min_chars": -1}, "min_chars must be from 0 to 1000000000, got -1"),
    (
        {"max_chars": 1.5},
        "max_chars must be a whole number (write it without a decimal point or exponent), got 1.5",
    ),
    ({"min_chars": True}, "min_chars must be a whole number, got True"),
]


@pytest.mark.parametrize(("options", "message"), BAD_SIZES)
def test_one_size_check_one_error_for_every_sized_chunker(
    options: dict[str, Any], message: str
) -> None:
    top, bottom = options.get("max_chars", 1500), options.get("min_chars", 80)
    with pytest.raises(ConfigError) as direct:
        check_sizes(top, bottom)
    assert str(direct.value) == message
    assert isinstance(direct.value, ValueError)  # callers catching ValueError still do
    for make in SIZED:
        with pytest.raises(ConfigError) as info:
            make(**options)
        assert str(info.value) == message


def test_sizes_at_the_edges_are_accepted() -> None:
    assert check_sizes(1, 0) == (1, 0)
    assert check_sizes(1, 1) == (1, 1)
    assert check_sizes(1_000_000_000, 1_000_000_000) == (1_000_000_000, 1_000_000_000)


def test_a_fake_group_below_one_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="group must be from 1 to 1000000000, got 0"):
        FakeChunker(group=0)


# --- ids and reading-order links ------------------------------------------------


def test_ids_golden() -> None:
    """The ids chunks, passages, windows and bench peers have always had."""
    assert span_id("doc", "paragraph", Span(0, 0, 0, 15)) == "doc:6e81749d79be"
    assert span_id("", "paragraph", Span(0, 0, 0, 15)) == "2d528ac24913"  # no source id
    members = ["doc:6e81749d79be", "doc:a61fba3b217b", "doc:da3ec1adc98a"]
    assert unit_id("doc", *members, tag="w") == "doc:w22184c02ce49"
    assert unit_id("", "2d528ac24913", "95363be74750", tag="w") == ":w390c93029696"
    assert unit_id("doc", "paragraph-1500", "0-120") == "doc:8a3a77567d8d"  # a bench peer's


def test_passages_ids_and_links_golden() -> None:
    paras = ["Alpha is first. " * 80]  # 1,280 characters: over split_above, three passages
    units = passages(chunk_paragraphs(paras, "doc"), paras)
    got = [
        (u.id, u.metadata["chunk_index"], u.metadata["prev_id"], u.metadata["next_id"])
        for u in units
    ]
    assert got == [
        ("doc:u63d8f29a4d87", 0, None, "doc:uf5649e39ae29"),
        ("doc:uf5649e39ae29", 1, "doc:u63d8f29a4d87", "doc:u8af238c2cb7c"),
        ("doc:u8af238c2cb7c", 2, "doc:uf5649e39ae29", None),
    ]


def test_windows_ids_golden() -> None:
    chunks = chunk_paragraphs(
        ["Alpha is first.", "Beta is second.", "Gamma is third."], "doc", min_chars=0
    )
    windows = window_units(chunks)
    assert [w.id for w in windows] == ["doc:w22184c02ce49", "doc:w0f110206bcea"]
    assert all(w.metadata["prev_id"] is None is w.metadata["next_id"] for w in windows)


def test_link_builder_golden() -> None:
    chunks = chunk_paragraphs(
        ["Alpha is first.", "Beta is second.", "Gamma is third."], "doc", min_chars=0
    )
    got = [
        (c.id, c.metadata["chunk_index"], c.metadata["prev_id"], c.metadata["next_id"])
        for c in chunks
    ]
    assert got == [
        ("doc:6e81749d79be", 0, None, "doc:a61fba3b217b"),
        ("doc:a61fba3b217b", 1, "doc:6e81749d79be", "doc:da3ec1adc98a"),
        ("doc:da3ec1adc98a", 2, "doc:a61fba3b217b", None),
    ]
    # the keys every chunk has, in the order they have always come
    assert list(chunks[0].metadata)[-3:] == ["chunk_index", "prev_id", "next_id"]


def test_link_in_order_renumbers_or_keeps_the_index() -> None:
    units = [Chunk(f"u{k}", "t", "s", {"chunk_index": 9}) for k in range(3)]
    link_in_order(units, number=False)
    assert [u.metadata for u in units] == [
        {"chunk_index": 9, "prev_id": None, "next_id": "u1"},
        {"chunk_index": 9, "prev_id": "u0", "next_id": "u2"},
        {"chunk_index": 9, "prev_id": "u1", "next_id": None},
    ]
    link_in_order(units)
    assert [u.metadata["chunk_index"] for u in units] == [0, 1, 2]
    single = [Chunk("only", "t", "s", {})]
    link_in_order(single)
    assert single[0].metadata == {"chunk_index": 0, "prev_id": None, "next_id": None}
    link_in_order([])  # nothing to link


def _assert_chain(chunks: list[Chunk]) -> None:
    ids = [c.id for c in chunks]
    assert len(set(ids)) == len(ids)
    for k, c in enumerate(chunks):
        assert c.metadata["chunk_index"] == k
        assert c.metadata["prev_id"] == (ids[k - 1] if k else None)
        assert c.metadata["next_id"] == (ids[k + 1] if k + 1 < len(ids) else None)


def test_a_huge_document_is_one_chain() -> None:
    paras = [f"Paragraph number {k} ends here." for k in range(20_000)]
    chunks = chunk_paragraphs(paras, "big", min_chars=0)
    assert len(chunks) == 20_000
    _assert_chain(chunks)


PARAGRAPHS = st.lists(
    st.builds(
        Paragraph,
        text=st.text(alphabet="ab .\n", max_size=120),
        id=st.one_of(st.none(), st.sampled_from(["p1", "p2", "p3"])),
        page=st.one_of(st.none(), st.integers(1, 3)),
        kind=st.sampled_from(["p", "heading"]),
    ),
    max_size=12,
)
CHAINED = [
    ParagraphChunker(max_chars=60, min_chars=10),
    SemanticChunker(max_chars=60, min_chars=10),
    SemanticChunker(max_chars=60, min_chars=10, target_chars=40),
    StructureChunker(max_chars=60, min_chars=10),
    PageChunker(max_chars=60, min_chars=10),
    FakeChunker(group=2),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paragraphs=PARAGRAPHS, source=st.sampled_from(["", "doc", "a:b"]))
def test_prev_next_links_form_one_chain_in_order(paragraphs: list[Paragraph], source: str) -> None:
    for chunker in CHAINED:
        _assert_chain(chunker.chunk(paragraphs, source))


@settings(max_examples=100, deadline=None)
@given(ids=st.lists(st.text(min_size=1, max_size=8), unique=True, max_size=20))
def test_link_in_order_links_any_units_in_order(ids: list[str]) -> None:
    units = [Chunk(i, "t", "s", {}) for i in ids]
    link_in_order(units)
    _assert_chain(units)
