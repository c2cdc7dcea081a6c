"""The ``ingest`` tool names a folder's stored sources whose file is gone (a
``warning:`` line and ``vanished``) and how to remove them; it deletes none."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from tests.mcp.mcp_client import connect


def test_the_mcp_ingest_tool_names_them_too_and_deletes_none(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    lib = root / "lib"
    lib.mkdir(parents=True)
    for name in ("a", "b"):
        (lib / f"{name}.txt").write_text(f"Text of {name}.\n", encoding="utf-8")

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            first = await c.session.call_tool("ingest", {"kind": "text", "source": "lib"})
            assert not first.is_error and "vanished" not in (first.structured_content or {})
            (lib / "b.txt").unlink()
            again = await c.session.call_tool("ingest", {"kind": "text", "source": "lib"})
            assert not again.is_error
            texts = [b.text for b in again.content]
            assert texts[-1] == (
                f"warning: {lib}: 1 stored source of this folder has no file any more "
                "('lib/b'), kept in the store: the delete_source tool removes one"
            )
            assert again.structured_content["vanished"] == [
                {"source_id": "lib/b", "origin": str((lib / "b.txt").resolve())}
            ]
            listed = await c.session.call_tool("list_sources", {})
            assert "lib/b" in json.dumps(listed.structured_content)

    anyio.run(scenario)
