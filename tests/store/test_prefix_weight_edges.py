"""Edges of the mixed-in prefix (:mod:`jw_rag.store._pooling`): text a store
cannot keep is refused in one line before any model time is spent, and
nothing already stored is lost."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from jw_eval.bench.variants import parse_variant
from jw_rag.errors import ConfigError
from jw_rag.ingest import ingest_documents
from jw_rag.model import Chunk, Document, Paragraph
from jw_rag.units import DEFAULT_UNITS, NO_UNITS

from .conftest import StoreFactory
from .store_helpers import CountingEmbedder


@pytest.mark.parametrize(
    ("text", "meta"),
    [
        ("Body.", {"embed_prefix": "Ti\udc80tle", "prefix_weight": 0.3}),
        ("Body.", {"embed_prefix": "Ti\udc80tle"}),
        ("Bo\ud800dy.", {"embed_prefix": "Title", "prefix_weight": 0.3}),
        ("Body.", {"heading_path": ["A", "B\udcff"]}),
    ],
)
def test_a_lone_surrogate_is_refused_in_one_line_before_embedding(
    store_factory: StoreFactory, text: str, meta: dict[str, object]
) -> None:
    embedder = CountingEmbedder()
    store = store_factory(embedder)
    store.add([Chunk(id="s:0", text="Kept.", source_id="s", metadata={})])
    embedder.calls = 0
    bad = Chunk(id="s:1", text=text, source_id="s", metadata=meta)
    with pytest.raises(ConfigError) as err:
        store.add([Chunk(id="s:2", text="New.", source_id="s", metadata={}), bad])
    line = str(err.value)
    assert "\n" not in line and "'s:1'" in line and "UTF-8" in line
    assert not embedder.calls  # refused before the model ran
    assert set(store.vectors(["s:0", "s:1", "s:2"])) == {"s:0"}


def test_a_title_with_a_lone_surrogate_is_refused_by_ingestion(
    store_factory: StoreFactory,
) -> None:
    store = store_factory()
    doc = Document("doc", [Paragraph("Some text here. " * 10)], title="Ti\udc80tle", language="en")
    with pytest.raises(ConfigError, match="UTF-8"):
        ingest_documents(store, [doc])
    assert store.stats()["chunks"] == 0


def _essay() -> Document:
    paras = [Paragraph(f"Paragraph {i} argues a point. " + "It goes on. " * 20) for i in range(4)]
    return Document("essay", paras, title="On Property", language="en")


@pytest.mark.parametrize("units_on", [True, False])
def test_every_weight_is_its_own_stored_identity_and_an_int_is_its_float(
    sqlite_factory: StoreFactory, units_on: bool
) -> None:
    base = DEFAULT_UNITS if units_on else NO_UNITS
    store = sqlite_factory(CountingEmbedder())
    ingest_documents(store, [_essay()], units=replace(base, prefix_weight=0.3))
    (other,) = ingest_documents(store, [_essay()], units=replace(base, prefix_weight=0.3000001))
    assert not other.skipped  # other vectors: not taken for the stored ones
    ingest_documents(store, [_essay()], units=replace(base, prefix_weight=1))
    (same,) = ingest_documents(store, [_essay()], units=replace(base, prefix_weight=1.0))
    assert same.skipped  # the same vectors: not embedded again


def test_the_bench_takes_a_prefix_weight_with_units_off() -> None:
    # the title's weight is how it is embedded, no unit size: it goes with units=off
    spec = parse_variant("paragraph:units=off,prefix=0.5")
    assert spec.units == replace(NO_UNITS, prefix_weight=0.5)
    assert parse_variant("paragraph:units=off").units == NO_UNITS
    with pytest.raises(ConfigError, match="contradict"):
        parse_variant("paragraph:units=off,prefix=0.5,passage_chars=300")
    with pytest.raises(ConfigError, match="prefix takes a weight from 0 to 10"):
        parse_variant("paragraph:units=off,prefix=nan")


@pytest.mark.parametrize("prefix", ["   ", "\n", "\t \u3000"])
def test_a_blank_prefix_is_not_mixed_in(sqlite_factory: StoreFactory, prefix: str) -> None:
    embedder = CountingEmbedder(dim=16)
    sent: list[str] = []
    inner = embedder.embed
    embedder.embed = lambda texts: sent.extend(texts) or inner(texts)  # type: ignore[method-assign]
    store = sqlite_factory(embedder)
    meta = {"embed_prefix": prefix, "prefix_weight": 0.3}
    store.add([Chunk(id="s:0", text="Body.", source_id="s", metadata=meta)])
    # no vector of blank text is mixed in: the chunk is embedded as before the weight
    assert sent == [f"{prefix}\nBody."]


def test_a_numpy_weight_is_refused_naming_its_type(sqlite_factory: StoreFactory) -> None:
    # np.float32(0.3) is within 0 to 10: the line says what it is not (an int or float)
    store = sqlite_factory(CountingEmbedder(dim=16))
    meta = {"embed_prefix": "Title", "prefix_weight": np.float32(0.3)}
    with pytest.raises(ConfigError) as err:
        store.add([Chunk(id="s:0", text="Body.", source_id="s", metadata=meta)])
    assert "(float32); it is an int or float from 0 to 10" in str(err.value)
