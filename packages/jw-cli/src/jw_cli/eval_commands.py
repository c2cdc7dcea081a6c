"""``jw eval ...``: benchmark commands (all logic lives in :mod:`jw_eval`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from jw_cli.options import choices_metavar, global_options, text_only
from jw_cli.progress import stderr_progress
from jw_eval.bench.variants import DEFAULT_PEERS, VARIANT_OPTIONS
from jw_eval.shapes import SHAPES
from jw_rag.defaults import (
    DEFAULT_EXPANSION,
    DEFAULT_K,
    DEFAULT_SEARCH_MODE,
    DEFAULT_WINDOW_CHARS,
    EXPANSIONS,
    SEARCH_MODES,
)

__all__ = ["chunker_bench", "datasets_get", "eval_app"]

eval_app = typer.Typer(help="Measure retrieval quality.", no_args_is_help=True)
datasets_app = typer.Typer(
    help="Get the public evaluation sets the benchmark reads.", no_args_is_help=True
)
eval_app.add_typer(datasets_app, name="datasets")

_Variants = Annotated[
    str,
    typer.Option(
        help="Comma-separated chunkers (name[:key=val,...][+expansion]) or peers (e.g. "
        "semchunk:1500). Besides its chunker's options a variant takes "
        + ", ".join(o.split(" ")[0] for o in VARIANT_OPTIONS)
        + " (e.g. paragraph:split_above=1100 or paragraph:prefix=0.3)."
    ),
]
_Dataset = Annotated[
    Path | None,
    typer.Option(
        help="YAML queries dir/file, SQuAD JSON, a Chroma dir or questions.jsonl; "
        "default: the bundled corpus."
    ),
]
_Queries = Annotated[Path | None, typer.Option(help="YAML queries file (with --corpus-dir).")]
_CorpusDir = Annotated[Path | None, typer.Option(help="Articles the YAML queries cite.")]
_Format = Annotated[
    str | None, typer.Option("--format", help="Force yaml | squad | chroma | jsonl.")
]
_Language = Annotated[
    str | None,
    typer.Option(
        help="Only questions in this language (Chroma layout: its language).",
        callback=text_only("language"),
    ),
]
_Limit = Annotated[int | None, typer.Option(help="First N questions in file order.")]
_PerLanguage = Annotated[
    bool, typer.Option("--per-language", metavar="", help="Apply --limit to each language.")
]
_K = Annotated[int, typer.Option(help="Hits delivered per question.")]
_Retriever = Annotated[
    str, typer.Option(metavar=choices_metavar(SEARCH_MODES), help="How the store ranks chunks.")
]
_Embedder = Annotated[
    str | None,
    typer.Option(help="Embedder name (default: jw --embedder, else $JW_EMBEDDER, else use)."),
]
_Report = Annotated[str, typer.Option(metavar="<md|json>", help="Report format.")]
_Out = Annotated[Path | None, typer.Option(help="Report file (chart written beside it as .svg).")]
_MinLift = Annotated[
    float | None,
    typer.Option(
        help="Gate: fail unless every variant's NDCG@10 lift over paragraph has its CI95 "
        "lower bound above this percent, per language."
    ),
]
_Expand = Annotated[
    str,
    typer.Option(
        metavar=choices_metavar(EXPANSIONS),
        help="Delivery for our chunkers (one variant: name+none); peers deliver hits alone.",
    ),
]
_WindowChars = Annotated[
    int,
    typer.Option(
        help="Window units indexed beside our chunkers' chunks, in characters, "
        "0 to 20000 (0: none; one variant: name:window_chars=0)."
    ),
]
_Shape = Annotated[
    str | None,
    typer.Option(
        metavar=choices_metavar(SHAPES),
        help="Lay the documents out as another kind of source before the run "
        "(answers carried exactly): joined (no blank lines), sentences (one per paragraph), "
        "wrapped (lines of 72 columns), long (2-3 paragraphs merged), rows (one-line pieces).",
    ),
]
_Peers = Annotated[
    str | None,
    typer.Option(
        metavar="<peer:size,...|none>",
        show_default=False,
        help="Peers added to the variants; each variant is compared with the best of them "
        "per language and budget (default: " + ", ".join(DEFAULT_PEERS) + ").",
    ),
]
_Quiet = Annotated[bool, typer.Option("--quiet", metavar="", help="No progress bar.")]


@eval_app.command("chunker-bench")
def chunker_bench(
    ctx: typer.Context,
    variants: _Variants = "paragraph,semantic",
    dataset: _Dataset = None,
    queries: _Queries = None,
    corpus_dir: _CorpusDir = None,
    format: _Format = None,
    language: _Language = None,
    limit: _Limit = None,
    per_language: _PerLanguage = False,
    k: _K = DEFAULT_K,
    retriever: _Retriever = DEFAULT_SEARCH_MODE,
    embedder: _Embedder = None,
    report: _Report = "md",
    out: _Out = None,
    min_lift: _MinLift = None,
    expand: _Expand = DEFAULT_EXPANSION,
    window_chars: _WindowChars = DEFAULT_WINDOW_CHARS,
    shape: _Shape = None,
    peers: _Peers = None,
    quiet: _Quiet = False,
) -> None:
    """Chunk, index, search and score each variant; write the report.

    The report is always written. The exit code is 1 only when --min-lift is
    given and the gate fails (no gate without --min-lift).

    Every run adds the peer set (--peers) and compares each variant with the
    best peer per language and budget.

    Example: jw eval chunker-bench --variants "paragraph,semantic:target_chars=800" --shape rows --out report.md
    """
    from jw_eval.bench import BenchOptions, run_chunker_bench, write_report
    from jw_eval.bench.output import check_report_path

    embedder = embedder or global_options(ctx).embedder
    if report not in ("md", "json"):
        raise typer.BadParameter("use md or json", param_hint="--report")
    check_report_path(out)  # before the run: a run's report is never lost to a bad path
    options = BenchOptions(
        variants=variants, dataset=dataset, queries=queries, corpus_dir=corpus_dir,
        format=format, language=language, limit=limit, limit_per_language=per_language, k=k,
        retriever=retriever, embedder=embedder, expand=expand, min_lift=min_lift,
        window_chars=window_chars, shape=shape, peers=peers,
    )  # fmt: skip
    with stderr_progress(enabled=not quiet and sys.stderr.isatty()) as progress:
        result = run_chunker_bench(options, progress=progress)
    for path in write_report(result.report, report, out):
        typer.echo(f"wrote {path}", err=True)
    if not result.passed:
        typer.echo("gate failed: " + ", ".join(result.report["gate"]["failures"]), err=True)
        raise typer.Exit(1)


#: Where each set's ``--dataset`` path is, under the destination.
_DATASET_PATHS = {
    "xquad": "xquad/xquad.en.json",
    "faquad": "faquad/dataset.json",
    "chroma": "chroma",
}


@datasets_app.command("get")
def datasets_get(
    name: Annotated[
        str, typer.Argument(metavar="<xquad|faquad|chroma>", help="The public set to download.")
    ],
    dest: Annotated[
        Path, typer.Option(help="Folder the set is laid out in (created if missing).")
    ] = Path("bench-data"),
    force: Annotated[
        bool,
        typer.Option("--force", metavar="", help="Replace files that differ from the pinned ones."),
    ] = False,
    mirror: Annotated[
        str | None,
        typer.Option(help="Base URL laid out like --dest, used instead of the upstream addresses."),
    ] = None,
    timeout: Annotated[float, typer.Option(help="Seconds allowed for each download.")] = 60.0,
) -> None:
    """Download a public evaluation set, each file checked against its pinned SHA-256.

    XQuAD (en, es; CC BY-SA 4.0), FaQuAD (pt; CC BY 4.0) or Chroma's chunking
    evaluation (en; MIT), in the layout --dataset reads. A set is written whole
    or not at all; files already there with the pinned checksum are kept.

    Example: jw eval datasets get xquad --dest bench-data
    """
    from jw_eval.datasets.public import get_public_dataset

    results = get_public_dataset(name, dest, force=force, mirror=mirror, timeout=timeout)
    for result in results:
        typer.echo(f"{result.status} {result.path} ({result.bytes:,} bytes)")
    typer.echo(f"use: jw eval chunker-bench --dataset {dest / _DATASET_PATHS[name]}")
