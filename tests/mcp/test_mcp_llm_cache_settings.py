"""An MCP agent cannot change how much of the server's LLM chunker answer cache is
kept: ``cache_max_bytes`` (0 would delete every cached answer the server paid for,
a huge value would let the cache fill the server's disk) is a server setting."""

from __future__ import annotations

from pathlib import Path

import anyio

from jw_gen.providers import HeuristicProvider
from jw_rag.chunkers.llm_chunker import LLMChunker
from tests.mcp.mcp_client import connect

PARAS = [
    "The first section opens with a claim about ancient libraries and their readers. " * 3,
    "However the archives tell another story about the same libraries and readers. " * 3,
    "A new subject starts here about river boats and their cargo routes upstream. " * 3,
]


def test_agents_cannot_shrink_or_grow_the_servers_llm_cache(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "note.txt").write_text("A note about gardens.\n\nAnother about water.\n")
    cache = tmp_path / "server-cache"
    chunker = LLMChunker(provider=HeuristicProvider(), cache_dir=cache, max_chars=300)
    for i in range(3):
        chunker.chunk([p.replace("libraries", f"libraries {i}") for p in PARAS], f"d{i}")
    assert chunker.cache is not None
    before = chunker.cache.entries()
    assert len(before) == 3

    async def scenario() -> None:
        async with connect(
            tmp_path, "--root", str(root), JW_GEN_PROVIDER="heuristic",
            JW_CHUNK_CACHE_DIR=str(cache),
        ) as c:  # fmt: skip
            for tool, args in (
                ("set_chunker", {"name": "llm", "options": {"cache_max_bytes": 0}}),
                ("set_chunker", {"name": "llm", "options": {"cache_max_bytes": 10**15}}),
                ("ingest", {"kind": "text", "source": "note.txt", "chunker": "llm",
                            "chunker_options": {"cache_max_bytes": 0}}),
            ):  # fmt: skip
                error, message = await c.call(tool, **args)
                assert error and "'cache_max_bytes'" in message and "server" in message, message
            error, result = await c.call("ingest", kind="text", source="note.txt", chunker="llm")
            assert not error, result

    anyio.run(scenario)
    assert [p for _, _, p in before] == [p for _, _, p in chunker.cache.entries()[: len(before)]]
