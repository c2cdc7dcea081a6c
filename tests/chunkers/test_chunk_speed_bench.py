"""The chunking speed benchmark runs end to end on a tiny copy of the bench data layout."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent.parent / "benchmarks" / "chunk_speed.py"
TEXT = (
    "The lamp was lit. However, nobody saw it, because it was under a basket. "
    "Therefore, it gave no light to anyone in the house."
)


def _squad(path: Path, articles: int) -> None:
    data = {"data": [{"paragraphs": [{"context": TEXT}] * 3} for _ in range(articles)]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), "utf-8")


def test_chunk_speed_bench_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _squad(tmp_path / "xquad" / "xquad.en.json", 2)
    _squad(tmp_path / "xquad" / "xquad.es.json", 1)
    _squad(tmp_path / "faquad" / "dataset.json", 1)
    (tmp_path / "chroma" / "corpora").mkdir(parents=True)
    (tmp_path / "chroma" / "corpora" / "a.md").write_text(f"{TEXT}\n\n{TEXT}", "utf-8")
    spec = importlib.util.spec_from_file_location("bench_chunk_speed", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--bench-data", str(tmp_path), "--repeat", "2", "--size", "100"])
    out = capsys.readouterr().out
    assert out.startswith("5 documents,")
    rows = {line.split(" | ")[0].strip("| "): line for line in out.splitlines() if "|" in line}
    assert {"paragraph", "semantic", "chonkie-recursive-100c"} <= set(rows)
    fastest = [name for name, row in rows.items() if row.endswith("| 1.00 | 1.00 [1.00, 1.00] |")]
    assert len(fastest) == 1 and fastest[0] not in ("paragraph", "semantic")  # the fastest peer
