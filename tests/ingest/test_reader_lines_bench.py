"""benchmarks/reader_lines.py end to end on a small real-text dataset (no bench run)."""

from __future__ import annotations

from pathlib import Path

from jw_eval.datasets.model import BenchDocument, BenchQuery, Dataset
from jw_eval.spans import ExpectedSpan
from jw_rag.model import Paragraph
from tests.benchmark_scripts import load_script


def _module():
    return load_script("reader_lines")


PARAS = [
    "It is a melancholy object to those who walk through this great town or travel in the "
    "country, when they see the streets, the roads and cabin doors crowded with beggars of "
    "the female sex, followed by three, four, or six children, all in rags.",
    "These mothers, instead of being able to work for their honest livelihood, are forced "
    "to employ all their time in strolling to beg sustenance for their helpless infants.",
    "I think it is agreed by all parties that this prodigious number of children is a very "
    "great additional grievance.",
]


def test_the_reader_keeps_joined_lines_and_joins_wrapped_ones(tmp_path: Path) -> None:
    m = _module()
    doc = BenchDocument("d", [Paragraph(p) for p in PARAS], "en")
    start = doc.text.index("These mothers")
    query = BenchQuery("q", "mothers?", "en", (ExpectedSpan("d", start, start + 13, 1.0),))
    dataset = Dataset("tiny", "jsonl", {"d": doc}, [query])
    joined, read = m.measure(dataset, "joined", tmp_path)
    assert (joined["line_breaks"], joined["kept"], joined["provenance_errors"]) == (2, 2, 0)
    assert joined["units_mid_line"] == 0
    span = read.queries[0].expected[0]
    assert read.documents["d"].text[span.start : span.end] == "These mothers"
    wrapped, _ = m.measure(dataset, "wrapped", tmp_path)
    assert wrapped["line_breaks"] > 0 and wrapped["kept"] == 0
    rows, _ = m.measure(dataset, "rows-lines", tmp_path)
    assert rows["provenance_errors"] == 0 and 0 < rows["kept"] <= rows["line_breaks"]
