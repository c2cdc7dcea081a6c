"""A stdio MCP client for tests: the SDK's client talks to ``jw-mcp`` run as a subprocess."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession, ListRootsFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.dispatcher import ProgressFnT

REPO = Path(__file__).resolve().parents[2]


class Client:
    """A ClientSession that keeps every tool request and response (as JSON) it made."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.log: list[dict[str, Any]] = []

    async def call(self, tool: str, /, **arguments: Any) -> tuple[bool, Any]:
        return await self.call_with(tool, arguments)

    async def call_with(
        self, tool: str, arguments: dict[str, Any], progress: ProgressFnT | None = None
    ) -> tuple[bool, Any]:
        """``(is_error, text or value)`` of one call; ``progress`` gets its notifications."""
        result = await self.session.call_tool(tool, arguments, progress_callback=progress)
        self.log.append({"request": {"method": "tools/call", "params": {"name": tool, "arguments": arguments}},
                         "response": result.model_dump(mode="json", exclude_none=True)})  # fmt: skip
        text = result.content[0].text if result.content else ""
        if result.is_error:
            return True, text
        if result.structured_content is not None:
            value = result.structured_content
            return False, value.get("result", value) if set(value) == {"result"} else value
        return False, json.loads(text)


@asynccontextmanager
async def connect(
    tmp_path: Path,
    *args: str,
    prelude: str = "",
    roots: ListRootsFnT | None = None,
    cwd: Path = REPO,
    **env: str,
) -> AsyncIterator[Client]:
    """A session with ``jw-mcp args...``; ``prelude`` is Python run in the server first;
    ``roots`` answers the server's ``roots/list`` (the client then offers roots); the
    server starts in ``cwd``."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", f"{prelude}\nfrom jw_mcp.server import main; main({list(args)!r})"],
        env={
            "JW_STORE": str(tmp_path / "store.sqlite"),
            "JW_EMBEDDER": "fake",
            "JW_HOME": str(tmp_path / "home"),
            **env,
        },  # fmt: skip
        cwd=str(cwd),
    )
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):  # noqa: SIM115
        async with ClientSession(read, write, list_roots_callback=roots) as session:
            await session.initialize()
            yield Client(session)
