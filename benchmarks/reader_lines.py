"""What the text reader keeps of a document's lines, and what retrieval makes of it.

``jw eval chunker-bench --shape`` builds its documents in Python, so it
measures a layout only as far as a reader would hand it over. This script
writes each re-laid document of a shared set to a ``.txt`` file, reads it
back with the real text reader (``jw rag ingest text``'s parser) and reports:

* how many of the layout's line breaks between two lines of their own (the
  old paragraphs of ``joined``, the rows of ``rows-lines``) the reader kept
  as a line break, and how many of ``wrapped``'s margin breaks it kept
  (it should keep none: a wrapped line is not a unit boundary);
* the units the default pipeline builds from the reader's document, and how
  many of them start in the middle of a line of the written file that a
  unit could hold whole (at most ``split_above`` characters);
* with ``--bench``, the chunker bench (``paragraph`` against the default
  peer set) on the documents as read, the answers carried to the read text.

Layouts: the bench's ``joined`` and ``wrapped`` shapes, and ``rows-lines``:
the ``rows`` shape written with one line per row and no blank line between
rows (a table or list export), which the bench itself never lays out.

    uv run --frozen python benchmarks/reader_lines.py --sets argument,xquad-es \\
        --layouts joined,wrapped,rows-lines --bench joined,rows-lines --out reader.json

Run it from another checkout (``uv run --frozen python /path/to/this``) to
measure that checkout's reader on the same files.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from jw_eval.datasets import load_dataset
from jw_eval.datasets.model import BenchDocument, Dataset
from jw_eval.shapes import reshape
from jw_eval.spans import ExpectedSpan
from jw_rag.chunker import chunk_paragraphs
from jw_rag.ingest import parse_text
from jw_rag.model import PARAGRAPH_SEPARATOR, rebuild_text
from jw_rag.units import DEFAULT_UNITS, passages

SETS = {
    "argument": "argument",
    "argument-long": "argument-long",
    "xquad-en": "xquad/xquad.en.json",
    "xquad-es": "xquad/xquad.es.json",
    "faquad": "faquad/dataset.json",
}
LAYOUTS = ("joined", "wrapped", "rows-lines")


def written(doc: BenchDocument, layout: str) -> str:
    """The file text of ``doc`` (already re-laid by the bench's shape) for ``layout``."""
    if layout == "rows-lines":
        return "\n".join(p.text.replace("\n", " ") for p in doc.paragraphs)
    return doc.text


def _align(old: str, new: str) -> list[int | None]:
    """For each character of ``old``, its offset in ``new`` (``None`` for
    whitespace or a character the reader dropped); the reader changes only
    whitespace and drops invisible characters."""
    out: list[int | None] = [None] * len(old)
    j = 0
    for i, ch in enumerate(old):
        if ch.isspace():
            continue
        while j < len(new) and new[j].isspace():
            j += 1
        if j < len(new) and new[j] == ch:
            out[i] = j
            j += 1
    return out


def _carry(dataset: Dataset, texts: dict[str, str], read: dict[str, BenchDocument]) -> Dataset:
    maps = {d: _align(texts[d], read[d].text) for d in read}
    queries = []
    for q in dataset.queries:
        spans = []
        for e in q.expected:
            m = maps[e.doc_id]
            hits = [m[i] for i in range(e.start, min(e.end, len(m))) if m[i] is not None]
            if hits:
                spans.append(ExpectedSpan(e.doc_id, hits[0], hits[-1] + 1, e.gain))
        if spans:
            queries.append(replace(q, expected=tuple(spans)))
    return Dataset(dataset.name, dataset.format, read, queries, dict(dataset.stats))


def _line_starts(text: str) -> set[int]:
    return {0} | {i + 1 for i, ch in enumerate(text) if ch == "\n"}


def _short_lines(text: str, size: int) -> list[bool]:
    """For each character of ``text``: True inside a line of at most ``size``
    characters (a line a unit can hold whole, so no unit should start inside it)."""
    out: list[bool] = []
    for line in text.split("\n"):
        out.extend([len(line.strip()) <= size] * (len(line) + 1))
    return out


def measure(dataset: Dataset, layout: str, folder: Path) -> tuple[dict[str, Any], Dataset]:
    shape = "rows" if layout == "rows-lines" else layout
    shaped = reshape(dataset, shape)
    texts: dict[str, str] = {}
    read: dict[str, BenchDocument] = {}
    stats = {"line_breaks": 0, "kept": 0, "units": 0, "units_mid_line": 0, "provenance_errors": 0}
    for n, (doc_id, doc) in enumerate(shaped.documents.items()):
        text = written(doc, layout)
        path = folder / f"{n}.txt"
        path.write_text(text, encoding="utf-8")
        parsed = parse_text(path)
        texts[doc_id] = PARAGRAPH_SEPARATOR.join(p.text for p in doc.paragraphs)
        if layout == "rows-lines":
            texts[doc_id] = text
        read[doc_id] = BenchDocument(doc_id, parsed.paragraphs, doc.language, doc.title)
        for block in text.split(PARAGRAPH_SEPARATOR):
            stats["line_breaks"] += block.strip("\n").count("\n")
        stats["kept"] += sum(p.text.count("\n") for p in parsed.paragraphs)
        units = passages(chunk_paragraphs(parsed.paragraphs, doc_id), parsed.paragraphs)
        stats["units"] += len(units)
        # where each unit starts in the written file: map read text -> file text
        back = _align(read[doc_id].text, text)
        starts = _line_starts(text)
        short = _short_lines(text, DEFAULT_UNITS.split_above)
        offsets = [0]
        for p in parsed.paragraphs:
            offsets.append(offsets[-1] + len(p.text) + len(PARAGRAPH_SEPARATOR))
        for u in units:
            span = u.metadata["span"]
            if rebuild_text(parsed.paragraphs, span) != u.text:
                stats["provenance_errors"] += 1
            where = back[offsets[span["start_para"]] + span["start_char"]]
            if where is not None and where not in starts and short[where]:
                stats["units_mid_line"] += 1
    stats["kept_share"] = round(stats["kept"] / max(1, stats["line_breaks"]), 4)
    return stats, _carry(shaped, texts, read)


def bench(dataset: Dataset) -> dict[str, Any]:
    import jw_eval.bench.chunker_bench as cb

    cb._load = lambda options: (dataset, f"{dataset.name} (read by the text reader)")
    result = cb.run_chunker_bench(cb.BenchOptions(variants="paragraph"))
    report = result.report
    out: dict[str, Any] = {}
    for variant in report["variants"]:
        out[variant["name"]] = {
            lang: {m: round(v[m]["mean"] if isinstance(v[m], dict) else v[m], 4)
                   for m in ("ndcg@2000c", "ndcg@4000c") if m in v}
            for lang, v in variant["by_language"].items()
        }  # fmt: skip
    return {"scores": out, "peer_deltas": report.get("peer_deltas")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="argument,xquad-es")
    parser.add_argument("--layouts", default=",".join(LAYOUTS))
    parser.add_argument("--bench", default="", help="layouts to also run the bench on")
    parser.add_argument("--data", default="../shared/bench-data")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    data = Path(args.data)
    if not data.is_dir():
        print(f"no bench data at {data}: give --data", file=sys.stderr)
        return 2
    results: list[dict[str, Any]] = []
    for name in args.sets.split(","):
        dataset = load_dataset(data / SETS[name])
        for layout in args.layouts.split(","):
            t0 = time.perf_counter()
            with tempfile.TemporaryDirectory() as folder:
                stats, read = measure(dataset, layout, Path(folder))
            row: dict[str, Any] = {"set": name, "layout": layout, **stats}
            if layout in args.bench.split(","):
                row["bench"] = bench(read)
            row["seconds"] = round(time.perf_counter() - t0, 1)
            results.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "bench"}), flush=True)
            if args.out:
                args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
