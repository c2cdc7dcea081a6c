"""Retrieval evaluation for jw-agent-toolkit: span-level IR metrics, bootstrap
confidence intervals, benchmark dataset loaders and the chunker benchmark.

>>> from jw_eval import BenchOptions, run_chunker_bench
>>> report = run_chunker_bench(BenchOptions(variants="paragraph,semantic")).report
"""

from jw_eval.bench import BenchOptions, BenchResult, render_report, run_chunker_bench, write_report
from jw_eval.bootstrap import Estimate, bootstrap_mean, paired_lift
from jw_eval.datasets import BenchDocument, BenchQuery, Dataset, load_dataset
from jw_eval.shapes import SHAPES, reshape
from jw_eval.spans import DocRange, ExpectedSpan

__all__ = [
    "SHAPES",
    "BenchDocument",
    "BenchOptions",
    "BenchQuery",
    "BenchResult",
    "Dataset",
    "DocRange",
    "Estimate",
    "ExpectedSpan",
    "bootstrap_mean",
    "load_dataset",
    "paired_lift",
    "render_report",
    "reshape",
    "run_chunker_bench",
    "write_report",
]
