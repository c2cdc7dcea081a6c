"""A folder ingest through MCP stores the folder's files and leaves out, by
name, a link to a file outside the server's roots: one such link used to
refuse the whole folder. Nothing outside the roots is ever read: the linked
file's text is in no chunk, a link to a folder outside is not followed, and a
loop of links reads nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp.mcp_client import connect

SECRET = "Outside words the server may not read."


def _folder(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "root"
    notes = root / "notes"
    notes.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (outside / "more.txt").write_text(SECRET + "\n", encoding="utf-8")
    (notes / "a.txt").write_text("Lamps need oil.\n", encoding="utf-8")
    (notes / "b.txt").write_text("Bread and wine.\n", encoding="utf-8")
    (notes / "secret.txt").symlink_to(outside / "secret.txt")
    (notes / "shared").symlink_to(outside)  # a folder outside
    (notes / "loop1.txt").symlink_to(notes / "loop2.txt")
    (notes / "loop2.txt").symlink_to(notes / "loop1.txt")
    return root, notes


async def _call(c: Any, **arguments: Any) -> tuple[bool, list[str], dict[str, Any] | None]:
    result = await c.session.call_tool("ingest", arguments)
    return result.is_error, [b.text for b in result.content], result.structured_content


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_link_outside_the_roots_is_left_out_by_name(tmp_path: Path) -> None:
    root, notes = _folder(tmp_path)

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            error, texts, structured = await _call(c, kind="text", source="notes")
            assert not error, texts
            assert structured is not None
            assert [r["source_id"] for r in structured["result"]] == ["notes/a", "notes/b"]
            warning = texts[-1]
            assert warning.startswith("warning: ") and "\n" not in warning
            assert "1 link to a file outside the allowed roots (secret.txt)" in warning
            assert "linked folder" in warning and "broken link" in warning
            groups = {g["what"]: g for g in structured["left_out"][0]["groups"]}
            outside = groups["link to a file outside the allowed roots"]
            assert (outside["files"], outside["examples"]) == (1, ["secret.txt"])
            error, hits = await c.call("search", query="outside words server", mode="bm25")
            assert not error
            assert all(SECRET not in h["text"] for h in hits)
            error, page = await c.call("list_sources")
            assert [s["source_id"] for s in page["sources"]] == ["notes/a", "notes/b"]

    anyio.run(scenario)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_folder_of_links_outside_only_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "root"
    links = root / "links"
    links.mkdir(parents=True)
    (tmp_path / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    for name in ("one.txt", "two.txt"):
        (links / name).symlink_to(tmp_path / "secret.txt")

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            error, texts, _ = await _call(c, kind="text", source="links")
            assert error and len(texts) == 1 and "\n" not in texts[0]
            assert "nothing to read" in texts[0]
            assert "2 links to files outside the allowed roots (one.txt, two.txt)" in texts[0]
            assert SECRET not in texts[0]
            error, page = await c.call("list_sources")
            assert page["total"] == 0

    anyio.run(scenario)
