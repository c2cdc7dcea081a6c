"""The default pipeline end to end (ingest -> units -> windows -> retrieve), and
one home for its defaults: the bench, retrieve, ingest and the CLI read them
from jw_rag.defaults.DEFAULT_PIPELINE."""

from __future__ import annotations

import inspect
from pathlib import Path

from jw_eval.bench.chunker_bench import BenchOptions
from jw_eval.bench.chunking import VariantChunker
from jw_eval.bench.runner import BenchConfig
from jw_eval.bench.variants import parse_variant
from jw_eval.datasets.model import BenchDocument
from jw_rag.chunkers import get_chunker
from jw_rag.defaults import DEFAULT_PIPELINE
from jw_rag.embed import get_embedder
from jw_rag.ingest import ingest_documents
from jw_rag.ingest.pipeline import chunk_document
from jw_rag.model import Document, Paragraph
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore
from jw_rag.units import DEFAULT_UNITS

_LONG = (
    "The lighthouse keeper wrote every night in a thick ledger. "
    "He noted the wind, the swell and the ships that passed the point. "
    "In the winter of the great storm the lamp failed twice before midnight. "
    "Each time he climbed the tower with a spare wick and a can of oil. "
    "The second time the glass of the lantern had cracked from the cold. "
    "He stuffed the crack with a wool scarf and kept the flame alive until dawn. "
    "A schooner that had lost its bearings saw the light and turned away from the rocks. "
    "Its captain came ashore a week later to thank him with a barrel of apples. "
    "The keeper recorded the visit in the ledger in the same plain hand. "
    "Years later his daughter found the entry and read it aloud at his funeral. "
    "Nobody in the village had known the story until that day. "
    "The ledger is kept now in the small museum by the harbour. "
    "Visitors stop longest at the page where the storm is written down. "
    "The curator keeps the scarf in a glass case beside it, folded as it was found. "
    "Children are allowed to touch the ledger's cover but not to turn its pages. "
    "On stormy evenings the curator lights a small lamp in the window for them."
)
_ROWS = [f"Year {1900 + i}: {40 + i} ships passed, {i % 3} were lost." for i in range(12)]


def _doc() -> Document:
    paras = [Paragraph("The keeper", kind="heading"), Paragraph(_LONG), *map(Paragraph, _ROWS)]
    return Document("keeper", paras, title="The keeper of the point", language="en")


def test_default_pipeline_delivers_the_passage_and_its_context(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", get_embedder("fake:64"))
    try:
        (result,) = ingest_documents(store, [_doc()])
        units = chunk_document(_doc())
        # the heading and the 1,123-character paragraph (over split_above) are two
        # passages; the rows (merged in pairs by the paragraph chunker) are grouped up
        # to 500 characters
        assert [(u.metadata.get("unit"), len(u.text)) for u in units] == [
            ("passage", 578), ("passage", 556), ("grouped", 418), (None, 82)
        ]  # fmt: skip
        assert units[2].metadata["para_ids"] == list(range(2, 12))
        assert result.chunks == len(units) == 4
        delivery = retrieve(store, "crack in the lantern glass stuffed with a wool scarf", k=1)
        (hit,) = delivery
        # the hit is the passage that holds the answer, not the whole paragraph
        assert hit.chunk.id == units[0].id
        assert "wool scarf" in hit.chunk.text and "museum" not in hit.chunk.text
        # segment delivery gives units of the source in reading order, the hit's first here
        order = [c.metadata["chunk_index"] for c in hit.expanded]
        assert hit.expanded[0].id == units[0].id and order == sorted(order)
    finally:
        store.close()


def test_bench_indexes_exactly_what_ingest_stores() -> None:
    doc = _doc()
    bench_doc = BenchDocument(doc.source_id, doc.paragraphs, doc.language, doc.title)
    bench_units = VariantChunker(parse_variant("paragraph")).chunk(bench_doc)
    ingest_units = chunk_document(doc)
    assert [(u.id, u.text, u.metadata.get("embed_prefix")) for u in bench_units] == [
        (u.id, u.text, u.metadata.get("embed_prefix")) for u in ingest_units
    ]
    assert bench_units[1].metadata["embed_prefix"] == "The keeper of the point"


def test_bench_retrieve_and_ingest_share_every_default() -> None:
    p = DEFAULT_PIPELINE
    config, options = BenchConfig(), BenchOptions()
    assert (config.k, config.retriever, config.expand) == (p.k, p.mode, p.expand)
    assert (options.k, options.retriever, options.expand) == (p.k, p.mode, p.expand)
    assert config.window_chars == options.window_chars == p.units.window_chars
    assert config.units == p.units == DEFAULT_UNITS
    params = inspect.signature(retrieve).parameters
    assert params["k"].default == p.k
    assert params["mode"].default == p.mode
    assert params["expand"].default == p.expand
    assert params["max_context_tokens"].default == p.max_context_tokens
    assert params["max_parents"].default == p.max_parents
    ingest_params = inspect.signature(ingest_documents).parameters
    assert ingest_params["units"].default == p.units
    assert get_chunker().name == p.chunker
