"""A unit's title and heading path mixed into its vector: the text embedded
without them, each prefix sent to the model once per write, the vector
``normalise(t + w * p)``; bad weights refused in one line with nothing lost."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_eval.bench.variants import parse_variant
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.ingest import ingest_documents
from jw_rag.model import Chunk, Document, Paragraph
from jw_rag.store._pooling import embed_chunks
from jw_rag.units import DEFAULT_UNITS, NO_UNITS, UnitRules

from .conftest import StoreFactory


class RecordingEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=16)
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]):  # type: ignore[no-untyped-def]
        self.calls.append(list(texts))
        return super().embed(texts)

    @property
    def texts(self) -> list[str]:
        return [t for call in self.calls for t in call]


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _chunk(i: int, text: str, prefix: str | None = "Title", weight: object = 0.3) -> Chunk:
    meta: dict[str, object] = {}
    if prefix is not None:
        meta["embed_prefix"] = prefix
    if weight is not None:
        meta["prefix_weight"] = weight
    return Chunk(id=f"s:{i}", text=text, source_id="s", metadata=meta)


def test_the_text_and_the_prefix_are_embedded_apart_and_mixed(store_factory: StoreFactory) -> None:
    embedder = RecordingEmbedder()
    store = store_factory(embedder)
    store.add([_chunk(0, "Body of the unit.")])
    assert embedder.texts == ["Body of the unit.", "Title"]
    plain = FakeEmbedder(dim=16)
    t, p = (np.asarray(v, dtype=np.float32) for v in plain.embed(["Body of the unit.", "Title"]))
    expected = _unit(_unit(t) + 0.3 * _unit(p))
    np.testing.assert_allclose(store.vectors(["s:0"])["s:0"], expected, atol=1e-6)
    # BM25 still reads the prefix with the text
    assert [h.chunk.id for h in store.search("Title", 5, mode="bm25")] == ["s:0"]


def test_without_a_weight_the_prefix_is_embedded_with_the_text(
    sqlite_factory: StoreFactory,
) -> None:
    embedder = RecordingEmbedder()
    store = sqlite_factory(embedder)
    store.add([_chunk(0, "Body.", weight=None), _chunk(1, "Other.", weight=0)])
    assert embedder.texts == ["Title\nBody.", "Title\nOther."]


def test_each_prefix_goes_to_the_model_once_per_write(sqlite_factory: StoreFactory) -> None:
    embedder = RecordingEmbedder()
    store = sqlite_factory(embedder)
    chunks = [_chunk(i, f"Unit {i}.", prefix="A" if i % 2 else "B") for i in range(40)]
    store.add(chunks)
    assert sorted(embedder.texts) == sorted([f"Unit {i}." for i in range(40)] + ["A", "B"])


@pytest.mark.parametrize("weight", ["0.3", -0.1, math.nan, math.inf, True, 10.5, [0.3]])
def test_a_bad_weight_is_one_line_and_keeps_what_is_stored(
    store_factory: StoreFactory, weight: object
) -> None:
    store = store_factory(FakeEmbedder(dim=16))
    store.add([_chunk(0, "Kept.")])
    with pytest.raises(ConfigError) as err:
        store.add([_chunk(1, "New."), _chunk(2, "Bad.", weight=weight)])
    line = str(err.value)
    assert "\n" not in line and "prefix_weight" in line and "from 0 to 10" in line
    assert set(store.vectors(["s:0", "s:1", "s:2"])) == {"s:0"}


def test_a_weight_without_a_string_prefix_is_refused(sqlite_factory: StoreFactory) -> None:
    store = sqlite_factory(FakeEmbedder(dim=16))
    bad = Chunk(id="s:0", text="x", source_id="s", metadata={"embed_prefix": 3, "prefix_weight": 1})
    with pytest.raises(ConfigError, match=r"embed_prefix'\] must be a string"):
        store.add([bad])


@pytest.mark.parametrize("weight", [-1, "0.3", True, math.nan, 11])
def test_unit_rules_refuse_a_bad_weight(weight: object) -> None:
    with pytest.raises(ConfigError, match="prefix_weight must be a number from 0 to 10"):
        UnitRules(prefix_weight=weight)  # type: ignore[arg-type]


_texts = st.text(min_size=1, max_size=60).filter(lambda s: s.strip() and "\x00" not in s)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(_texts, st.one_of(st.none(), _texts), st.floats(0, 10)), min_size=1, max_size=12
    )
)
def test_mixed_vectors_are_unit_length_and_weight_zero_is_the_joint_text(
    items: list[tuple[str, str | None, float]],
) -> None:
    embedder = RecordingEmbedder()
    chunks = [_chunk(i, text, prefix, weight) for i, (text, prefix, weight) in enumerate(items)]
    out = embed_chunks(chunks, embedder.embed)
    assert len(embedder.calls) == 1 and out.shape == (len(chunks), 16)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    for c, v in zip(chunks, out, strict=True):
        if not c.metadata.get("prefix_weight") or not c.metadata.get("embed_prefix"):
            joint = (
                c.text
                if not c.metadata.get("embed_prefix")
                else f"{c.metadata['embed_prefix']}\n{c.text}"
            )
            np.testing.assert_allclose(v, FakeEmbedder(dim=16).embed([joint])[0], atol=1e-6)


def _doc(title: str = "On Property") -> Document:
    paras = [Paragraph(f"Paragraph {i} argues a point. " + "It goes on. " * 20) for i in range(6)]
    return Document("essay", paras, title=title, language="en")


def test_ingest_embeds_the_title_with_each_unit_unless_given_a_weight(
    sqlite_factory: StoreFactory,
) -> None:
    assert DEFAULT_UNITS.prefix_weight == 0 and NO_UNITS.prefix_weight == 0
    embedder = RecordingEmbedder()
    store = sqlite_factory(embedder)
    ingest_documents(store, [_doc()])
    assert embedder.texts and all(t.startswith("On Property\n") for t in embedder.texts)
    embedder.calls.clear()
    (mixed,) = ingest_documents(store, [_doc()], units=UnitRules(prefix_weight=0.3))
    # other vectors: the source is embedded again, its title once
    assert not mixed.skipped
    assert embedder.texts.count("On Property") == 1
    assert not any(t.startswith("On Property\n") for t in embedder.texts)
    embedder.calls.clear()
    (same,) = ingest_documents(store, [_doc()], units=UnitRules(prefix_weight=0.3))
    assert same.skipped and not embedder.calls
    for units in (
        NO_UNITS,
        UnitRules(passage_chars=0, split_above=0, group_below=0, prefix_weight=1),
    ):
        embedder.calls.clear()
        (as_made,) = ingest_documents(store, [_doc()], units=units)
        assert not as_made.skipped and embedder.calls  # the chunks as made, each weight apart


def test_the_bench_takes_a_prefix_weight_per_variant() -> None:
    assert parse_variant("paragraph:prefix=0").units.prefix_weight == 0  # type: ignore[union-attr]
    assert parse_variant("paragraph:prefix=0.5").units.prefix_weight == 0.5  # type: ignore[union-attr]
    for bad in (
        "paragraph:prefix=x",
        "paragraph:prefix=0_5",
        "paragraph:prefix=1_0.5",
        "paragraph:prefix=-1",
        "paragraph:prefix=11",
    ):
        with pytest.raises(ConfigError, match="prefix takes a weight from 0 to 10"):
            parse_variant(bad)
