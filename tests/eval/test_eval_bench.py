"""The chunker bench end to end: tiny SQuAD fixture, the bundled corpus, peers, gate, CLI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_eval.bench import (
    DEFAULT_DATASET,
    BenchOptions,
    parse_variants,
    run_chunker_bench,
    write_report,
)
from jw_eval.bench.chunking import VariantChunker, chunk_range
from jw_eval.bench.expansion import delivered_chunks
from jw_eval.bench.variants import parse_variant
from jw_eval.datasets import load_dataset
from jw_eval.datasets.model import BenchQuery
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.store import SQLiteStore

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "eval"
SQUAD = FIXTURES / "squad_tiny.json"
BUNDLED = DEFAULT_DATASET


def _variant(report: dict, name: str) -> dict:
    return next(v for v in report["variants"] if v["name"] == name)


def test_squad_fixture_end_to_end_report_structure(tmp_path: Path) -> None:
    opts = BenchOptions(variants="paragraph,semantic", dataset=SQUAD, k=3)
    report = run_chunker_bench(opts, embedder=FakeEmbedder()).report
    assert report["schema_version"] == 3
    assert report["config"]["retriever"] == "hybrid" and report["config"]["expand"] == "segment"
    assert report["dataset"]["n_queries"] == 6 and report["dataset"]["n_documents"] == 2
    assert report["dataset"]["loader_stats"]["questions_dropped"] == 1
    para = _variant(report, "paragraph")
    # the three short contexts of each article are one retrieval unit (jw_rag.units)
    assert para["n_chunks"] == 2
    assert set(para["metrics"]) == set(report["metric_names"])
    assert para["metrics"]["ndcg@10"]["ci95"][0] <= para["metrics"]["ndcg@10"]["value"]
    assert para["by_language"]["en"]["n"] == 6
    rows = {r["id"]: r for r in para["queries"]}
    # an easy question: its words are in exactly one paragraph
    assert rows["lh-2"]["mrr@3"] == 1.0 and rows["lh-2"]["hit@3"] == 1.0
    assert rows["lh-2"]["top_ids"][0].startswith("Lighthouses:")
    assert set(report["deltas"]) == {"delta_semantic_vs_paragraph"}
    assert "gate" not in report["deltas"]["delta_semantic_vs_paragraph"]["en"]
    assert report["gate"]["passed"] is None
    assert set(para["timings_s"]) == {"chunk", "embed_index", "search", "score"}

    written = write_report(report, "json", tmp_path / "r.json")
    assert json.loads(written[0].read_text())["variants"][0]["name"] == "paragraph"
    assert ET.fromstring(written[1].read_text()).tag.endswith("svg")
    md = write_report(report, "md", tmp_path / "r.md")[0].read_text()
    assert "| paragraph | 6 |" in md and "| semantic vs paragraph | NDCG@10 | en | 6 |" in md
    assert "delta_" not in md and "(shipped default)" not in md  # k=3 is not the shipped k


@pytest.mark.parametrize(
    "spec", ["langchain-recursive:200", "chonkie-recursive:200", "semchunk:200"]
)
def test_peer_chunks_map_back_to_exact_spans(spec: str) -> None:
    ds = load_dataset(SQUAD)
    chunker = VariantChunker(parse_variant(spec))
    for doc in ds.documents.values():
        chunks = chunker.chunk(doc)
        assert len(chunks) >= len(doc.paragraphs)
        for c in chunks:
            r = chunk_range(doc, c)
            assert doc.text[r.start : r.end] == c.text
            assert len(c.text) <= 200


def test_gate_fails_and_cli_exits_non_zero(tmp_path: Path) -> None:
    opts = BenchOptions(variants="paragraph,semantic", dataset=SQUAD, min_lift=1000.0)
    result = run_chunker_bench(opts, embedder=FakeEmbedder())
    assert not result.passed
    assert result.report["gate"]["failures"] == ["semantic/en"]
    out = tmp_path / "gate.md"
    argv = ["eval", "chunker-bench", "--dataset", str(SQUAD), "--embedder", "fake", "--quiet"]
    assert main([*argv, "--out", str(out), "--min-lift", "1000"]) == 1
    assert out.is_file() and out.with_suffix(".svg").is_file()  # written even when failing
    assert main([*argv, "--out", str(out)]) == 0
    assert main([*argv, "--variants", "nope"]) == 2


def test_bad_options_are_one_line_errors() -> None:
    with pytest.raises(ConfigError, match="unknown variant 'nope'"):
        parse_variants("paragraph,nope")
    with pytest.raises(ConfigError, match="twice"):
        parse_variants("paragraph,paragraph")
    spec = parse_variants("semantic:max_chars=900,min_chars=40,paragraph")
    assert [s.label for s in spec] == ["semantic:max_chars=900,min_chars=40", "paragraph"]
    assert spec[0].options == {"max_chars": 900, "min_chars": 40}
    with pytest.raises(ConfigError, match="retriever"):
        run_chunker_bench(BenchOptions(dataset=SQUAD, retriever="x"), embedder=FakeEmbedder())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        # was "k must be an integer from 0 to 10000, got 200000" (twice k) after the indexing
        ({"k": 100_000}, r"^k must be from 1 to 1000 \(as retrieve takes\), got 100000$"),
        # NaN failed every gate: the run ended in "gate failed" for a typo
        ({"min_lift": float("nan")}, r"^min_lift must be a finite percent, got nan$"),
        ({"min_lift": float("inf")}, r"^min_lift must be a finite percent, got inf$"),
    ],
)
def test_a_k_or_gate_out_of_range_is_refused_before_the_run(
    options: dict[str, float], message: str
) -> None:
    embedder = FakeEmbedder()
    with pytest.raises(ConfigError, match=message):
        run_chunker_bench(BenchOptions(dataset=SQUAD, **options), embedder=embedder)


def test_neighbour_expansion_delivers_prev_and_next(tmp_path: Path) -> None:
    ds = load_dataset(SQUAD)
    doc = ds.documents["Lighthouses"]
    chunks = VariantChunker(parse_variant("paragraph:units=off")).chunk(doc)
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder())
    store.replace_source(doc.doc_id, chunks)
    hits = store.search("Fresnel lens invented 1822", k=1)
    assert hits[0].chunk.id == chunks[1].id
    (got,) = delivered_chunks(store, hits, "neighbors")
    # the order a budget pays for them: the hit, then the paragraph before, then after
    assert [c.id for c in got] == [chunks[1].id, chunks[0].id, chunks[2].id]
    (alone,) = delivered_chunks(store, hits, "none")
    assert [c.id for c in alone] == [chunks[1].id]


@pytest.mark.skipif(not (BUNDLED / "doctrinal_queries.yaml").is_file(), reason="no bundled corpus")
def test_bundled_corpus_end_to_end_finds_known_paragraphs() -> None:
    import jw_eval.bench.chunker_bench as cb

    ds = load_dataset(BUNDLED)
    first = ds.queries[0]
    e = first.expected[0]
    easy = BenchQuery("easy", ds.documents[e.doc_id].text[e.start : e.end], first.language, (e,))
    ds.queries.insert(0, easy)
    original = cb._load
    cb._load = lambda _o: (ds, str(BUNDLED))
    try:
        report = run_chunker_bench(BenchOptions(), embedder=FakeEmbedder()).report
    finally:
        cb._load = original
    assert set(report["dataset"]["languages"]) == {"en", "es", "pt"}
    for v in report["variants"]:
        row = v["queries"][0]
        assert row["id"] == "easy" and row["hit@10"] == 1.0 and row["mrr@10"] == 1.0
        assert v["multi_span"]["n"] > 0
    deltas = report["deltas"]["delta_semantic_vs_paragraph"]
    assert set(deltas) == {"en", "es", "pt"}
    for lang, m in report["markers"].items():
        assert m["paragraphs"] > 0 and 0 < m["continuation_rate"] < 1, lang


def test_real_use_embedder_on_the_tiny_fixture() -> None:
    from jw_rag.embed import get_embedder

    opts = BenchOptions(variants="paragraph", dataset=SQUAD, k=3)
    report = run_chunker_bench(opts, embedder=get_embedder("use", cache=True)).report
    assert report["config"]["embedder"].startswith("use")
    metrics = _variant(report, "paragraph")["metrics"]
    assert metrics["hit@3"]["value"] == 1.0
    assert metrics["ndcg@10"]["value"] >= 0.8


def test_limit_and_language_options() -> None:
    opts = BenchOptions(variants="paragraph", dataset=SQUAD, limit=2)
    report = run_chunker_bench(opts, embedder=FakeEmbedder()).report
    assert [r["id"] for r in report["variants"][0]["queries"]] == ["lh-1", "lh-2"]
    with pytest.raises(ConfigError, match="either dataset or queries"):
        run_chunker_bench(replace(opts, queries=SQUAD), embedder=FakeEmbedder())


def test_parent_expansion_delivers_the_stored_parent(tmp_path: Path) -> None:
    from jw_rag.model import Chunk

    ds = load_dataset(SQUAD)
    doc = ds.documents["Lighthouses"]
    chunks = VariantChunker(parse_variant("paragraph:units=off")).chunk(doc)
    parent = Chunk(
        "Lighthouses:parent",
        doc.text,
        doc.doc_id,
        {
            "span": {
                "start_para": 0,
                "start_char": 0,
                "end_para": 2,
                "end_char": len(doc.paragraphs[2].text),
            }
        },
    )
    for c in chunks:
        c.metadata["parent_id"] = parent.id
    store = SQLiteStore(tmp_path / "p.sqlite", FakeEmbedder())
    store.replace_source(doc.doc_id, chunks, parents=[parent])
    hits = store.search("Fresnel lens invented 1822", k=1)
    (got,) = delivered_chunks(store, hits, "parent")
    # the hit first, then its parent (whose remainder the budget pays for next)
    assert [c.id for c in got] == [chunks[1].id, parent.id]
    assert chunk_range(doc, got[1]).end == len(doc.text)


@pytest.mark.parametrize("retriever", ["bm25", "hybrid"])
def test_lexical_retrievers_and_neighbour_delivery(retriever: str) -> None:
    base = BenchOptions(variants="paragraph:units=off", dataset=SQUAD, k=1, retriever=retriever)
    plain = run_chunker_bench(base, embedder=FakeEmbedder()).report
    wide = run_chunker_bench(replace(base, expand="neighbors"), embedder=FakeEmbedder()).report
    assert plain["config"]["retriever"] == retriever
    p = {r["id"]: r for r in plain["variants"][0]["queries"]}
    w = {r["id"]: r for r in wide["variants"][0]["queries"]}
    assert p["lh-2"]["hit@1"] == 1.0
    # rank metrics judge the hit itself; delivery metrics see the neighbours too
    assert w["lh-2"]["hit@1"] == p["lh-2"]["hit@1"]
    assert w["lh-2"]["char_precision@1"] < p["lh-2"]["char_precision@1"]
    for qid in p:
        assert w[qid]["complete@1"] >= p[qid]["complete@1"]


def test_per_variant_expansion_and_budgeted_ndcg() -> None:
    opts = BenchOptions(
        variants="paragraph,paragraph+neighbors,parent-child+parent", dataset=SQUAD, k=3
    )
    report = run_chunker_bench(opts, embedder=FakeEmbedder()).report
    plain = _variant(report, "paragraph")
    wide = _variant(report, "paragraph+neighbors")
    pc = _variant(report, "parent-child+parent")
    # the same hits, so the hit-level NDCG is identical ...
    assert [r["ndcg@10"] for r in wide["queries"]] == [r["ndcg@10"] for r in plain["queries"]]
    # ... while delivery sees the neighbours: more of the evidence, never less
    for a, b in zip(plain["queries"], wide["queries"], strict=True):
        assert b["char_recall@3"] >= a["char_recall@3"]
    # each article is one parent (structure parents up to 8,000 chars), so the
    # parent delivers every answer in full whenever the right article is hit
    assert any(row["doc_ndcg@10"] > 0 for row in pc["queries"])
    for row in pc["queries"]:
        assert row["complete@3"] == (1.0 if row["doc_ndcg@10"] > 0 else 0.0)
    assert pc["n_chunks"] == 6  # only children are indexed, one per context paragraph
    assert "ci95" in plain["metrics"]["ndcg@2000c"]
    budget = report["budget_deltas"]["ndcg@2000c"]
    assert set(budget) == {
        "delta_paragraph+neighbors_vs_paragraph",
        "delta_parent-child+parent_vs_paragraph",
    }
    assert budget["delta_paragraph+neighbors_vs_paragraph"]["en"]["metric"] == "ndcg@2000c"


def test_unknown_expansion_in_a_variant_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError, match="unknown expansion 'sideways'"):
        parse_variants("paragraph+sideways")
    assert parse_variant("semantic:target_chars=1200+chain").expand == "chain"
    assert parse_variant("semchunk:800+neighbors").peer


def test_relevant_delivery_keeps_the_hits_and_adds_context() -> None:
    opts = BenchOptions(variants="paragraph,paragraph+relevant", dataset=SQUAD, k=3, peers="none")
    report = run_chunker_bench(opts, embedder=FakeEmbedder()).report
    plain, relevant = report["variants"]
    assert relevant["name"] == "paragraph+relevant"
    # same chunks, same hits: the rank metrics agree exactly
    assert relevant["metrics"]["ndcg@10"] == plain["metrics"]["ndcg@10"]
    # every hit is delivered (itself or beside a better one), so delivered text only grows
    for p, r in zip(plain["queries"], relevant["queries"], strict=True):
        assert r["char_recall@3"] >= p["char_recall@3"]


def test_windows_per_variant_and_lifts_over_the_best_peer() -> None:
    opts = BenchOptions(
        variants="paragraph:units=off,paragraph:units=off,window_chars=0+none,"
        "chonkie-recursive:200,semchunk:200",
        dataset=SQUAD,
        k=3,
    )
    report = run_chunker_bench(opts, embedder=FakeEmbedder()).report
    assert report["config"]["window_chars"] == 2000
    windowed = _variant(report, "paragraph:units=off")
    plain = _variant(report, "paragraph:units=off,window_chars=0+none")
    # windows are index units beside the chunks: they are not counted as chunks
    assert windowed["n_windows"] > 0 and windowed["n_chunks"] == plain["n_chunks"]
    assert plain["n_windows"] == 0 and _variant(report, "semchunk:200")["n_windows"] == 0
    deltas = report["peer_deltas"]["ndcg@2000c"]
    assert set(deltas) == {"paragraph:units=off", "paragraph:units=off,window_chars=0+none"}
    entry = deltas["paragraph:units=off"]["en"]
    peers = {
        name: _variant(report, name)["metrics"]["ndcg@2000c"]["value"]
        for name in ("chonkie-recursive:200", "semchunk:200")
    }
    assert entry["peer"] == max(peers, key=peers.get)
    assert entry["peer_value"] == pytest.approx(max(peers.values()))
    assert entry["ci95"][0] <= entry["lift"] <= entry["ci95"][1]
    with pytest.raises(ConfigError, match="window_chars must be"):
        parse_variants("paragraph:window_chars=-3")
