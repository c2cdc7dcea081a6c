"""The ``jw-mcp`` server fuzzed over the SDK's stdio client: one server for the
module (roots: the sandbox's ``root``; URLs on loopback allowed, so the
misbehaving local server is reachable; 1.5 s fetches, 8 s calls), random tool
calls with random arguments (paths inside and outside the root, links, a FIFO,
URLs, chunker names and options, k, modes, languages, offsets). Every answer
must come within its deadline, an error as one line naming the problem; a
failing call leaves the store as it was, no call touches a file outside the
store, and the server's peak resident size stays under 500 MB."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tests.mcp.mcp_client import Client, connect
from tests.robust.fuzz_support import (
    CASE_SECONDS,
    CASES,
    EXPANSIONS,
    LANGUAGES,
    MODES,
    RSS_LIMIT_KIB,
    SEED,
    TALLY,
    check_error_text,
    resident_kib,
    sources,
    store_state,
    tree,
)

KINDS = ("article", "bible_chapter", "pdf", "markdown", "text") * 3 + (
    "epub", "jwpub", "jw_library_backup")  # fmt: skip
OPTION_VALUES = st.one_of(
    st.sampled_from((0, 1, -1, 80, 1500, 10**12, 100.5, 1e9, True, None, "", "abc", "800")),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(("a", "max_chars")), st.integers(), max_size=1),
)
OPTION_KEYS = ("max_chars", "min_chars", "target_chars", "overflow", "window", "embedder",
               "provider", "overlap", "separator", "nope", "")  # fmt: skip
CHUNKERS = ("paragraph", "semantic", "structure", "page", "parent-child", "embedding", "llm",
            "semantic:target_chars=800", "paragraph:max_chars=x", "nope", "")  # fmt: skip
INTEGERS = st.one_of(st.integers(-5, 2000), st.sampled_from((10**6, -(10**12), 2**63)))


@st.composite
def chunker_options(draw: st.DrawFn, base: str) -> dict[str, Any] | None:
    if draw(st.integers(0, 2)) == 0:
        return None
    options = {
        k: draw(OPTION_VALUES) for k in draw(st.lists(st.sampled_from(OPTION_KEYS), max_size=3))
    }
    if "embedder" in options or draw(st.booleans()):  # never the default model
        options["embedder"] = draw(st.sampled_from(("fake", "fake:4", "nope")))
    if "provider" in options or draw(st.booleans()):
        options["provider"] = draw(st.sampled_from(("fake", "heuristic", "nope")))
    if draw(st.integers(0, 11)) == 0:
        options["cache_dir"] = base + "/" + draw(st.sampled_from(("project", "outside", "out")))
        options["cache_max_bytes"] = 0
    if draw(st.integers(0, 11)) == 0:
        options["markers_path"] = base + draw(st.sampled_from(("/outside/notes.json", "/absent")))
    return options


@st.composite
def calls(draw: st.DrawFn, sandbox: dict[str, Path], server: str) -> tuple[str, dict[str, Any]]:
    base = str(sandbox["base"])
    tool = draw(st.sampled_from(("ingest",) * 18 + ("search",) * 3 + (
        "stats", "list_sources", "get_chunk", "delete_source", "set_chunker", "get_chunker")))  # fmt: skip
    args: dict[str, Any] = {}
    if tool == "ingest":
        args["kind"] = draw(st.sampled_from(KINDS))
        args["source"] = draw(sources(sandbox, server))
        if draw(st.booleans()):
            args["chunker"] = draw(st.sampled_from(CHUNKERS))
        if draw(st.booleans()):
            args["language"] = draw(st.sampled_from(LANGUAGES))
        if draw(st.integers(0, 3)) == 0:
            args["source_id"] = draw(st.sampled_from(("x", "", "kept", "a" * 500, "ü/ñ")))
        if draw(st.integers(0, 3)) == 0:
            args["replace"] = draw(st.booleans())
        options = draw(chunker_options(base))
        if options is not None:
            args["chunker_options"] = options
    elif tool == "search":
        args["query"] = draw(st.one_of(st.sampled_from(("water", "", "*", "NEAR(", "x" * 3000)),
                                       st.text(max_size=20)))  # fmt: skip
        for key, values in {"k": INTEGERS, "mode": st.sampled_from(MODES),
                            "expand": st.sampled_from(EXPANSIONS),
                            "language": st.sampled_from(LANGUAGES),
                            "source_id": st.sampled_from(("kept", "", "nope"))}.items():  # fmt: skip
            if draw(st.booleans()):
                args[key] = draw(values)
    elif tool == "list_sources":
        args = {k: draw(INTEGERS) for k in ("offset", "limit") if draw(st.booleans())}
    elif tool == "get_chunk":
        args["chunk_id"] = draw(st.sampled_from(("kept:0", "", "x" * 2000, "nope")))
        args |= {k: draw(INTEGERS) for k in ("before", "after") if draw(st.booleans())}
    elif tool == "delete_source":
        args["source_id"] = draw(st.sampled_from(("kept", "nope", "", "x" * 1000)))
    elif tool == "set_chunker":
        args["name"] = draw(st.sampled_from(CHUNKERS))
        options = draw(chunker_options(base))
        if options is not None:
            args["options"] = options
    if draw(st.integers(0, 19)) == 0:
        args[draw(st.sampled_from(("extra", "k", "query", "path")))] = draw(OPTION_VALUES)
    return tool, args


_PID = "import os\nopen({path!r}, 'w').write(str(os.getpid()))\n"
_ARGS = ("--allow-private-urls", "--fetch-timeout", "1.5", "--call-timeout", "8",
         "--read-timeout", "8")  # fmt: skip


@pytest.fixture(scope="module")
def mcp(fuzz_sandbox: dict[str, Path]) -> Iterator[tuple[BlockingPortal, Client, int]]:
    stores, pid_file = fuzz_sandbox["stores"], fuzz_sandbox["out"] / "server.pid"
    with start_blocking_portal() as portal:
        session = connect(stores, "--root", str(fuzz_sandbox["root"]), *_ARGS,
                          prelude=_PID.format(path=str(pid_file)),
                          JW_CHUNK_CACHE_DIR=str(fuzz_sandbox["home"] / "chunk-cache"))  # fmt: skip
        with portal.wrap_async_context_manager(session) as client:
            yield portal, client, int(pid_file.read_text())


def test_mcp_tools_under_fuzz(
    fuzz_sandbox: dict[str, Path], fuzz_server: str, mcp: tuple[BlockingPortal, Client, int]
) -> None:
    portal, client, pid = mcp
    sandbox = fuzz_sandbox
    store = sandbox["stores"] / "store.sqlite"
    kept = str(sandbox["root"] / "good.txt")
    failed, _ = portal.call(
        lambda: client.call("ingest", kind="text", source=kept, source_id="kept")
    )
    assert not failed
    files = tree(sandbox["base"])

    @seed(SEED)
    @settings(max_examples=CASES * 2 // 5, deadline=None, database=None,
              phases=(Phase.explicit, Phase.generate, Phase.shrink),
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(calls(sandbox, fuzz_server))
    def case(call: tuple[str, dict[str, Any]]) -> None:
        TALLY.count("MCP calls")
        tool, args = call
        before = store_state(store)
        started = time.monotonic()
        is_error, answer = portal.call(lambda: client.call_with(tool, args))
        seconds = time.monotonic() - started
        text = str(answer)

        def checks() -> None:
            assert seconds < CASE_SECONDS * 1.1, (tool, args, seconds)
            if is_error:
                check_error_text(text, f"{tool} {args}")
                assert not text.rstrip().endswith(f"Error executing tool {tool}"), (tool, text)
                assert store_state(store) == before, (
                    tool,
                    args,
                    "the failed call changed the store",
                )
            assert tree(sandbox["base"]) == files, (tool, args, "a file outside the store changed")

        checks()

    case()
    TALLY.peaks["MCP server"] = resident_kib(pid)[1]
    assert resident_kib(pid)[1] < RSS_LIMIT_KIB
