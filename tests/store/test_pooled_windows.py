"""Pooled window vectors: a window's vector is its members' mean, nothing embedded twice,
memory bounded, and a window whose members were forgotten is embedded as text."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from jw_rag.embed import FakeEmbedder
from jw_rag.ingest import ingest_documents
from jw_rag.model import Document, Paragraph
from jw_rag.store import SQLiteStore
from jw_rag.store._pooling import PooledMembers
from jw_rag.store._rows import encode_chunks
from jw_rag.units import UnitRules
from jw_rag.windows import is_window, window_units, with_window_units

POOLED = UnitRules(pooled_windows=True, wide_window_chars=0)


class CountingEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=32)
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]):  # type: ignore[no-untyped-def]
        self.texts.extend(texts)
        return super().embed(texts)


def _doc(n: int = 12) -> Document:
    paras = [
        Paragraph(f"Paragraph {i} carries an argument of its own. " + "It goes on. " * 25)
        for i in range(n)
    ]
    return Document("d", paras, title="Pooled", language="en")


def test_window_vector_is_the_mean_of_its_members(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    store = SQLiteStore(tmp_path / "s.sqlite", embedder)
    try:
        ingest_documents(store, [_doc()], units=POOLED)
        ids = [h.chunk.id for h in store.search("argument", 200, mode="bm25")]
        chunks = store.get(ids)
        windows = [c for c in chunks if is_window(c)]
        units = [c for c in chunks if not is_window(c)]
        assert windows and units
        # only the units were embedded: no window text reached the model
        assert len(embedder.texts) == len(units)
        vectors = store.vectors([c.id for c in chunks])
        for w in windows:
            mean = np.mean([vectors[m] for m in w.metadata["window"]], axis=0)
            np.testing.assert_allclose(vectors[w.id], mean / np.linalg.norm(mean), atol=1e-6)
    finally:
        store.close()


def test_unpooled_windows_are_embedded_as_text(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    store = SQLiteStore(tmp_path / "s.sqlite", embedder)
    try:
        (result,) = ingest_documents(store, [_doc()], units=UnitRules(pooled_windows=False))
        assert len(embedder.texts) > result.chunks  # units and windows both embedded
    finally:
        store.close()


def test_windows_come_right_after_their_last_member() -> None:
    doc = _doc()
    from jw_rag.ingest.pipeline import chunk_document

    chunks = chunk_document(doc)
    order = list(with_window_units(chunks, doc.paragraphs, pooled=True))
    assert [c for c in order if not is_window(c)] == chunks
    assert sorted(w.id for w in order if is_window(w)) == sorted(
        w.id for w in window_units(chunks, doc.paragraphs)
    )
    seen: set[str] = set()
    for c in order:
        if is_window(c):
            assert set(c.metadata["window"]) <= seen
            assert c.metadata["pooled"] is True
        seen.add(c.id)


def test_forgotten_members_fall_back_to_embedding_the_window_text() -> None:
    doc = _doc()
    from jw_rag.ingest.pipeline import chunk_document

    chunks = chunk_document(doc)
    windows = window_units(chunks, doc.paragraphs, pooled=True)
    embedder = CountingEmbedder()
    pool = PooledMembers(memory=1)  # remembers one member only
    pool.vectors(encode_chunks(chunks, seen=set(), first=0), embedder.embed)
    embedder.texts.clear()
    out = pool.vectors(encode_chunks(windows, seen=set(), first=0), embedder.embed)
    assert len(embedder.texts) == len(windows) and out.shape == (len(windows), 32)


@pytest.mark.parametrize("n", [0, 1])
def test_a_source_too_small_for_windows_stores_its_units(tmp_path: Path, n: int) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", CountingEmbedder())
    try:
        docs = [_doc(n + 1)]
        (result,) = ingest_documents(store, docs, units=POOLED)
        assert result.chunks >= 1
    finally:
        store.close()


def test_two_window_sizes_share_no_window_and_follow_their_members() -> None:
    doc = _doc(20)
    from jw_rag.ingest.pipeline import chunk_document

    chunks = chunk_document(doc)
    order = list(with_window_units(chunks, doc.paragraphs, pooled=True, wide_chars=3000))
    windows = [c for c in order if is_window(c)]
    narrow = window_units(chunks, doc.paragraphs, max_chars=2000)
    wide = window_units(chunks, doc.paragraphs, max_chars=3000)
    assert len({w.id for w in windows}) == len(windows)
    assert {w.id for w in windows} == {w.id for w in narrow} | {w.id for w in wide}
    assert max(len(w.text) for w in windows) > 2000 >= max(len(w.text) for w in narrow)


def test_changing_window_rules_with_units_off_re_indexes(tmp_path: Path) -> None:
    # with passage_chars=0 the stored hash left out pooled_windows and
    # wide_window_chars: turning pooling or the wide size off was "skipped"
    # and the store kept windows made the old way
    off = UnitRules(passage_chars=0, split_above=0, group_below=0)
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=32))
    try:
        assert not ingest_documents(store, [_doc()], units=off)[0].skipped
        assert ingest_documents(store, [_doc()], units=off)[0].skipped
        both = store.stats()["windows"]
        narrow = UnitRules(passage_chars=0, split_above=0, group_below=0, wide_window_chars=0)
        assert not ingest_documents(store, [_doc()], units=narrow)[0].skipped
        assert store.stats()["windows"] < both
        unpooled = UnitRules(
            passage_chars=0, split_above=0, group_below=0, wide_window_chars=0,
            pooled_windows=False,
        )  # fmt: skip
        assert not ingest_documents(store, [_doc()], units=unpooled)[0].skipped
        assert ingest_documents(store, [_doc()], units=unpooled)[0].skipped
    finally:
        store.close()
