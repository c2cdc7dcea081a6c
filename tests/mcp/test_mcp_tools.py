"""``jw-mcp`` tools over the SDK's stdio client: one shared store, schemas an LLM
can follow, source browsing, and file access confined to the allowed roots."""

from __future__ import annotations

import ipaddress
import shutil
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from jw_core import SUPPORTED_LANGUAGES
from jw_eval.bench import DEFAULT_DATASET
from jw_mcp.addresses import refuse_private_address
from jw_mcp.holder import StoreHolder
from jw_mcp.roots import allowed_roots, confined_path, confined_source
from jw_mcp.server import build_server
from jw_rag.chunkers import available_chunkers
from jw_rag.defaults import EXPANSIONS, SEARCH_MODES
from jw_rag.errors import ConfigError, StoreError
from tests.mcp.mcp_client import REPO, connect

ARTICLE = DEFAULT_DATASET / "corpus" / "es" / "alma.html"
VOCABULARIES = {
    "mode": SEARCH_MODES,
    "expand": EXPANSIONS,
    "chunker": available_chunkers(),
    "name": available_chunkers(),
    "language": SUPPORTED_LANGUAGES,
}


def _enum(prop: dict[str, Any]) -> list[Any] | None:
    if "enum" in prop:
        return list(prop["enum"])
    for option in prop.get("anyOf", []):
        if "enum" in option:
            return list(option["enum"])
    return None


def test_every_tool_describes_its_parameters_and_carries_annotations() -> None:
    tools = anyio.run(build_server().list_tools)
    assert {"list_sources", "get_chunk", "delete_source", "search"} <= {t.name for t in tools}
    for tool in tools:
        assert tool.description, tool.name
        hints = tool.annotations
        assert hints is not None, tool.name
        flags = (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint,
                 hints.open_world_hint)  # fmt: skip
        assert None not in flags, tool.name
        for name, prop in tool.input_schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name}"
            if name in VOCABULARIES:
                assert _enum(prop) == list(VOCABULARIES[name]), f"{tool.name}.{name}"
    by_name = {t.name: t for t in tools}
    k = by_name["search"].input_schema["properties"]["k"]
    assert (k["minimum"], k["maximum"]) == (1, 100)
    assert by_name["search"].annotations.read_only_hint is True
    assert by_name["delete_source"].annotations.destructive_hint is True
    assert by_name["ingest"].annotations.open_world_hint is True  # it also fetches URLs
    kinds = _enum(by_name["ingest"].input_schema["properties"]["kind"])
    assert kinds == ["article", "bible_chapter", "pdf", "markdown", "text", "epub", "jwpub",
                     "jw_library_backup"]  # fmt: skip


def test_fifty_searches_open_the_store_and_embedder_once(tmp_path: Path) -> None:
    log = tmp_path / "opens.log"
    prelude = (
        "import jw_mcp.holder as h\n"
        "def counted(f, tag):\n"
        "    def g(*a, **k):\n"
        f"        open({str(log)!r}, 'a').write(tag + '\\n')\n"
        "        return f(*a, **k)\n"
        "    return g\n"
        "h.open_store = counted(h.open_store, 'store')\n"
        "h.get_embedder = counted(h.get_embedder, 'embedder')"
    )

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(REPO), prelude=prelude) as c:
            assert not (await c.call("ingest", kind="article", source=str(ARTICLE)))[0]
            for i in range(50):
                error, hits = await c.call("search", query=f"el alma {i}", k=2, mode="dense")
                assert not error and hits[0]["source_id"] == "alma"

    anyio.run(scenario)
    assert sorted(log.read_text().split()) == ["embedder", "store"]


def test_a_failed_open_is_reported_and_retried(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    monkeypatch.setenv("JW_STORE", str(tmp_path / "store.sqlite"))
    holder = StoreHolder()
    with pytest.raises(StoreError, match="no store at"):
        holder.get(existing=True)
    assert holder.opens == 0
    store = holder.get()  # creates it
    assert holder.get(existing=True) is store and holder.opens == 1
    holder.close()


def test_concurrent_calls_share_one_store(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    monkeypatch.setenv("JW_STORE", str(tmp_path / "store.sqlite"))
    holder = StoreHolder()
    seen: list[Any] = []
    barrier = threading.Barrier(16)

    def call() -> None:
        barrier.wait()
        seen.append(holder.get())

    threads = [threading.Thread(target=call) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert holder.opens == 1 and len({id(s) for s in seen}) == 1
    holder.close()


def test_strict_types_and_bounds_are_one_line_errors(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(REPO)) as c:
            await c.call("ingest", kind="article", source=str(ARTICLE))
            for bad in ({"k": "3"}, {"k": 0}, {"k": 101}, {"mode": "fuzzy"}, {"language": "xx"}):
                error, message = await c.call("search", query="alma", **bad)
                assert error and "\n" not in message, bad
                assert message.startswith("Error executing tool search: invalid arguments ("), bad
                assert message.split("(", 1)[1].startswith(next(iter(bad))), bad
            error, hits = await c.call("search", query="alma", k=3)
            assert not error and len(hits) == 3

    anyio.run(scenario)


def test_browse_read_filter_and_delete_sources(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(ARTICLE, root / "alma.html")
    (root / "note.md").write_text(
        "# Soul\n\nThe soul that sins will die.\n\nThe dead know nothing at all.\n"
    )

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            assert not (await c.call("ingest", kind="article", source="alma.html"))[0]
            assert not (await c.call("ingest", kind="markdown", source="note.md", language="en"))[0]
            page = (await c.call("list_sources", limit=1))[1]
            assert page["total"] == 2 and page["next_offset"] == 1
            first = page["sources"][0]
            assert (first["source_id"], first["language"], first["chunker"]) == (
                "alma", "es", "paragraph")  # fmt: skip
            assert first["title"] and first["chunks"] == 7 and first["ingested_at"]
            last = (await c.call("list_sources", offset=1))[1]
            assert [s["source_id"] for s in last["sources"]] == ["note"]
            assert last["next_offset"] is None

            hits = (await c.call("search", query="soul", mode="bm25", language="en"))[1]
            assert hits and {h["source_id"] for h in hits} == {"note"}
            hits = (await c.call("search", query="alma", mode="bm25", source_id="alma", k=3))[1]
            assert {h["source_id"] for h in hits} == {"alma"}
            # a source id the store does not hold is named, not answered with no hits
            error, message = await c.call("search", query="alma", source_id="almaa")
            assert error and message.endswith(
                "no source 'almaa' in the store: list_sources shows the ids"
            )
            # a stored source with nothing that matches is an empty answer
            assert (await c.call("search", query="alma", source_id="note", language="es"))[1] == []
            middle = (await c.call("get_chunk", chunk_id=hits[0]["id"]))[1]
            start, end = hits[0].get("hit", [0, len(hits[0]["text"])])
            assert middle["id"] == hits[0]["id"] and middle["text"] == hits[0]["text"][start:end]
            assert all(isinstance(p, str) for p in middle["metadata"]["para_ids"])
            second = (await c.call("get_chunk", chunk_id=middle["metadata"]["next_id"] or
                                   middle["metadata"]["prev_id"]))[1]  # fmt: skip
            both = (await c.call("get_chunk", chunk_id=second["id"], before=20, after=20))[1]
            assert len(both["before"]) + 1 + len(both["after"]) == 7
            order = (
                [x["id"] for x in both["before"]] + [both["id"]] + [x["id"] for x in both["after"]]
            )
            assert all(x["source_id"] == "alma" for x in both["before"] + both["after"])
            assert len(set(order)) == 7

            error, message = await c.call("get_chunk", chunk_id="nope")
            assert error and message.endswith(
                "no chunk 'nope' in the store: use an id a search returned"
            )
            assert (await c.call("delete_source", source_id="alma"))[1] == {
                "source_id": "alma", "deleted_chunks": 7}  # fmt: skip
            error, message = await c.call("delete_source", source_id="alma")
            assert error and "no source 'alma'" in message
            assert [s["source_id"] for s in (await c.call("list_sources"))[1]["sources"]] == [
                "note"
            ]

    anyio.run(scenario)


def test_paths_outside_the_roots_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    outside = tmp_path / "private.md"
    outside.write_text("# Private\n\nA secret paragraph.\n")
    (root / "link.md").symlink_to(outside)
    (root / "sub" / "ok.md").write_text("# Fine\n\nA public paragraph about the soul.\n")
    attempts = [
        ("ingest", {"kind": "markdown", "source": str(outside)}),
        ("ingest", {"kind": "markdown", "source": "link.md"}),
        ("ingest", {"kind": "markdown", "source": "sub/../../private.md"}),
        ("ingest", {"kind": "markdown", "source": str(root / ".." / "private.md")}),
        ("ingest", {"kind": "text", "source": "/etc/passwd"}),
        ("ingest", {"kind": "epub", "source": "../private.md"}),
    ]

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            assert not (await c.call("ingest", kind="markdown", source="sub/ok.md", language="en"))[
                0
            ]
            before = (await c.call("stats"))[1]
            for tool, args in attempts:
                error, message = await c.call(tool, **args)
                assert error and "\n" not in message, (tool, args)
                assert f"is outside the allowed roots ({root.resolve()})" in message
            error, message = await c.call("ingest", kind="article", source=f"file://{outside}")
            assert error and "URL scheme 'file' is not allowed" in message
            after = (await c.call("stats"))[1]
            assert (after["sources"], after["chunks"]) == (before["sources"], before["chunks"])

    anyio.run(scenario)


def test_roots_come_from_arguments_then_environment_never_the_cwd(
    tmp_path: Path, monkeypatch: Any
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    monkeypatch.chdir(b)
    monkeypatch.delenv("JW_MCP_ROOTS", raising=False)
    assert allowed_roots() == ()  # no root given: no file is read, the start directory is not one
    monkeypatch.setenv("JW_MCP_ROOTS", f"{a}:{b}")
    assert allowed_roots() == (a.resolve(), b.resolve())
    assert allowed_roots([str(b)]) == (b.resolve(),)
    with pytest.raises(ConfigError, match="is not a directory"):
        allowed_roots([str(tmp_path / "missing")])
    roots = (a.resolve(),)
    assert confined_path("x/y.txt", roots) == a.resolve() / "x" / "y.txt"
    assert confined_source("https://wol.jw.org/x", roots) == "https://wol.jw.org/x"
    for bad in ("ftp://host/x", "FILE:///etc/passwd", "data:text/plain,hi"):
        with pytest.raises(ConfigError, match="is not allowed: give an http"):
            confined_source(bad, roots)


def test_urls_on_private_addresses_are_refused_unless_allowed() -> None:
    for address in ("127.0.0.1", "::1", "10.1.2.3", "169.254.169.254"):
        with pytest.raises(ConfigError, match="private, loopback or otherwise non-public"):
            refuse_private_address("http://h/a", "h", ipaddress.ip_address(address))
    refuse_private_address("https://h/a", "h", ipaddress.ip_address("8.8.8.8"))  # public


def test_mcp_refuses_a_loopback_url_by_default(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/article.html"

    async def scenario(*args: str) -> str:
        async with connect(tmp_path, "--root", str(REPO), *args) as c:
            error, message = await c.call("ingest", kind="article", source=url)
            assert error and "\n" not in message
            assert not (await c.call("ingest", kind="article", source=str(ARTICLE)))[0]
            return str(message)

    refused = anyio.run(scenario)
    assert refused == (
        f"Error executing tool ingest: {url}: host 127.0.0.1 is 127.0.0.1, a private, "
        "loopback or otherwise non-public address; only public addresses are fetched (start "
        "jw-mcp with --allow-private-urls to allow it)"
    )
    fetched = anyio.run(scenario, "--allow-private-urls")
    assert "cannot be fetched" in fetched and "private" not in fetched
