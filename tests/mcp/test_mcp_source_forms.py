"""The MCP tools name a stored source id equal under Unicode NFC (search's
source_id filter, delete_source), and refuse a NUL in an id in one line that
says ids cannot hold it."""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import anyio

from jw_eval.bench import DEFAULT_DATASET
from tests.mcp.mcp_client import connect

ARTICLE = DEFAULT_DATASET / "corpus" / "es" / "alma.html"
STORED = unicodedata.normalize("NFD", "café")
TYPED = unicodedata.normalize("NFC", "café")


def test_search_and_delete_name_the_id_stored_in_another_form(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(ARTICLE, root / "alma.html")

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root), JW_EMBEDDER="fake") as c:
            error, _ = await c.call("ingest", kind="article", source="alma.html", source_id=STORED)
            assert not error
            error, hits = await c.call("search", query="alma", mode="bm25", source_id=TYPED)
            assert not error and hits and {h["source_id"] for h in hits} == {STORED}
            error, message = await c.call("search", query="alma", source_id="cafe")
            assert error and message.endswith(
                "no source 'cafe' in the store: list_sources shows the ids"
            )
            for call, args in (
                ("search", {"query": "alma", "source_id": "caf\x00é"}),
                ("delete_source", {"source_id": "caf\x00é"}),
                ("get_chunk", {"chunk_id": "alma:\x00"}),
            ):
                error, message = await c.call(call, **args)
                assert error and "ids cannot contain NUL" in message, (call, message)
                assert "\n" not in message and len(message) < 400
            error, done = await c.call("delete_source", source_id=TYPED)
            assert not error and done["deleted_chunks"] == 7
            assert (await c.call("list_sources"))[1]["total"] == 0

    anyio.run(scenario)
