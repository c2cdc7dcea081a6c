"""The bench's peer set, its best-peer comparison, ``--shape``, and the
report's text for people (labels, legend, plurals, the shipped default)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from jw_cli.app import main
from jw_eval.bench import BenchOptions, render_report, run_chunker_bench
from jw_eval.bench.variants import DEFAULT_PEERS, parse_peers, parse_variants, with_peers
from jw_eval.bootstrap import paired_lift
from jw_eval.shapes import SHAPES
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
SQUAD = REPO / "tests" / "fixtures" / "eval" / "squad_tiny.json"
GOLDEN = REPO / "tests" / "golden"


def test_default_peer_set_is_the_recursive_splitters_and_semchunk() -> None:
    assert [p.label for p in parse_peers(None)] == [
        "langchain-recursive:1000", "langchain-recursive:1500", "langchain-recursive:2000",
        "chonkie-recursive:1000", "chonkie-recursive:1500", "chonkie-recursive:2000",
        "semchunk:1500",
    ]  # fmt: skip
    assert parse_peers("none") == [] and parse_peers(" NONE ") == []
    assert [p.label for p in parse_peers("langchain-recursive:2000,semchunk:1500")] == [
        "langchain-recursive:2000",
        "semchunk:1500",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("paragraph", "peers lists 'paragraph', which is not a peer: use langchain-recursive"),
        ("semchunk:big", "use semchunk:<size in characters>"),
        # digits Python reads but a size is not written with, and more digits
        # than int() takes, said int()'s own words (a ValueError)
        ("semchunk:\u00b2", "use semchunk:<size in characters>"),
        ("semchunk:\u0661\u0662", "use semchunk:<size in characters>"),
        ("semchunk:" + "9" * 5000, "size must be from 1 to 1000000000, got '99999"),
        ("langchain-recursive:1000000001", "size must be from 1 to 1000000000"),
        ("semchunk:0", "size must be from 1 to 1000000000, got '0'"),
        ("", "peers is empty"),
        ("semchunk:1500,semchunk:1500", "twice"),
        # a name that is no chunker was told to "use a chunker ... or a peer",
        # and a lone comma to "give e.g. paragraph,semantic"
        ("bogus", "peers lists 'bogus', which is not a peer"),
        ("semchunk:1500,bogus:3", "peers lists 'bogus:3', which is not a peer"),
        (",", "peers is empty: give peers such as semchunk:1500, or none"),
    ],
)
def test_bad_peer_sets_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        parse_peers(text)
    assert "\n" not in str(err.value)


def test_listed_peers_are_not_added_twice() -> None:
    listed = parse_variants("paragraph,langchain-recursive,semchunk:1500+segment")
    specs = with_peers(listed, parse_peers(None))
    labels = [s.label for s in specs]
    assert labels[:3] == ["paragraph", "langchain-recursive", "semchunk:1500+segment"]
    # langchain-recursive is langchain-recursive:1500; semchunk:1500 delivered
    # another way is another arm, so the plain one is added
    assert "langchain-recursive:1500" not in labels and "semchunk:1500" in labels
    assert len(specs) == 3 + len(DEFAULT_PEERS) - 1


@pytest.fixture(scope="module")
def peer_report() -> dict:
    opts = BenchOptions(variants="paragraph,semantic", dataset=SQUAD)
    return run_chunker_bench(opts, embedder=FakeEmbedder()).report


def test_every_run_adds_the_default_peers_and_names_the_best(peer_report: dict) -> None:
    report = peer_report
    names = [v["name"] for v in report["variants"]]
    assert names == ["paragraph", "semantic", *DEFAULT_PEERS]
    assert report["config"]["peers"] == list(DEFAULT_PEERS)
    assert report["config"]["shipped_default"] == "paragraph"
    # the lifts over paragraph (and the gate) are the listed variants' only
    assert set(report["deltas"]) == {"delta_semantic_vs_paragraph"}
    rows = {v["name"]: v["queries"] for v in report["variants"]}
    for metric in ("ndcg@2000c", "ndcg@4000c"):
        best = report["best_peers"][metric]["en"]
        means = {p: float(np.mean([r[metric] for r in rows[p]])) for p in DEFAULT_PEERS}
        assert best["peers"] == pytest.approx(means)
        assert best["value"] == max(means.values()) and means[best["peer"]] == best["value"]
        assert best["peer"] == next(p for p in DEFAULT_PEERS if means[p] == best["value"])
        lift = report["peer_deltas"][metric]["paragraph"]["en"]
        expected = paired_lift(
            [r[metric] for r in rows["paragraph"]], [r[metric] for r in rows[best["peer"]]]
        )
        assert lift["peer"] == best["peer"]
        assert lift["lift"] == pytest.approx(expected.value)
        assert lift["ci95"] == pytest.approx([expected.low, expected.high])
        assert set(report["peer_deltas"][metric]) == {"paragraph", "semantic"}


def test_report_text_is_written_for_people(peer_report: dict) -> None:
    md = render_report(peer_report, "md")
    assert "| paragraph (shipped default) | all |" in md
    assert "`paragraph` is the shipped default" in md
    assert "| semantic vs paragraph | NDCG@10 | en | 6 |" in md
    assert "| semantic vs paragraph | NDCG within 2000 chars | en | 6 |" in md
    assert "delta_" not in md and "Loader:" not in md
    assert "- `hit@5`, `hit@10`: 1 when any of the top N hits touches an expected span" in md
    assert md.index("### All questions") < md.index("Columns: n is the number of questions")
    best = peer_report["best_peers"]["ndcg@2000c"]["en"]
    assert f"| NDCG within 2000 chars | en | {best['peer']} | {best['value']:.3f} |" in md
    assert "the one of the run's 7 peers with the highest mean" in md
    # the shipped default leads the comparison with the best peer
    section = md[md.index("## Against the best peer") :]
    rows = [line for line in section.splitlines() if line.startswith("| paragraph")]
    assert rows[0].startswith("| paragraph (shipped default) | NDCG within 2000 chars | en | 6 |")


def test_plural_forms_and_loader_notes() -> None:
    opts = BenchOptions(variants="paragraph", dataset=SQUAD, limit=1, peers="semchunk:400")
    md = render_report(run_chunker_bench(opts, embedder=FakeEmbedder()).report, "md")
    assert "2 documents, 1 question (en: 1), format squad." in md
    assert "Loading: 1 answer re-found elsewhere in their context; " in md
    assert "1 question dropped (no answer could be located)." in md
    assert "the one of the run's 1 peer with" in md


def test_no_shipped_default_when_the_run_is_not_the_shipped_pipeline() -> None:
    opts = BenchOptions(variants="paragraph", dataset=SQUAD, retriever="dense", peers="none")
    report = run_chunker_bench(opts, embedder=FakeEmbedder()).report
    assert report["config"]["shipped_default"] is None
    assert report["best_peers"] == {} and report["peer_deltas"] == {}
    md = render_report(report, "md")
    assert "(shipped default)" not in md and "No variant is the shipped default" in md
    assert "## Against the best peer" not in md
    for variants in ("paragraph:window_chars=0", "paragraph+none", "paragraph:max_chars=900"):
        opts = BenchOptions(variants=variants, dataset=SQUAD, peers="none")
        report = run_chunker_bench(opts, embedder=FakeEmbedder()).report
        assert report["config"]["shipped_default"] is None, variants


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_runs_through_the_bench(shape: str) -> None:
    opts = BenchOptions(variants="paragraph", dataset=SQUAD, shape=shape, peers="none")
    report = run_chunker_bench(opts, embedder=FakeEmbedder()).report
    assert report["config"]["shape"] == shape
    assert report["dataset"]["n_queries"] == 6
    assert report["dataset"]["loader_stats"]["shape_questions_dropped"] == 0
    assert render_report(report, "md").startswith(
        f"# Chunker benchmark: squad_tiny, shape {shape}\n"
    )


def test_cli_shape_and_peers_on_the_bundled_corpus(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    argv = ["eval", "chunker-bench", "--embedder", "fake", "--quiet", "--limit", "2",
            "--per-language", "--variants", "paragraph"]  # fmt: skip
    code = main([*argv, "--shape", "wrapped", "--peers", "langchain-recursive:2000,semchunk:1500",
                 "--report", "json", "--out", str(out)])  # fmt: skip
    assert code == 0
    report = json.loads(out.read_text("utf-8"))
    assert report["config"]["shape"] == "wrapped"
    assert [v["name"] for v in report["variants"]] == [
        "paragraph",
        "langchain-recursive:2000",
        "semchunk:1500",
    ]
    assert set(report["best_peers"]["ndcg@4000c"]) == {"en", "es", "pt"}
    assert main([*argv, "--peers", "none", "--out", str(tmp_path / "r.md")]) == 0
    md = (tmp_path / "r.md").read_text("utf-8")
    assert md.startswith("# Chunker benchmark: doctrinal_queries\n") and "best peer" not in md


def test_cli_bad_shape_and_peers_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", "chunker-bench", "--embedder", "fake", "--quiet", "--dataset", str(SQUAD)]
    assert main([*argv, "--shape", "tables"]) == 2
    err = capsys.readouterr().err
    assert (
        err == "error: unknown shape 'tables': use one of joined, sentences, wrapped, long, rows\n"
    )
    assert main([*argv, "--peers", "paragraph"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("error: peers lists 'paragraph', which is not a peer")
        and err.count("\n") == 1
    )


def test_help_lists_the_shapes_and_the_default_peers(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one line per option
    assert main(["eval", "chunker-bench", "-h"]) == 0
    out = "".join(capsys.readouterr().out.replace("│", " ").split())  # the box, unwrapped
    assert "--shape<joined|sentences|wrapped|long|rows>" in out and "--peers" in out
    assert "(default:" + ",".join(DEFAULT_PEERS) + ")." in out


def test_markdown_of_the_golden_report_is_pinned() -> None:
    """The Markdown of the pinned JSON report (timings at zero, path aside):
    regenerate with JW_REGEN_GOLDEN=1 after a deliberate change of the text."""
    report = json.loads((GOLDEN / "bench_report_bundled.json").read_text("utf-8"))
    report["timings_s"] = {"parse": 0.0, "embed_queries": 0.0, "total": 0.0}
    for v in report["variants"]:
        v["timings_s"] = {"chunk": 0.0, "embed_index": 0.0, "search": 0.0, "score": 0.0}
    md = render_report(report, "md")
    path = GOLDEN / "bench_report_bundled.md"
    if os.environ.get("JW_REGEN_GOLDEN"):
        path.write_text(md, "utf-8")
    assert md == path.read_text("utf-8")


def test_default_peers_without_their_library_are_left_out_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    from jw_rag.errors import MissingDependencyError

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "chonkie" else real(name, *a)
    )
    opts = BenchOptions(variants="paragraph", dataset=SQUAD, limit=1)
    with pytest.warns(UserWarning, match="left out the default peers chonkie-recursive:1000"):
        report = run_chunker_bench(opts, embedder=FakeEmbedder()).report
    assert report["config"]["peers"] == [p for p in DEFAULT_PEERS if "chonkie" not in p]
    argv = ["eval", "chunker-bench", "--embedder", "fake", "--quiet", "--dataset", str(SQUAD),
            "--variants", "paragraph", "--limit", "1", "--report", "json"]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("warning: left out the default peers")
    assert "chonkie not installed" in err and "--extra bench" in err

    # a peer set given explicitly fails on a missing library, naming the extra
    import sys

    monkeypatch.setitem(sys.modules, "chonkie", None)  # import chonkie raises ImportError
    with pytest.raises(MissingDependencyError, match="'bench' extra"):
        run_chunker_bench(
            BenchOptions(
                variants="paragraph", dataset=SQUAD, limit=1, peers="chonkie-recursive:500"
            ),
            embedder=FakeEmbedder(),
        )
