"""Hostile input through both surfaces: every file (generated here, every
ingest kind) ends in a non-zero exit or a tool error with a one-line message
and no traceback, and leaves the SQLite store byte for byte as it was:
``PRAGMA integrity_check`` ok, chunk and source counts and a hash of every
row of every table unchanged."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import anyio
import pytest

from jw_cli.app import main
from jw_eval.bench import DEFAULT_DATASET
from tests.mcp.mcp_client import connect
from tests.robust.hostile_files import hostile_files, snapshot

ARTICLE = DEFAULT_DATASET / "corpus" / "es" / "alma.html"
#: The MCP ingest tool's kind for each hostile file kind.
MCP_TOOLS = {
    "article": "article",
    "bible": "bible_chapter",
    "epub": "epub",
    "pdf": "pdf",
    "markdown": "markdown",
    "text": "text",
    "jwpub": "jwpub",
    "backup": "jw_library_backup",
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, Path]]:
    return hostile_files(tmp_path_factory.mktemp("hostile"))


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store holding one article, written through the CLI."""
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    path = tmp_path / "store.sqlite"
    assert main(["--store", str(path), "rag", "ingest", "article", str(ARTICLE)]) == 0
    return path


def test_the_suite_covers_every_kind_with_40_files(cases: list[tuple[str, str, Path]]) -> None:
    assert len(cases) >= 40
    assert {kind for _, kind, _ in cases} == set(MCP_TOOLS)
    assert len({name for name, _, _ in cases}) == len(cases)


def test_cli_hostile_files(
    cases: list[tuple[str, str, Path]], store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    before = snapshot(store)
    assert before["integrity"] == [("ok",)] and before["chunks"] > 0
    for name, kind, path in cases:
        code = main(["--store", str(store), "rag", "ingest", kind, str(path)])
        out, err = capsys.readouterr()
        assert code != 0, name
        assert out == "" and err.startswith("error: ") and err.count("\n") == 1, (name, err)
        assert "Traceback" not in err, name
        assert snapshot(store) == before, name


def test_mcp_hostile_files(cases: list[tuple[str, str, Path]], store: Path) -> None:
    before = snapshot(store)
    shutil.copy(store, store.with_name("copy.sqlite"))  # the server opens its own copy
    copy = store.with_name("copy.sqlite")
    root = os.path.commonpath([path.parent for _, _, path in cases])

    async def scenario() -> None:
        async with connect(store.parent, "--root", root, JW_STORE=str(copy)) as c:
            for name, kind, path in cases:
                error, message = await c.call("ingest", kind=MCP_TOOLS[kind], source=str(path))
                assert error, name
                assert message.startswith("Error executing tool ingest: "), (name, message)
                assert "\n" not in message and "Traceback" not in message, (name, message)
                assert "outside the allowed roots" not in message, (name, message)
                assert snapshot(copy) == before, name

    anyio.run(scenario)
