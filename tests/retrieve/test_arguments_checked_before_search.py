"""``retrieve`` checks every argument before any work: a bad ``expand``,
``reach``, ``max_parents``, ``max_context_tokens``, ``mode`` or filter was
refused only after the store had searched (and embedded the query, the slow
part with a real model). A store and an embedder that count their calls show
that nothing is called before the one-line error; good arguments still search
once and embed the query once."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from jw_rag import ConfigError, Document, Paragraph
from jw_rag.embed import FakeEmbedder
from jw_rag.ingest.pipeline import ingest_documents
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore


class CountingEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        return super().embed(texts)


class CountingStore:
    """A store that counts every call made to it (attribute reads aside)."""

    def __init__(self, inner: SQLiteStore) -> None:
        self._inner = inner
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not callable(value):
            return value

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return value(*args, **kwargs)

        return counted


@pytest.fixture
def counted(tmp_path: Path) -> Iterator[tuple[CountingStore, CountingEmbedder]]:
    embedder = CountingEmbedder()
    with SQLiteStore(tmp_path / "s.sqlite", embedder=embedder) as inner:
        doc = Document(
            source_id="garden",
            paragraphs=[Paragraph("Gardens need water."), Paragraph("Soil keeps water.")],
        )
        ingest_documents(inner, [doc])
        embedder.calls = 0
        yield CountingStore(inner), embedder


BAD = [
    ({"expand": "everything"}, "unknown expansion 'everything': use one of"),
    ({"expand": 5}, "expand must be one of"),
    ({"max_parents": 0}, "max_parents must be a whole number >= 1, got 0"),
    ({"max_parents": "2"}, "max_parents must be a whole number >= 1, got '2'"),
    ({"reach": -1}, "reach must be a number of chunks each way from 0 to 50, got -1"),
    ({"reach": 51}, "reach must be a number of chunks each way from 0 to 50, got 51"),
    ({"window": 2.5}, "reach must be a number of chunks each way"),
    ({"max_context_tokens": -1}, "max_context_tokens must be a whole number >= 0 or None"),
    ({"mode": "fuzzy"}, "unknown search mode 'fuzzy': use one of dense, bm25, hybrid"),
    ({"filters": {"colour": "red"}}, "unknown search filter 'colour': use source_id"),
    ({"filters": {"page": "3"}}, "filter 'page' takes page numbers (int), got '3'"),
]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize(("option", "message"), BAD, ids=[repr(o) for o, _ in BAD])
def test_a_bad_argument_is_refused_before_the_store_or_embedder_is_called(
    counted: tuple[CountingStore, CountingEmbedder], option: dict[str, Any], message: str
) -> None:
    store, embedder = counted
    with pytest.raises(ConfigError) as info:
        retrieve(store, "water", **option)  # type: ignore[arg-type]
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)
    assert store.calls == []
    assert embedder.calls == 0


def test_a_query_that_is_not_text_is_refused_before_any_call(
    counted: tuple[CountingStore, CountingEmbedder],
) -> None:
    store, embedder = counted
    with pytest.raises(ConfigError, match="^query must be a string, got bytes$"):
        retrieve(store, b"water")  # type: ignore[arg-type]
    assert (store.calls, embedder.calls) == ([], 0)


@pytest.mark.parametrize("expand", ["none", "parent", "segment", "neighbors"])
def test_good_arguments_search_once_and_embed_the_query_once(
    counted: tuple[CountingStore, CountingEmbedder], expand: str
) -> None:
    store, embedder = counted
    hits = retrieve(store, "water", k=2, mode="hybrid", expand=expand, max_parents=1)
    assert store.calls.count("search") == 1
    assert store.calls[0] == "search"
    assert {h.chunk.source_id for h in hits} == {"garden"}
    assert embedder.calls == 1
