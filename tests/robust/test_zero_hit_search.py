"""A search that finds nothing answers with nothing: every expansion and mode
in the library, the CLI (table and JSON) and the MCP server; the CLI and the
server name a source filter the store holds no source for (a typo) instead. A
context budget that is not a whole number >= 0 is refused."""

from __future__ import annotations

import json
import math
from pathlib import Path

import anyio
import pytest

from jw_cli.app import main
from jw_rag.defaults import EXPANSIONS, SEARCH_MODES
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.model import Chunk
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore
from tests.mcp.mcp_client import connect


@pytest.fixture
def store_path(garden_store: Path) -> Path:
    return garden_store


@pytest.mark.parametrize("expand", EXPANSIONS)
@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize(
    "filters", [{"language": "es"}, {"source_id": "nothing"}, {"source_id": []}]
)
def test_library_zero_hits_is_an_empty_delivery(
    store_path: Path, expand: str, mode: str, filters: dict[str, object]
) -> None:
    with SQLiteStore(store_path, FakeEmbedder(dim=16)) as store:
        delivery = retrieve(store, "water", mode=mode, expand=expand, filters=filters)  # type: ignore[arg-type]
    assert list(delivery) == [] and delivery.folded == {}


def test_cli_zero_hits_table_and_json(
    store_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake:16")
    base = ["--store", str(store_path), "rag", "search", "water", "--language", "es"]
    assert main([*base, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == [] and err == ""
    assert main(base) == 0
    out, err = capsys.readouterr()
    assert out == "0 hits for 'water' in 1 source, as filtered\n" and err == ""


def test_cli_zero_hits_in_an_empty_store_says_to_ingest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose every source was deleted: one line saying so, not an empty table."""
    monkeypatch.setenv("JW_EMBEDDER", "fake:16")
    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, FakeEmbedder(dim=16)) as store:
        store.add([Chunk("a:0", "Water is life.", "a")])
        store.delete_source("a")
    for mode in ("dense", "bm25", "hybrid"):
        assert main(["--store", str(path), "rag", "search", "water", "--mode", mode]) == 0
        out, err = capsys.readouterr()
        assert out == (
            "0 hits for 'water': the store holds no source yet; ingest one (jw rag ingest -h)\n"
        )
        assert err == ""


def test_mcp_zero_hits(store_path: Path, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(tmp_path, JW_EMBEDDER="fake:16") as c:
            assert await c.call("search", query="water", language="es") == (False, [])
            error, message = await c.call("search", query="water", source_id="nothing")
            assert error and message.endswith(
                "no source 'nothing' in the store: list_sources shows the ids"
            )

    anyio.run(scenario)


@pytest.mark.parametrize("budget", [-1, math.nan, 1.5, True, "100"])
def test_context_budget_must_be_a_whole_number(store_path: Path, budget: object) -> None:
    with (
        SQLiteStore(store_path, FakeEmbedder(dim=16)) as store,
        pytest.raises(ConfigError, match="max_context_tokens must be a whole number >= 0"),
    ):
        retrieve(store, "water", max_context_tokens=budget)  # type: ignore[arg-type]


def test_context_budget_zero_still_delivers_the_first_hit(store_path: Path) -> None:
    with SQLiteStore(store_path, FakeEmbedder(dim=16)) as store:
        assert len(retrieve(store, "water", max_context_tokens=0)) == 1
