"""``jw-mcp`` end to end: the SDK's stdio client talks to the server as a subprocess."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from jw_eval.bench import DEFAULT_DATASET
from jw_rag.chunkers import available_chunkers
from tests.mcp.mcp_client import REPO, Client, connect

ARTICLE = DEFAULT_DATASET / "corpus" / "es" / "alma.html"
TRANSCRIPT = os.environ.get("JW_MCP_TRANSCRIPT")  # set to a path to save one session as JSON lines


def test_tools_ingest_search_stats(tmp_path: Path) -> None:
    async def scenario() -> Client:
        async with connect(tmp_path, "--root", str(REPO)) as c:
            tools = await c.session.list_tools()
            c.log.append(
                {
                    "request": {"method": "tools/list"},
                    "response": {"tools": [t.name for t in tools.tools]},
                }
            )
            names = {t.name for t in tools.tools}
            assert {"set_chunker", "get_chunker", "ingest", "search", "stats"} <= names
            assert (await c.call("get_chunker"))[1]["chunker"] == "paragraph"
            assert (await c.call("set_chunker", name="semantic"))[1] == {
                "chunker": "semantic",
                "source": "session",
            }
            error, result = await c.call("ingest", kind="article", source=str(ARTICLE))
            assert not error
            assert result == [
                {
                    "source_id": "alma",
                    "chunks": 6,
                    "skipped": False,
                    "chunker": "semantic",
                    "language": "es",
                }
            ]
            error, hits = await c.call(
                "search", query="el alma que peca morirá", k=2, mode="bm25", expand="neighbors"
            )
            assert not error and hits[0]["source_id"] == "alma" and "peca morirá" in hits[0]["text"]
            assert "metadata" not in hits[0] and "expanded" not in hits[0]
            start, end = hits[0]["hit"]
            assert "peca morirá" in hits[0]["text"][start:end]
            # every store hit is accounted for: delivered, or folded into a delivered one
            error, three = await c.call("search", query="el alma que peca morirá", k=3, mode="bm25")
            assert not error and all(isinstance(h.get("folded", []), list) for h in three)
            for h in three:  # a folded hit's own text is in the hit's delivered text
                for f in h.get("folded", []):
                    found = (await c.call("get_chunk", chunk_id=f))[1]
                    assert found["text"] in h["text"] and f != h["id"]
            error, stats = await c.call("stats")
            assert not error and stats["chunks"] == 6 and stats["chunkers"] == {"semantic": 6}
            # an explicit chunker beats the session's choice
            error, again = await c.call(
                "ingest", kind="article", source=str(ARTICLE), chunker="paragraph"
            )
            assert (again[0]["chunker"], again[0]["chunks"]) == ("paragraph", 7)
            error, message = await c.call("set_chunker", name="nope")
            valid = ", ".join(repr(n) for n in available_chunkers())
            assert error and "\n" not in message
            assert message.startswith(
                "Error executing tool set_chunker: invalid arguments (name: Input should be "
            )
            assert message.endswith(f"{valid[-12:]}): follow the tool's input schema")
            error, message = await c.call(
                "ingest", kind="article", source=str(ARTICLE), chunker="bogus"
            )
            assert error and message.startswith(
                "Error executing tool ingest: invalid arguments (chunker: Input should be "
            )
            error, message = await c.call(
                "ingest", kind="article", source=str(REPO / "missing.html")
            )
            assert error and "missing.html" in message and "\n" not in message
            assert (await c.call("stats"))[1]["chunks"] == 7  # failed calls stored nothing
            return c

    client = anyio.run(scenario)
    if TRANSCRIPT:
        with open(TRANSCRIPT, "w", encoding="utf-8") as fh:
            for entry in client.log:
                fh.write(json.dumps(entry, ensure_ascii=False) + "\n")


def test_two_clients_keep_separate_chunker_choices(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with (
            connect(tmp_path / "a", "--root", str(REPO)) as a,
            connect(tmp_path / "b", "--root", str(REPO), JW_CHUNKER="structure") as b,
        ):
            assert (await b.call("get_chunker"))[1]["source"] == "JW_CHUNKER"
            await a.call("set_chunker", name="semantic")
            assert (await b.call("get_chunker"))[1]["chunker"] == "structure"
            await b.call("set_chunker", name="paragraph")
            assert (await a.call("get_chunker"))[1]["chunker"] == "semantic"
            ra = (await a.call("ingest", kind="article", source=str(ARTICLE)))[1]
            rb = (await b.call("ingest", kind="article", source=str(ARTICLE)))[1]
            assert (ra[0]["chunker"], rb[0]["chunker"]) == ("semantic", "paragraph")

    anyio.run(scenario)


def test_sessions_in_one_process_are_keyed_by_connection() -> None:
    from jw_mcp import sessions

    class Conn:
        def __init__(self) -> None:
            self.state: dict[str, Any] = {}

    class Ctx:
        def __init__(self, conn: Conn) -> None:
            self.session = type("S", (), {"_connection": conn})()

    one, two = Conn(), Conn()
    sessions.set_choice(sessions.connection_state(Ctx(one)), "semantic")
    assert sessions.choice(sessions.connection_state(Ctx(one)))["chunker"] == "semantic"
    assert sessions.choice(sessions.connection_state(Ctx(two))) == {
        "chunker": "paragraph",
        "source": "default",
    }
    with pytest.raises(ValueError, match="unknown chunker 'x'"):
        sessions.set_choice(two.state, "x")
