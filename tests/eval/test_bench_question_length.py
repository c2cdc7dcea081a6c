"""The chunker bench refuses a dataset question over the search query limit
before it chunks or embeds anything, naming the question: it failed only
when it came to search, after the whole corpus was indexed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jw_eval.bench import BenchOptions, run_chunker_bench
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.limits import MAX_QUERY_CHARS

SQUAD = Path(__file__).resolve().parents[1] / "fixtures" / "eval" / "squad_tiny.json"


class _Counting(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed(self, texts: Any) -> Any:
        self.calls += 1
        return super().embed(texts)


def _with_question(tmp_path: Path, chars: int) -> tuple[Path, str]:
    data = json.loads(SQUAD.read_text(encoding="utf-8"))
    qa = data["data"][0]["paragraphs"][0]["qas"][0]
    qa["question"] = ("Where is the lighthouse? " * chars)[:chars]
    path = tmp_path / "long_question.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, qa["id"]


def test_a_question_over_the_limit_is_refused_before_the_run(tmp_path: Path) -> None:
    path, qid = _with_question(tmp_path, MAX_QUERY_CHARS + 1)
    embedder = _Counting()
    with pytest.raises(ConfigError) as caught:
        run_chunker_bench(BenchOptions(dataset=path), embedder=embedder)
    message = str(caught.value)
    assert "\n" not in message and repr(qid) in message and "over the limit" in message
    assert embedder.calls == 0


def test_a_question_at_the_limit_is_searched(tmp_path: Path) -> None:
    path, _ = _with_question(tmp_path, MAX_QUERY_CHARS)
    report = run_chunker_bench(BenchOptions(dataset=path), embedder=FakeEmbedder())
    assert report is not None
