"""``jw eval ...``: benchmark commands (all logic lives in :mod:`jw_eval`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from jw_cli.progress import stderr_progress
from jw_rag.defaults import (
    DEFAULT_EXPANSION,
    DEFAULT_K,
    DEFAULT_SEARCH_MODE,
    DEFAULT_WINDOW_CHARS,
    EXPANSIONS,
    SEARCH_MODES,
)

__all__ = ["chunker_bench", "eval_app"]

eval_app = typer.Typer(help="Measure retrieval quality.", no_args_is_help=True)


@eval_app.command("chunker-bench")
def chunker_bench(
    variants: Annotated[
        str,
        typer.Option(
            help="Comma-separated chunkers (name[:key=val,...]) or peers (e.g. semchunk:1500)."
        ),
    ] = "paragraph,semantic",
    dataset: Annotated[
        Path | None,
        typer.Option(
            help="YAML queries dir/file, SQuAD JSON or Chroma dir; default: the bundled corpus."
        ),
    ] = None,
    queries: Annotated[
        Path | None, typer.Option(help="YAML queries file (with --corpus-dir).")
    ] = None,
    corpus_dir: Annotated[Path | None, typer.Option(help="Articles the YAML queries cite.")] = None,
    format: Annotated[str | None, typer.Option("--format", help="Force yaml|squad|chroma.")] = None,
    language: Annotated[str | None, typer.Option(help="Only questions in this language.")] = None,
    limit: Annotated[int | None, typer.Option(help="First N questions in file order.")] = None,
    per_language: Annotated[
        bool, typer.Option("--per-language", help="Apply --limit to each language.")
    ] = False,
    k: Annotated[int, typer.Option(help="Hits delivered per question.")] = DEFAULT_K,
    retriever: Annotated[
        str, typer.Option(help=f"{' | '.join(SEARCH_MODES)} (default: the product's).")
    ] = DEFAULT_SEARCH_MODE,
    embedder: Annotated[
        str | None, typer.Option(help="Embedder name (default: $JW_EMBEDDER or use).")
    ] = None,
    report: Annotated[str, typer.Option(help="md | json.")] = "md",
    out: Annotated[
        Path | None, typer.Option(help="Report file (chart written beside it as .svg).")
    ] = None,
    min_lift: Annotated[
        float | None,
        typer.Option(
            help="Gate: fail unless every variant's NDCG@10 lift over paragraph has its CI95 lower bound above this percent, per language."
        ),
    ] = None,
    expand: Annotated[
        str,
        typer.Option(
            help=f"{' | '.join(EXPANSIONS)} for our chunkers (one variant: name+none); peers deliver hits alone."
        ),
    ] = DEFAULT_EXPANSION,
    window_chars: Annotated[
        int,
        typer.Option(
            help="Window units indexed beside our chunkers' chunks, in characters (0: none; one variant: name:windows=0)."
        ),
    ] = DEFAULT_WINDOW_CHARS,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Chunk, index, search and score each variant; write the report.

    The report is always written. The exit code is 1 only when --min-lift is
    given and the gate fails (no gate without --min-lift).
    """
    from jw_eval.bench import BenchOptions, run_chunker_bench, write_report

    options = BenchOptions(
        variants=variants,
        dataset=dataset,
        queries=queries,
        corpus_dir=corpus_dir,
        format=format,
        language=language,
        limit=limit,
        limit_per_language=per_language,
        k=k,
        retriever=retriever,
        embedder=embedder,
        expand=expand,
        min_lift=min_lift,
        window_chars=window_chars,
    )
    if report not in ("md", "json"):
        raise typer.BadParameter("use md or json", param_hint="--report")
    with stderr_progress(enabled=not quiet and sys.stderr.isatty()) as progress:
        result = run_chunker_bench(options, progress=progress)
    written = write_report(result.report, report, out)
    for path in written:
        typer.echo(f"wrote {path}", err=True)
    if not result.passed:
        typer.echo("gate failed: " + ", ".join(result.report["gate"]["failures"]), err=True)
        raise typer.Exit(1)
