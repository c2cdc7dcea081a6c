"""The MCP ``search`` tool answers a query over jw_rag.limits.MAX_QUERY_CHARS
with a one-line error result at once, before it waits for a read worker:
four 10 MB queries used to hold every worker for minutes on PostgreSQL, and
the server answered nothing else meanwhile."""

from __future__ import annotations

import time
from pathlib import Path

import anyio

from jw_rag.limits import MAX_QUERY_CHARS
from tests.mcp.mcp_client import connect


def test_huge_queries_are_error_results_and_leave_the_workers_free(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("Lamps need oil.\n\nBread and wine.\n", encoding="utf-8")

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(tmp_path), "--workers", "1") as c:
            assert not (await c.call("ingest", kind="text", source="notes.txt"))[0]
            huge = "lamps " * 1_700_000  # 10 MB
            answers: list[tuple[bool, str]] = []

            async def ask() -> None:
                answers.append(await c.call("search", query=huge, mode="hybrid"))

            start = time.monotonic()
            async with anyio.create_task_group() as tg:
                for _ in range(4):
                    tg.start_soon(ask)
            assert time.monotonic() - start < 30
            assert len(answers) == 4
            for error, message in answers:
                assert error and "\n" not in message
                assert f"over the limit of {MAX_QUERY_CHARS:,}" in message
            at_limit = ("oil lamps " * MAX_QUERY_CHARS)[:MAX_QUERY_CHARS]
            error, hits = await c.call("search", query=at_limit, mode="bm25", k=1)
            assert not error and hits[0]["source_id"] == "notes"
            error, page = await c.call("list_sources")
            assert not error and page["total"] == 1  # nothing stored changed

    anyio.run(scenario)


def test_the_schema_tells_the_limit() -> None:
    from jw_mcp.server import build_server

    tools = {t.name: t for t in anyio.run(build_server().list_tools)}
    described = tools["search"].input_schema["properties"]["query"]["description"]
    assert f"{MAX_QUERY_CHARS:,} characters" in described
