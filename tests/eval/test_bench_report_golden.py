"""The bench report's content is pinned: a run on the bundled corpus (fake
embedder, six questions per language, two peers added to the listed
variants) must give the stored report exactly, timings and paths aside. A
deliberate change to the report regenerates the file with the command

    jw --embedder fake eval chunker-bench --variants "paragraph,semantic:window_chars=0+none,langchain-recursive:400" \
        --limit 6 --per-language --peers "langchain-recursive:1000,semchunk:1500" --report json --out r.json

passed through :func:`stable`, and moves ``schema_version`` when the shape changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jw_eval.bench import BenchOptions, run_chunker_bench
from jw_rag.embed import FakeEmbedder

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "bench_report_bundled.json"
OPTIONS = BenchOptions(
    variants="paragraph,semantic:window_chars=0+none,langchain-recursive:400",
    limit=6,
    limit_per_language=True,
    peers="langchain-recursive:1000,semchunk:1500",
)


def stable(value: Any) -> Any:
    """The report without what changes from run to run (timings, paths)."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in ("timings_s", "path")}
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, float):
        return round(value, 9)
    return value


def test_bundled_report_matches_the_stored_one() -> None:
    report = run_chunker_bench(OPTIONS, embedder=FakeEmbedder()).report
    expected = json.loads(GOLDEN.read_text("utf-8"))
    assert json.loads(json.dumps(stable(report))) == expected


def test_markdown_report_leads_with_the_summary_table() -> None:
    from jw_eval.bench import render_report

    report = run_chunker_bench(OPTIONS, embedder=FakeEmbedder()).report
    md = render_report(report, "md")
    assert md.index("## Summary") < md.index("## Variants") < md.index("### All questions")
    para = next(v for v in report["variants"] if v["name"] == "paragraph")
    es = para["by_language"]["es"]["metrics"]
    row = (
        f"| paragraph (shipped default) | es | {para['by_language']['es']['mean_chunk_chars']:.0f} | "
        + " | ".join(f"{es[n]['value']:.3f}" for n in ("ndcg@10", "ndcg@2000c", "ndcg@4000c"))
    )
    assert row in md
