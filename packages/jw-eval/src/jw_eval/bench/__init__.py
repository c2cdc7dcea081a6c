"""The chunker benchmark: variants, runner, summary and reports."""

from jw_eval.bench.chunker_bench import (
    DEFAULT_DATASET,
    BenchOptions,
    BenchResult,
    run_chunker_bench,
)
from jw_eval.bench.output import REPORT_FORMATS, render_report, write_report
from jw_eval.bench.runner import BenchConfig, VariantRun, run_variant, run_variants
from jw_eval.bench.variants import (
    DEFAULT_PEERS,
    PEERS,
    VariantSpec,
    parse_peers,
    parse_variant,
    parse_variants,
    with_peers,
)

__all__ = [
    "DEFAULT_DATASET",
    "DEFAULT_PEERS",
    "PEERS",
    "REPORT_FORMATS",
    "BenchConfig",
    "BenchOptions",
    "BenchResult",
    "VariantRun",
    "VariantSpec",
    "parse_peers",
    "parse_variant",
    "parse_variants",
    "render_report",
    "run_chunker_bench",
    "run_variant",
    "run_variants",
    "with_peers",
    "write_report",
]
