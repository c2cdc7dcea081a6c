"""The default pipeline against the best peer on every set and every shape of it.

For each shared question set (and each ``--shape`` re-layout of it) this runs
``jw eval chunker-bench`` in-process with the shipped default (``paragraph``),
the chunks as made (``paragraph:units=off``: the pipeline before retrieval
units) and the default peer set, and writes one Markdown table: NDCG of what
is delivered within 2,000 and 4,000 characters, and the lift of each of our
rows over the best peer of that language and budget with its paired-bootstrap
95% interval. Rows are appended as each run ends, so a stopped run keeps what
it measured.

    uv run --frozen python benchmarks/shapes_table.py --out docs/results-table.md
    uv run --frozen python benchmarks/shapes_table.py --sets argument --shapes none,joined

The sets are read from ``../shared/bench-data`` (``--data`` to change it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from jw_eval.bench.chunker_bench import BenchOptions, run_chunker_bench
from jw_eval.shapes import SHAPES

SETS = {
    "argument": "argument",
    "argument-long": "argument-long",
    "xquad-en": "xquad/xquad.en.json",
    "xquad-es": "xquad/xquad.es.json",
    "faquad": "faquad/dataset.json",
    "chroma": "chroma",
}
OURS = ("paragraph", "paragraph:units=off")
LABELS = {"paragraph": "shipped default", "paragraph:units=off": "chunks as made (no units)"}
BUDGETS = ("ndcg@2000c", "ndcg@4000c")


def _cell(lift: dict[str, Any] | None) -> str:
    if not lift:
        return "–"
    low, high = lift["ci95"]
    return f"{lift['lift']:+.1%} [{low:+.1%}, {high:+.1%}]"


def rows(report: dict[str, Any], name: str, shape: str, ours: tuple[str, ...] = OURS) -> list[str]:
    """Markdown rows of one run: each of our variants per language."""
    out = []
    by_name = {v["name"]: v for v in report["variants"]}
    for variant in ours:
        summary = by_name.get(variant)
        if summary is None:
            continue
        for lang in sorted(summary["by_language"]):
            cells = []
            for metric in BUDGETS:
                value = summary["by_language"][lang]["metrics"][metric]["value"]
                best = report["best_peers"].get(metric, {}).get(lang)
                lift = report["peer_deltas"].get(metric, {}).get(variant, {}).get(lang)
                peer = f"{best['value']:.3f} ({best['peer']})" if best else "–"
                cells += [f"{value:.3f}", peer, _cell(lift)]
            out.append(
                f"| {name} | {shape} | {LABELS.get(variant, variant)} | {lang} | "
                + " | ".join(cells)
                + " |"
            )
    return out


HEADER = (
    "| set | shape | pipeline | lang | NDCG@2000c | best peer | lift [95% CI] "
    "| NDCG@4000c | best peer | lift [95% CI] |\n|---|---|---|---|---:|---|---|---:|---|---|"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/bench-data"))
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--shapes", default="none," + ",".join(SHAPES))
    parser.add_argument(
        "--shaped-sets",
        default="argument,argument-long,xquad-en,xquad-es,faquad",
        help="sets also run in every shape (the others only as they are)",
    )
    parser.add_argument(
        "--extra",
        default="",
        help="more of our variants, comma-separated (e.g. paragraph:prefix=0)",
    )
    parser.add_argument(
        "--peers",
        default=None,
        help="the peer set, comma-separated (default: the bench's seven); a run restricted "
        "to the peers known best gives the same best-peer values faster",
    )
    parser.add_argument(
        "--ours",
        default=",".join(OURS),
        help="our variants measured (default: the shipped default and the chunks as made)",
    )
    parser.add_argument("--out", type=Path, default=Path("shapes-table.md"))
    parser.add_argument("--json-dir", type=Path, default=None, help="keep each run's JSON report")
    args = parser.parse_args(argv)
    sets = [s for s in args.sets.split(",") if s]
    shapes = [s for s in args.shapes.split(",") if s]
    shaped = set(args.shaped_sets.split(","))
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        parser.error(f"unknown set {unknown[0]!r}: use {', '.join(SETS)}")
    if not args.data.is_dir():
        parser.error(f"{args.data} is not a folder: give --data with the shared bench sets")
    ours = tuple(v for v in args.ours.split(",") if v) + tuple(
        v for v in args.extra.split(",") if v
    )
    args.out.write_text(HEADER + "\n", "utf-8")
    for name in sets:
        for shape in shapes:
            if shape != "none" and name not in shaped:
                continue
            started = time.perf_counter()
            options = BenchOptions(
                variants=",".join(ours),
                dataset=args.data / SETS[name],
                shape=None if shape == "none" else shape,
                peers=args.peers,
            )
            report = run_chunker_bench(options).report
            if args.json_dir is not None:
                args.json_dir.mkdir(parents=True, exist_ok=True)
                (args.json_dir / f"{name}.{shape}.json").write_text(json.dumps(report), "utf-8")
            with args.out.open("a", encoding="utf-8") as out:
                out.write("\n".join(rows(report, name, shape, ours)) + "\n")
            print(f"{name} {shape}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
