"""What an agent may not reach through the MCP server: chunker options that name
a file, folder or model on the server (``markers_path``, ``cache_dir``,
``embedder``, nested in ``parent-child`` or smuggled in a value) are refused in
one line that names the option, the same line whether the path exists or not,
before anything is read or written; and a server started without ``--root``
reads no file at all, whatever directory it was started in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from jw_mcp.command import parser
from jw_mcp.roots import allowed_roots
from jw_rag.chunkers.path_options import path_options
from jw_rag.errors import ConfigError
from tests.mcp.mcp_client import REPO, connect


def test_path_options_are_found_in_specs_nested_specs_and_plugin_names() -> None:
    assert path_options("semantic:target_chars=800") == []
    assert path_options("semantic:markers_path=/etc/passwd,target_chars=800") == ["markers_path"]
    assert path_options("llm:cache_dir=/tmp/x,cache_max_bytes=0") == ["cache_dir"]
    assert path_options("embedding:embedder=st:/models/mine") == ["embedder"]
    assert path_options("llm:provider=llamacpp,model=/m.gguf") == ["provider", "model"]
    assert path_options("parent-child:parent=semantic:markers_path=/x") == ["parent.markers_path"]
    assert path_options("plugin:vocab_file=/x,Output-Dir=/y,path=/z,profile=a") == [
        "vocab_file", "Output-Dir", "path"]  # fmt: skip


def _refusal(option: str, tool: str) -> str:
    return (
        f"Error executing tool {tool}: chunker option {option!r} names a file, folder or model "
        "on the server: that is a server-side setting ($JW_CHUNKER), not taken from a client; "
        "drop it"
    )


def test_agents_cannot_set_options_that_name_server_paths(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "note.txt").write_text("A note about gardens.\n\nAnother about water.\n")
    markers = tmp_path / "markers.json"
    markers.write_text("{}")
    cache = tmp_path / "agent-cache"
    attempts: list[tuple[str, dict[str, Any], str]] = [
        ("set_chunker", {"name": "semantic", "options": {"markers_path": str(markers)}},
         "markers_path"),
        ("set_chunker", {"name": "semantic", "options": {"markers_path": "/no/such/file"}},
         "markers_path"),
        ("set_chunker", {"name": "llm", "options": {"cache_dir": str(cache),
                                                     "cache_max_bytes": 0}}, "cache_dir"),
        ("set_chunker", {"name": "embedding", "options": {"embedder": "st:/models/x"}},
         "embedder"),
        ("set_chunker", {"name": "parent-child",
                         "options": {"parent": f"semantic:markers_path={markers}"}},
         "parent.markers_path"),
        ("ingest", {"kind": "text", "source": "note.txt", "chunker": "llm",
                         "chunker_options": {"cache_dir": str(cache)}}, "cache_dir"),
        ("ingest", {"kind": "text", "source": "note.txt",
                         "chunker_options": {"markers_path": str(markers)}}, "markers_path"),
    ]  # fmt: skip

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            for tool, args, option in attempts:
                error, message = await c.call(tool, **args)
                assert (error, message) == (True, _refusal(option, tool)), (tool, args)
            error, message = await c.call(  # a value cannot smuggle a second option in
                "set_chunker", name="semantic",
                options={"target_chars": f"800,markers_path={markers}"})  # fmt: skip
            assert error and "holds a character a chunker spec cannot hold" in message
            assert (await c.call("get_chunker"))[1]["chunker"] == "paragraph"  # unchanged
            error, chosen = await c.call("set_chunker", name="semantic",
                                         options={"target_chars": 800})  # fmt: skip
            assert not error and chosen["chunker"] == "semantic:target_chars=800"
            assert (await c.call("stats"))[0]  # nothing was ingested: no store yet

    anyio.run(scenario)
    assert not cache.exists()


def test_the_servers_own_chunker_may_name_paths(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "note.txt").write_text("A note about gardens.\n\nAnother about water.\n")
    markers = REPO / "packages" / "jw-core" / "src" / "jw_core" / "data"
    spec = f"semantic:markers_path={next(markers.glob('*.json'))}"

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root), JW_CHUNKER=spec) as c:
            error, result = await c.call(
                "ingest", kind="text", source="note.txt", chunker_options={"target_chars": 900}
            )
            assert not error and result[0]["chunker"] == "semantic", result

    anyio.run(scenario)


def test_without_a_root_no_file_is_read_wherever_the_server_starts(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text("# Note\n\nA note in the start directory.\n")
    refusal = (
        "this server reads no files: it was started without --root (or $JW_MCP_ROOTS); "
        "start jw-mcp with --root DIR naming the folder to read from"
    )

    async def scenario(cwd: Path) -> None:
        async with connect(tmp_path, cwd=cwd) as c:
            for tool, args in (("ingest", {"kind": "markdown", "source": "note.md"}),
                               ("ingest", {"kind": "markdown", "source": str(tmp_path / "note.md")}),
                               ("ingest", {"kind": "text", "source": "/etc/hostname"}),
                               ("ingest", {"kind": "jwpub", "source": "x.jwpub"})):  # fmt: skip
                error, message = await c.call(tool, **args)
                assert (error, message) == (True, f"Error executing tool {tool}: {refusal}")
            error, stats = await c.call("stats")
            assert error and "no store at" in stats

    anyio.run(scenario, tmp_path)
    anyio.run(scenario, Path("/"))  # a desktop client's usual start directory
    with pytest.raises(ConfigError, match="--root '' names no directory"):
        allowed_roots([""])  # an empty --root is not the start directory either
    usage = " ".join(parser().format_help().split())
    assert "without either the server reads no files, only URLs" in usage
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "Without `--root` (or `JW_MCP_ROOTS`) the server reads no file" in readme
