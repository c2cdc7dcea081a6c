"""The chunk cache: keys, hits, LRU eviction, corrupt entries, concurrent
writers, the bench's pre-warmed fixture and the cost benchmark."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from jw_gen.providers import FakeProvider, HeuristicProvider
from jw_rag.chunkers.chunk_cache import ChunkCache, cache_key
from jw_rag.chunkers.llm_chunker import LLMChunker

REPO = Path(__file__).resolve().parents[2]

KEY_ARGS = dict(
    source_id="s",
    paragraphs=[("1", "a"), (None, "b")],
    provider_id="p",
    model="m",
    prompt_version="1",
    params={"max_chars": 10},
    language="en",
)


def test_key_depends_on_every_input() -> None:
    base = cache_key(**KEY_ARGS)
    assert len(base) == 64 and base == cache_key(**KEY_ARGS)
    changes = {
        "source_id": "t",
        "paragraphs": [("1", "a"), (None, "c")],
        "provider_id": "q",
        "model": "n",
        "prompt_version": "2",
        "params": {"max_chars": 11},
        "language": "es",
    }
    for name, value in changes.items():
        assert cache_key(**{**KEY_ARGS, name: value}) != base, name


def test_layout_and_hit_refreshes_mtime(tmp_path) -> None:
    cache = ChunkCache(tmp_path)
    key = cache_key(**KEY_ARGS)
    path = cache.put(key, {"answers": ["{}"]})
    assert path == tmp_path / key[:2] / f"{key}.json"
    os.utime(path, (1_000_000, 1_000_000))
    assert cache.get(key)["answers"] == ["{}"]
    assert path.stat().st_mtime > 1_000_000


def test_eviction_keeps_under_cap_and_drops_oldest(tmp_path) -> None:
    big = ChunkCache(tmp_path)
    keys = [f"{i:02d}" + "0" * 62 for i in range(10)]
    for t, key in enumerate(keys):
        os.utime(big.put(key, {"pad": "x" * 1000}), (1000 + t, 1000 + t))
    size = big.size_bytes()
    os.utime(big.path(keys[0]), (5000, 5000))  # recently used
    capped = ChunkCache(tmp_path, max_bytes=size // 2)
    assert capped.get(keys[9]) is not None  # first use enforces the cap
    assert capped.size_bytes() <= size // 2
    left = {p.stem for _, _, p in capped.entries()}
    assert keys[0] in left and keys[1] not in left and keys[9] in left
    capped.put("ff" + "0" * 62, {"pad": "y" * 1000})
    assert capped.size_bytes() <= size // 2


def test_corrupt_entry_is_ignored_and_replaced(tmp_path) -> None:
    fake = FakeProvider(['{"actions": []}', '{"actions": []}'])
    chunker = LLMChunker(provider=fake, cache_dir=tmp_path)
    paras = ["One short paragraph about a topic.", "Another paragraph on it."]
    chunker.chunk(paras, "doc")
    (_, _, path) = chunker.cache.entries()[0]
    path.write_text("{not json", encoding="utf-8")
    chunks = chunker.chunk(paras, "doc")
    assert chunks[0].metadata["llm_status"] == "no_actions" and fake.calls == 2
    assert chunker.chunk(paras, "doc")[0].metadata["llm_status"] == "cached"
    assert fake.calls == 2


def test_two_processes_writing_one_key(tmp_path) -> None:
    script = textwrap.dedent(
        f"""
        from jw_rag.chunkers.chunk_cache import ChunkCache
        cache = ChunkCache({str(tmp_path)!r})
        for i in range(200):
            cache.put("ab" + "0" * 62, {{"writer": __import__("os").getpid(), "i": i, "pad": "z" * 5000}})
            assert cache.get("ab" + "0" * 62) is not None
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    cache = ChunkCache(tmp_path)
    entry = cache.get("ab" + "0" * 62)
    assert entry is not None and entry["i"] == 199
    assert [p.name for p in (tmp_path / "ab").iterdir()] == ["ab" + "0" * 62 + ".json"]


def test_rerun_hits_the_cache_and_never_calls_the_provider(tmp_path, bench_docs) -> None:
    cold = LLMChunker(provider=HeuristicProvider(), cache_dir=tmp_path)
    first = {
        d: cold.chunk(doc.paragraphs, d, metadata={"language": doc.language})
        for d, doc in bench_docs
    }
    blocked = FakeProvider([], provider_id="heuristic", model="rules-v1")
    warm = LLMChunker(provider=blocked, cache_dir=tmp_path)
    for doc_id, doc in bench_docs:
        again = warm.chunk(doc.paragraphs, doc_id, metadata={"language": doc.language})
        assert [c.text for c in again] == [c.text for c in first[doc_id]]
        assert {c.metadata["llm_status"] for c in again} == {"cached"}
    stats = warm.stats
    assert blocked.calls == 0
    assert stats["cache_hits"] / stats["documents"] > 0.95


def test_bench_fixture_answers_every_bundled_document(bench_docs) -> None:
    from jw_eval.bench.chunking import VariantChunker
    from jw_eval.bench.variants import parse_variant

    chunker = VariantChunker(parse_variant("llm"))._chunker
    assert isinstance(chunker, LLMChunker)
    chunker.provider = FakeProvider([], provider_id="heuristic", model="rules-v1")
    for doc_id, doc in bench_docs:
        chunks = chunker.chunk(doc.paragraphs, doc_id, metadata={"language": doc.language})
        assert {c.metadata["llm_status"] for c in chunks} == {"cached"}, doc_id
    assert chunker.provider.calls == 0


def test_cost_benchmark_runs_end_to_end() -> None:
    from benchmarks import llm_chunker_cost

    result = llm_chunker_cost.run("heuristic")
    assert len(result["documents"]) == 30
    assert result["totals"]["calls"] == 30
    assert all(r["prompt_tokens"] > 100 for r in result["documents"])


def test_filling_a_capped_cache_scans_the_directory_rarely(tmp_path, monkeypatch) -> None:
    # every write scanned every entry: filling a cache of n entries took n² stats
    # (5,000 entries took 4 minutes here); now a full scan comes only when the
    # total passes the cap (eviction then goes down to 90% of it) or every
    # RESCAN_WRITES writes, and the cap still holds after every write
    from jw_rag.chunkers.chunk_cache import RESCAN_WRITES

    cap = 300_000
    cache = ChunkCache(tmp_path, max_bytes=cap)
    scans: list[int] = []
    scan = ChunkCache._scan
    monkeypatch.setattr(ChunkCache, "_scan", lambda self: scans.append(1) or scan(self))
    sizes = []
    for i in range(1200):
        cache.put(f"{i:064x}", {"pad": "x" * 500})
        sizes.append(sum(p.stat().st_size for p in tmp_path.glob("*/*.json")) if i % 97 == 0 else 0)
    assert max(sizes) <= cap
    scans_while_writing = len(scans)
    assert cache.size_bytes() <= cap
    entry = cache.size_bytes() // len(cache.entries())
    evictions = 1200 * entry // (cap // 10) + 1  # each frees a tenth of the cap
    assert scans_while_writing <= evictions + 1200 // RESCAN_WRITES + 2 < 1200 // 10
    left = sorted(p.stem for _, _, p in cache.entries())
    assert left[-1] == f"{1199:064x}"  # the newest is kept, the oldest went first
    assert f"{0:064x}" not in left
