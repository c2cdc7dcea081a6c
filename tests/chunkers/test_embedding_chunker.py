"""The embedding chunker: exact cuts on hand-checkable input, sizes, laziness, cost counters."""

from __future__ import annotations

import pytest

from jw_rag.chunkers import EmbeddingChunker, get_chunker
from jw_rag.chunkers.embedding_chunker import sentence_units
from jw_rag.chunkers.validate import check_chunks
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.model import Paragraph
from tests.chunkers.chunker_helpers import TopicEmbedder, summary

EN = {"language": "en"}
TOPICS = ["Cats purr. Cats nap.", "Cats eat fish. Stocks fell.", "Stocks rose again."]


def test_cuts_where_the_topic_changes_inside_a_paragraph() -> None:
    emb = TopicEmbedder()
    chunker = EmbeddingChunker(embedder=emb, window=1, min_chars=20, max_chars=200)
    chunks = chunker.chunk(TOPICS, "d", metadata=EN)
    check_chunks(TOPICS, chunks, max_len=200)
    assert summary(chunks, "cut_score", "merge_reason", "chunker") == [
        ("Cats purr. Cats nap.\n\nCats eat fish.", (0, 0, 1, 14), None, None, "embedding"),
        ("Stocks fell.\n\nStocks rose again.", (1, 15, 2, 18), 1.0, None, "embedding"),
    ]
    # every sentence embedded once, in one call
    assert emb.calls == [
        ["Cats purr.", "Cats nap.", "Cats eat fish.", "Stocks fell.", "Stocks rose again."]
    ]
    assert (chunker.embed_calls, chunker.texts_embedded, chunker.chars_embedded) == (1, 5, 63)


def test_over_long_pieces_split_at_their_best_inner_boundary() -> None:
    chunker = EmbeddingChunker(embedder=TopicEmbedder(), window=1, min_chars=20, max_chars=30)
    chunks = chunker.chunk(TOPICS, "d", metadata=EN)
    check_chunks(TOPICS, chunks, max_len=30)
    # "Cats ... fish." (36) > 30 splits at its first tied boundary; the stock part (32) in two;
    # no neighbour can take a short piece without passing 30 characters
    assert summary(chunks, "cut_score") == [
        ("Cats purr.", (0, 0, 0, 10), None),
        ("Cats nap.\n\nCats eat fish.", (0, 11, 1, 14), 0.0),
        ("Stocks fell.", (1, 15, 1, 27), 1.0),
        ("Stocks rose again.", (2, 0, 2, 18), 0.0),
    ]


def test_small_piece_merges_with_the_more_similar_neighbour() -> None:
    paras = ["Cats purr. Cats nap. Rain on cats.", "Stocks fell. Stocks rose. Stocks sank."]
    chunker = EmbeddingChunker(
        embedder=TopicEmbedder(), window=1, top_percent=50, min_chars=20, max_chars=200
    )
    chunks = chunker.chunk(paras, "d", metadata=EN)
    check_chunks(paras, chunks, max_len=200)
    # cuts after "nap." (0.29) and after "cats." (1.0); "Rain on cats." (13 < 20) is
    # closer to the cat sentences (cosine 0.71) than to the stock ones (0)
    assert summary(chunks, "cut_score", "merge_reason") == [
        ("Cats purr. Cats nap. Rain on cats.", (0, 0, 0, 34), None, "small_segment"),
        ("Stocks fell. Stocks rose. Stocks sank.", (1, 0, 1, 38), 1.0, None),
    ]


def test_no_change_means_no_cut() -> None:
    paras = ["Cats purr. Cats nap. Cats eat.", "Cats sleep. Cats play."]
    chunks = EmbeddingChunker(embedder=TopicEmbedder(), min_chars=0).chunk(paras, "d", metadata=EN)
    assert [c.text for c in chunks] == ["Cats purr. Cats nap. Cats eat.\n\nCats sleep. Cats play."]


def test_tiny_document_is_one_chunk_without_embedding() -> None:
    emb = TopicEmbedder()
    chunker = EmbeddingChunker(embedder=emb)
    chunks = chunker.chunk(["  Short. Text.  ", ""], "d", metadata=EN)
    assert [(c.text, c.metadata["span"]["start_char"]) for c in chunks] == [("Short. Text.", 2)]
    assert emb.calls == [] and chunker.embed_calls == 0
    assert chunker.chunk(["", "  "], "d") == []


def test_embeds_each_sentence_once_per_document() -> None:
    paras = [
        Paragraph("The soul is a living person. Genesis says so. " * 6, id="p1", page=3),
        Paragraph("Jehovah is the Creator. He made the heavens. " * 8, id="p2", page=4),
        Paragraph("Hope of a resurrection is real. Jesus spoke of it. " * 5, id="p3", page=4),
    ]
    chunker = EmbeddingChunker(embedder=FakeEmbedder(dim=64), min_chars=100, max_chars=400)
    chunks = chunker.chunk(paras, "d", metadata=EN)
    check_chunks(paras, chunks, max_len=400)
    n_sentences = len(sentence_units(paras, 400, "en"))
    assert n_sentences == 38
    assert (chunker.embed_calls, chunker.texts_embedded) == (1, n_sentences)
    assert all(c.metadata["pages"] for c in chunks)
    chunker.chunk(paras, "d", metadata=EN)
    assert (chunker.embed_calls, chunker.texts_embedded) == (2, 2 * n_sentences)


def test_default_embedder_is_built_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str | None] = []

    def fake_get_embedder(name: str | None = None) -> FakeEmbedder:
        built.append(name)
        return FakeEmbedder(dim=16)

    monkeypatch.setattr("jw_rag.embed.get_embedder", fake_get_embedder)
    chunker = get_chunker("embedding")
    assert isinstance(chunker, EmbeddingChunker) and built == []
    chunker.chunk(["Tiny."], "d", metadata=EN)  # nothing to compare: still no embedder
    assert built == []
    chunker.chunk(["A first sentence here. " * 10, "Another topic now. " * 10], "d", metadata=EN)
    assert built == [None]
    named = EmbeddingChunker(embedder="fake:16")
    named.chunk(["A first sentence here. " * 10], "d", metadata=EN)
    assert built == [None, "fake:16"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"window": 0}, "window"),
        ({"top_percent": 0}, "top_percent"),
        ({"max_chars": 100, "min_chars": 200}, "min_chars"),
        ({"embedder": 3}, "embedder"),
    ],
)
def test_bad_options_are_config_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        EmbeddingChunker(**kwargs)  # type: ignore[arg-type]
