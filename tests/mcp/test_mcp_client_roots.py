"""Roots the client offers, and progress while an ingest embeds, over stdio with
the SDK's client: a file must lie under the server's roots and, when the client
offers roots, under one of those (asked again on every call, so a change is
seen at once); an ingest called with a progress token gets increasing progress
notifications ending at the total."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import types
from mcp.client.session import ClientRequestContext

from jw_mcp.client_roots import root_directory
from tests.mcp.mcp_client import connect


def _tree(tmp_path: Path) -> Path:
    """A server root with two folders, ``open`` and ``closed``, a note in each."""
    root = tmp_path / "root"
    for folder in ("open", "closed"):
        (root / folder).mkdir(parents=True)
        (root / folder / f"{folder}.txt").write_text(f"A note kept in the {folder} folder.\n")
    return root


def test_files_must_lie_under_a_root_the_client_offers(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    offered = [(root / "open").as_uri()]
    asked: list[int] = []

    async def list_roots(_ctx: ClientRequestContext) -> types.ListRootsResult:
        asked.append(1)
        return types.ListRootsResult(roots=[types.Root(uri=uri) for uri in offered])

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root), roots=list_roots) as c:
            error, result = await c.call("ingest", kind="text", source="open/open.txt")
            assert not error and result[0]["source_id"] == "open"
            error, message = await c.call("ingest", kind="text", source="closed/closed.txt")
            assert error and "\n" not in message
            assert f"is outside the roots the client offers ({root / 'open'})" in message
            error, message = await c.call("ingest", kind="epub", source="closed/closed.txt")
            assert error and "outside the roots the client offers" in message
            offered[:] = [(root / "closed").as_uri()]
            error, result = await c.call("ingest", kind="text", source="closed/closed.txt")
            assert not error, result  # the changed roots are seen on the next call
            offered[:] = [tmp_path.as_uri()]  # wider than the server's root: the server's holds
            error, message = await c.call("ingest", kind="text", source="../elsewhere.txt")
            assert error and "outside the allowed roots" in message
            offered[:] = []
            error, message = await c.call("ingest", kind="text", source="open/open.txt")
            assert error and "outside the roots the client offers (none)" in message
            error, stats = await c.call("stats")
            assert not error and stats["sources"] == 2  # open, then closed once offered

    anyio.run(scenario)
    assert len(asked) == 6  # every file call asked; stats did not


def test_root_uris_name_folders_only_when_they_are_file_uris(tmp_path: Path) -> None:
    assert root_directory(tmp_path.as_uri()) == tmp_path.resolve()
    assert root_directory("file://localhost" + str(tmp_path)) == tmp_path.resolve()
    assert root_directory("file://otherhost/srv") is None
    assert root_directory("https://example.org/") is None


def test_an_ingest_reports_progress_while_it_embeds(tmp_path: Path) -> None:
    text = "\n\n".join(f"Paragraph {i}: " + "words " * 60 for i in range(400))
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(tmp_path)) as c:
            error, result = await c.call_with(
                "ingest", {"kind": "text", "source": "long.txt"}, progress
            )
            assert not error and result[0]["chunks"] >= 100, result
            before = len(seen)
            error, result = await c.call_with(
                "ingest", {"kind": "text", "source": "long.txt"}, None
            )
            assert not error and result[0]["skipped"] and len(seen) == before

    anyio.run(scenario)
    assert seen[0] == (0, None, f"reading {tmp_path.resolve() / 'long.txt'}")
    embedded = seen[1:]
    assert len(embedded) >= 2 and embedded[0][0] == 64, seen  # one per batch of 64 texts
    assert [d for d, _, _ in seen] == sorted({d for d, _, _ in seen})  # strictly increasing
    assert all(m and m.startswith("embedded ") for _, _, m in embedded)
    assert embedded[-1][0] == embedded[-1][1]  # the last reaches its total
