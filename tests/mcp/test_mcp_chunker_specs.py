"""Chunker options over MCP: on an ingest, on the connection's choice, and in
``JW_CHUNKER``, the same specs the CLI and the library take."""

from __future__ import annotations

from pathlib import Path

import anyio

from jw_eval.bench import DEFAULT_DATASET
from jw_rag.chunkers import get_chunker
from jw_rag.ingest import parse_article
from tests.mcp.mcp_client import REPO, connect

ARTICLE = DEFAULT_DATASET / "corpus" / "en" / "soul.html"


def _expected_chunks(spec: str) -> int:
    doc = parse_article(ARTICLE)
    return len(get_chunker(spec).chunk(doc.paragraphs, "soul", metadata={"language": "en"}))


def test_chunker_options_reach_the_chunker(tmp_path: Path) -> None:
    packed = _expected_chunks("semantic:target_chars=1500")
    assert packed < _expected_chunks("semantic")  # the option changes the chunks

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(REPO)) as c:
            error, result = await c.call(
                "ingest",
                kind="article",
                source=str(ARTICLE),
                chunker="semantic",
                chunker_options={"target_chars": 1500},
            )
            assert not error and (result[0]["chunker"], result[0]["chunks"]) == ("semantic", packed)
            error, chosen = await c.call(
                "set_chunker", name="semantic", options={"target_chars": 1500}
            )
            assert not error and chosen["chunker"] == "semantic:target_chars=1500"
            error, message = await c.call(
                "ingest", kind="article", source=str(ARTICLE), chunker_options={"bogus": 1}
            )
            assert error and "bogus" in message and "\n" not in message
            # set_chunker builds the chunker at once: a bad value is refused there, in
            # one line, and the connection's choice stays as it was
            for options in ({"target_chars": "lots"}, {"bogus": 1}, {"target_chars": -5}):
                error, message = await c.call("set_chunker", name="semantic", options=options)
                assert error and "\n" not in message, (options, message)
                assert message.startswith("Error executing tool set_chunker: "), message
            assert (await c.call("get_chunker"))[1]["chunker"] == "semantic:target_chars=1500"
            error, result = await c.call("ingest", kind="article", source=str(ARTICLE))
            assert not error and result[0]["chunks"] == packed  # later ingests still work

    anyio.run(scenario)


def test_jw_chunker_may_be_a_spec(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(tmp_path, JW_CHUNKER="semantic:target_chars=1500") as c:
            error, chosen = await c.call("get_chunker")
            assert not error
            assert (chosen["chunker"], chosen["source"]) == (
                "semantic:target_chars=1500",
                "JW_CHUNKER",
            )

    anyio.run(scenario)
