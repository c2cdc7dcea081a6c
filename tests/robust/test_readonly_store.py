"""Commands that only read a store refuse a path where no store exists,
instead of creating an empty one and answering "0 hits"."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from jw_cli.app import main
from jw_rag.config import existing_store
from jw_rag.errors import StoreError
from tests.mcp.mcp_client import connect


@pytest.mark.parametrize(
    "argv",
    [
        ["rag", "search", "alma", "--mode", "bm25"],
        ["rag", "stats"],
        ["rag", "stats", "--json"],
        ["rag", "delete", "--source", "alma"],
    ],
)
def test_cli_read_commands_refuse_a_missing_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    typo = tmp_path / "typo" / "stroe.sqlite"
    code = main(["--store", str(typo), *argv])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert (
        err
        == f"error: no store at {typo}: check the path (--store or $JW_STORE), or ingest a source there first\n"
    )
    assert not typo.exists() and not typo.parent.exists()


def test_cli_env_store_missing_is_refused_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_STORE", str(tmp_path / "absent.sqlite"))
    assert main(["rag", "search", "x", "--mode", "bm25"]) == 1
    assert "no store at" in capsys.readouterr().err
    assert not (tmp_path / "absent.sqlite").exists()


def test_existing_store_accepts_files_and_dsns(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    path.write_bytes(b"")
    assert existing_store(str(path)) == str(path)
    assert existing_store("postgresql://u@h/db") == "postgresql://u@h/db"
    with pytest.raises(StoreError, match="is a directory: give a file path"):
        existing_store(str(tmp_path))  # a folder is not a store file


def test_mcp_read_tools_refuse_a_missing_store(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(tmp_path) as c:
            for tool, args in (("search", {"query": "alma", "mode": "bm25"}), ("stats", {})):
                error, message = await c.call(tool, **args)
                assert error and message == (
                    f"Error executing tool {tool}: no store at {tmp_path / 'store.sqlite'}: check "
                    "the path (--store or $JW_STORE), or ingest a source there first"
                )

    anyio.run(scenario)
    assert not (tmp_path / "store.sqlite").exists()
