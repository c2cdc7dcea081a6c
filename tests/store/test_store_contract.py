"""Behaviour every store backend promises (parametrised through ``store_factory``)."""

from __future__ import annotations

import numpy as np
import pytest

from jw_rag.errors import ConfigError, StoreError
from jw_rag.model import Chunk
from jw_rag.store import Store
from tests.store.store_helpers import CountingEmbedder, TableEmbedder, make_chunks


def _chunk(cid: str, text: str, source: str, lang: str | None, **meta: object) -> Chunk:
    metadata: dict[str, object] = {"chunker": "paragraph", "chunker_version": "1", **meta}
    if lang:
        metadata["language"] = lang
    return Chunk(id=cid, text=text, source_id=source, metadata=metadata)


CORPUS = [
    _chunk("en:1", "Jesus taught his disciples how to pray.", "book-en", "en", pages=[1]),
    _chunk("en:2", "The lamp was placed on a lampstand to give light.", "book-en", "en", pages=[2]),
    _chunk("en:3", "Noah built the ark as he was told.", "book-en", "en", pages=[2, 3]),
    _chunk("es:1", "Jesús enseñó a sus discípulos a orar.", "libro-es", "es", pages=[1]),
    _chunk("es:2", "La lámpara se pone sobre el candelero.", "libro-es", "es", pages=[5]),
    _chunk("pt:1", "Jesus ensinou os discípulos a orar com fé.", "livro-pt", "pt", pages=[1]),
    _chunk("pt:2", "As ações dos apóstolos mostram coragem.", "livro-pt", "pt", pages=[7]),
]


@pytest.fixture
def filled(store: Store) -> Store:
    assert store.add(CORPUS) == len(CORPUS)
    return store


def _ids(hits: list) -> list[str]:
    return [h.chunk.id for h in hits]


def test_round_trip_preserves_chunks_and_order(store: Store) -> None:
    tricky = Chunk(
        id="x:1",
        text='  Texto con acentos: ação, niño — and "quotes" \n\n second para ',
        source_id="x",
        metadata={
            "language": "pt",
            "span": {"start_para": 0, "start_char": 2, "end_para": 1, "end_char": 5},
            "para_ids": ["p1", 2],
            "nested": {"a": [1.5, None, True]},
            "embed_prefix": "Capítulo 1 > Seção 2",
        },
    )
    chunks = [*CORPUS, tricky]
    store.add(chunks)
    assert store.get(["x:1", "missing", "en:2", "es:1"]) == [tricky, CORPUS[1], CORPUS[3]]
    assert store.get([]) == []


def test_add_overwrites_by_id(store: Store) -> None:
    store.add(CORPUS[:2])
    changed = Chunk("en:1", "Completely different words", "book-en", {"language": "en"})
    store.add([changed])
    assert store.get(["en:1"]) == [changed]
    assert store.stats()["chunks"] == 2
    assert _ids(store.search("pray", mode="bm25")) == []


def test_bm25_stemming_and_accent_folding(filled: Store) -> None:
    # Spanish stemming: "enseña" (query) matches "enseñó" (text).
    assert _ids(filled.search("¿Qué enseña a orar?", k=1, mode="bm25")) == ["es:1"]
    # English stemming: "praying" and "disciple" reach the stems of "pray" and "disciples".
    assert _ids(filled.search("praying disciple", k=1, mode="bm25")) == ["en:1"]
    # Portuguese: "ensina" matches "ensinou"; unaccented "acoes" matches "ações".
    assert _ids(filled.search("o que Jesus ensina", k=1, mode="bm25")) == ["pt:1"]
    assert _ids(filled.search("acoes", k=1, mode="bm25")) == ["pt:2"]
    # Accent folding: "jesus" matches "Jesús" as well as "Jesus".
    assert set(_ids(filled.search("jesus", k=10, mode="bm25"))) == {"en:1", "es:1", "pt:1"}
    # "lampara" (no accent) matches "lámpara".
    assert _ids(filled.search("lampara candelero", k=1, mode="bm25")) == ["es:2"]


def test_bm25_scores_are_positive_and_descending(filled: Store) -> None:
    hits = filled.search("lamp lampstand light", k=5, mode="bm25")
    assert _ids(hits)[0] == "en:2"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))
    assert hits[0].score > 0


@pytest.mark.parametrize(
    "query", ['"AND" OR (', "NEAR(a b)", "*", "col:umn", "^start", '"', ")(", "-", ""]
)
def test_bm25_query_syntax_is_never_interpreted(filled: Store, query: str) -> None:
    assert filled.search(query, mode="bm25") == [] or all(
        h.score > 0 for h in filled.search(query, mode="bm25")
    )


STOP_WORDS_ONLY = [
    _chunk("stop:1", "It is what it is, and that is all there is to it, is it not?", "stop", "en"),
    _chunk("stop:2", "Lo que es, es; y lo que no es, no es lo que era.", "stop", "es"),
]


def test_a_query_of_stop_words_alone_still_finds_them(filled: Store) -> None:
    filled.add(STOP_WORDS_ONLY)
    assert "stop:1" in _ids(filled.search("what it is", k=3, mode="bm25"))


def test_bm25_operator_words_are_plain_words(store: Store) -> None:
    store.add([_chunk("w:1", "Wisdom AND understanding OR knowledge", "w", "en")])
    assert _ids(store.search('"AND" OR (', mode="bm25")) == ["w:1"]


def test_dense_finds_the_chunk_sharing_words(filled: Store) -> None:
    assert _ids(filled.search("Noah built the ark", k=1, mode="dense")) == ["en:3"]
    hits = filled.search("Noah built the ark", k=3, mode="dense")
    assert hits[0].score > 0.5 > hits[1].score
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))


def test_hybrid_fusion_order_hand_computed(store_factory) -> None:
    # Dense ranks A, B, C, D (query vector = e0); BM25 matches only C and D, C first.
    emb = TableEmbedder(
        {
            "lamp": [1, 0, 0],
            "alpha beta": [1, 0.1, 0],
            "gamma delta": [1, 0.5, 0],
            "lamp lamp oil": [1, 1, 0],
            "lamp stand wick cloth table": [0.2, 1, 1],
        }
    )
    s = store_factory(embedder=emb)
    s.add(
        [
            Chunk("A", "alpha beta", "s"),
            Chunk("B", "gamma delta", "s"),
            Chunk("C", "lamp lamp oil", "s"),
            Chunk("D", "lamp stand wick cloth table", "s"),
        ]
    )
    assert _ids(s.search("lamp", k=4, mode="dense")) == ["A", "B", "C", "D"]
    assert _ids(s.search("lamp", k=4, mode="bm25")) == ["C", "D"]
    hits = s.search("lamp", k=4, mode="hybrid")
    # RRF, k=60: C = 1/63 + 1/61, D = 1/64 + 1/62, A = 1/61, B = 1/62.
    assert _ids(hits) == ["C", "D", "A", "B"]
    expected = [1 / 63 + 1 / 61, 1 / 64 + 1 / 62, 1 / 61, 1 / 62]
    assert [h.score for h in hits] == pytest.approx(expected)
    assert _ids(s.search("lamp", k=2, mode="hybrid")) == ["C", "D"]


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_filters_apply_before_ranking(store: Store, mode: str) -> None:
    store.add(make_chunks("big", 200, "lamps"))
    store.add(make_chunks("small", 3, "lamps", language="es"))
    hits = store.search("lamps oil paragraph", k=3, mode=mode, filters={"source_id": "small"})
    assert sorted(_ids(hits)) == ["small:0", "small:1", "small:2"]
    hits = store.search("lamps oil", k=5, mode=mode, filters={"language": ["es"]})
    assert {h.chunk.source_id for h in hits} == {"small"}
    hits = store.search("lamps oil", k=50, mode=mode, filters={"page": [3, 20]})
    assert sorted(h.chunk.metadata["pages"][0] for h in hits) == [3] * 10 + [20] * 10
    hits = store.search("lamps", k=5, mode=mode, filters={"source_id": "big", "page": 1})
    assert len(hits) == 5 and all(h.chunk.id.startswith("big:") for h in hits)
    assert store.search("lamps", mode=mode, filters={"source_id": []}) == []
    assert store.search("lamps", mode=mode, filters={"chunker": "semantic"}) == []
    assert len(store.search("lamps", k=4, mode=mode, filters={"chunker": "paragraph"})) == 4


@pytest.mark.parametrize(
    "filters", [{"sourceid": "x"}, {"page": "3"}, {"language": 3}, {"heading": "a"}]
)
def test_bad_filters_raise_config_error(filled: Store, filters: dict) -> None:
    with pytest.raises(ConfigError):
        filled.search("jesus", filters=filters)


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
@pytest.mark.parametrize("page", [10**30, [1, -(2**70)], 2**63])
def test_a_page_past_any_store_integer_is_a_config_error(
    filled: Store, mode: str, page: object
) -> None:
    # SQLite raised OverflowError binding it; no page is that large
    with pytest.raises(
        ConfigError, match=r"filter 'page' takes page numbers up to 9223372036854775807"
    ):
        filled.search("jesus", mode=mode, filters={"page": page})  # type: ignore[arg-type]


def test_bad_mode_and_k(filled: Store) -> None:
    with pytest.raises(ConfigError, match="mode"):
        filled.search("jesus", mode="semantic")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        filled.search("jesus", k=-1)
    assert filled.search("jesus", k=0) == []


def test_replace_source_replaces_only_that_source(filled: Store) -> None:
    new = [_chunk("es:9", "Moisés guió al pueblo por el desierto.", "libro-es", "es")]
    assert filled.replace_source("libro-es", new, content_hash="v1") is True
    assert filled.get(["es:1", "es:2", "es:9"]) == new
    assert filled.stats()["per_source"] == {"book-en": 3, "libro-es": 1, "livro-pt": 2}
    assert _ids(filled.search("candelero", mode="bm25")) == []
    assert _ids(filled.search("desierto", mode="bm25")) == ["es:9"]
    assert _ids(filled.search("Moisés guió al pueblo", k=1, mode="dense")) == ["es:9"]


def test_replace_source_is_a_no_op_for_an_unchanged_hash(store_factory) -> None:
    emb = CountingEmbedder()
    s = store_factory(embedder=emb)
    assert s.replace_source("s", make_chunks("s", 5, "v1"), content_hash="h1") is True
    calls = emb.calls
    assert s.replace_source("s", make_chunks("s", 2, "v2"), content_hash="h1") is False
    assert emb.calls == calls  # nothing embedded either
    assert s.get(["s:4"]) == make_chunks("s", 5, "v1")[4:]
    assert s.replace_source("s", make_chunks("s", 2, "v2"), content_hash="h2") is True
    assert s.stats()["chunks"] == 2
    assert s.replace_source("s", make_chunks("s", 2, "v3")) is True  # no hash: always writes


def test_replace_source_rejects_chunks_of_another_source(filled: Store) -> None:
    with pytest.raises(ConfigError, match="source"):
        filled.replace_source("libro-es", [CORPUS[0]])
    assert filled.stats()["chunks"] == len(CORPUS)


def test_delete_source(filled: Store) -> None:
    assert filled.delete_source("book-en") == 3
    assert filled.delete_source("book-en") == 0
    assert filled.get(["en:1"]) == []
    assert _ids(filled.search("Noah ark", mode="bm25")) == []
    assert all(h.chunk.source_id != "book-en" for h in filled.search("Noah ark", mode="dense"))
    assert filled.stats()["sources"] == 2


def test_parents_round_trip_and_are_never_searched(store: Store) -> None:
    parent = Chunk("s:p0", "A long parent section about the tabernacle.", "s", {"pages": [1]})
    child = Chunk("s:c0", "About the tabernacle.", "s", {"parent_id": "s:p0"})
    assert store.replace_source("s", [child], parents=[parent]) is True
    assert store.get_parents(["nope", "s:p0"]) == [parent]
    assert _ids(store.search("long parent section", mode="bm25")) == []
    assert _ids(store.search("long parent section", mode="dense")) == ["s:c0"]
    assert store.stats()["parents"] == 1
    other = Chunk("t:p0", "Another parent.", "t")
    assert store.add_parents([other]) == 1
    assert store.get_parents(["t:p0", "s:p0"]) == [other, parent]
    store.replace_source("s", [child])  # replacing a source replaces its parents too
    assert store.get_parents(["s:p0", "t:p0"]) == [other]


def test_stats_counts(filled: Store) -> None:
    filled.add([_chunk("u:1", "text without language", "u", None, chunker_version="2")])
    st = filled.stats()
    assert st["chunks"] == 8 and st["sources"] == 4 and st["parents"] == 0
    assert st["per_source"] == {"book-en": 3, "libro-es": 2, "livro-pt": 2, "u": 1}
    assert st["languages"] == {"en": 3, "es": 2, "pt": 2, "unknown": 1}
    assert st["chunkers"] == {"paragraph": 8}
    assert st["chunker_versions"] == {"paragraph": {"1": 7, "2": 1}}
    assert st["model_id"] == "fake-32"


def test_embed_prefix_is_embedded_but_not_stored(store_factory) -> None:
    emb = TableEmbedder({"Heading\nbody": [1, 0], "body": [0, 1], "heading": [1, 0]})
    s = store_factory(embedder=emb)
    c = Chunk("p:1", "body", "p", {"embed_prefix": "Heading"})
    s.add([c])
    hits = s.search("heading", mode="dense")
    assert hits[0].chunk == c and hits[0].score == pytest.approx(1.0)


def test_bad_chunks_are_rejected_before_writing(filled: Store) -> None:
    with pytest.raises(ConfigError, match="JSON"):
        filled.add([Chunk("z:1", "x", "z", {"when": object()})])
    with pytest.raises(ConfigError, match="twice"):
        filled.add([CORPUS[0], CORPUS[0]])
    assert filled.stats()["chunks"] == len(CORPUS)


def test_vectors_are_the_stored_embeddings_without_embedding_again(store_factory) -> None:
    table = {"a": [3.0, 4.0, 0.0], "b": [0.0, 0.0, 2.0], "H\nc": [1.0, 1.0, 1.0]}
    emb = TableEmbedder(table)
    s = store_factory(embedder=emb)
    s.add(
        [
            Chunk("x:a", "a", "x"),
            Chunk("x:b", "b", "x"),
            Chunk("x:c", "c", "x", {"embed_prefix": "H"}),
        ]
    )
    emb.table = {}  # any embedding from here on would fail
    got = s.vectors(["x:c", "missing", "x:a"])
    assert list(got) == ["x:c", "x:a"]
    np.testing.assert_array_equal(got["x:a"], np.asarray([0.6, 0.8, 0.0], dtype=np.float32))
    np.testing.assert_allclose(got["x:c"], np.full(3, 1 / np.sqrt(3)), rtol=1e-6)
    assert all(v.dtype == np.float32 and v.shape == (3,) for v in got.values())
    assert s.vectors([]) == {}
    s.delete_source("x")
    assert s.vectors(["x:a"]) == {}
    with pytest.raises(ConfigError, match="sequence of chunk id strings"):
        s.vectors("x:a")


@pytest.mark.parametrize(
    "bad",
    [
        Chunk("n:1", "text with a \x00 inside", "n"),
        Chunk("n:1", "clean text", "n", {"heading": "bad\x00heading"}),
    ],
)
def test_nul_characters_are_refused_alike_by_every_backend(filled: Store, bad: Chunk) -> None:
    with pytest.raises(StoreError, match=r"'n:1' contains a NUL character .*: remove") as err:
        filled.add([bad])
    assert "\n" not in str(err.value)
    with pytest.raises(StoreError, match="NUL"):
        filled.replace_source("n", [bad])
    with pytest.raises(StoreError, match="NUL"):
        filled.add_parents([bad])
    with pytest.raises(StoreError, match="NUL"):
        filled.replace_source("n", [], source_metadata={"title": "a\x00b"})
    assert filled.stats()["chunks"] == len(CORPUS) and filled.get_source("n") is None


@pytest.mark.parametrize("source_id", [None, 5, b"small", ["small"]])
def test_a_source_id_that_is_not_a_string_is_a_config_error(
    filled: Store, source_id: object
) -> None:
    # None was an AttributeError ('isascii'), a list a TypeError or a bind error
    for method in (filled.get_source, filled.matching_sources, filled.delete_source):
        with pytest.raises(ConfigError, match=r"^source_id must be a string"):
            method(source_id)  # type: ignore[arg-type]
    assert filled.stats()["chunks"] > 0  # nothing deleted
