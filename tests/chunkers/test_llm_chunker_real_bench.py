"""The real-model benchmark end to end, with the rule-based provider standing
in for the model and the fake embedder, on one document per language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jw_eval.bench.chunker_bench import DEFAULT_DATASET
from jw_eval.datasets import load_dataset
from jw_gen.providers import HeuristicProvider

REPO = Path(__file__).resolve().parents[2]


class _Model:
    """The heuristic provider with the usage counters the llamacpp provider keeps."""

    def __init__(self) -> None:
        self.inner = HeuristicProvider()
        self.usage = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
        self.schemas: list[Any] = []

    def complete(self, prompt: str, **kw: Any) -> str:
        self.schemas.append(kw.get("schema"))
        answer = self.inner.complete(prompt, **kw)
        self.usage["calls"] += 1
        self.usage["prompt_tokens"] += len(prompt) // 4
        self.usage["completion_tokens"] += len(answer) // 4
        return answer


def _bench() -> Any:
    from benchmarks import llm_chunker_real

    return llm_chunker_real


def test_real_model_benchmark_runs_end_to_end(tmp_path) -> None:
    bench = _bench()
    ds = load_dataset(DEFAULT_DATASET)
    docs = bench.sample_documents(ds, 3)
    assert [ds.documents[d].language for d in docs] == ["en", "es", "pt"]
    model = _Model()
    replay = bench.Replay("stand-in", model)
    answers = bench.answer_pass(ds, docs, replay, tmp_path)
    assert answers["documents"] == 3 and answers["answers_received"] == 3
    assert answers["usable_rate"] == 1.0 and all(s is not None for s in model.schemas)
    assert answers["per_1000_paragraphs"]["prompt_tokens"] > 0
    assert (
        sum(answers["answer_shapes"].values()) == 3 and "unusable" not in answers["answer_shapes"]
    )
    retrieval = bench.retrieval_pass(DEFAULT_DATASET, ds, docs, replay, tmp_path, embedder="fake")
    names = list(retrieval["scores"])
    assert names[:3] == ["paragraph", "semantic", "llm"] and names[3].startswith("llm:provider=")
    in_scope = bench._in_scope(ds, docs)
    assert retrieval["n_questions"] == len(in_scope) > 0
    for base in ("paragraph", "semantic"):
        lo, hi = retrieval["lifts"][base]["ndcg@10"]["ci95"]
        assert lo <= retrieval["lifts"][base]["ndcg@10"]["value"] <= hi


def test_an_unusable_answer_lowers_the_usable_rate(tmp_path) -> None:
    # the rate the README reports must be able to fall below 1: the second
    # document's answer is prose, the others are the stand-in's
    bench = _bench()
    ds = load_dataset(DEFAULT_DATASET)
    docs = bench.sample_documents(ds, 3)
    model = _Model()
    second = " ".join(ds.documents[docs[1]].paragraphs[0].text.split())[:60]

    def complete(prompt: str, **kw: Any) -> str:
        answer = _Model.complete(model, prompt, **kw)
        return "The chunks look fine to me." if second in prompt else answer

    model.complete = complete  # type: ignore[method-assign]
    answers = bench.answer_pass(ds, docs, bench.Replay("stand-in", model), tmp_path)
    assert answers["answers_received"] == 3 and answers["answers_usable"] == 2
    assert answers["usable_rate"] == 2 / 3
    assert answers["statuses"]["invalid_answer"] == 1
    assert answers["answer_shapes"]["unusable"] == 1
