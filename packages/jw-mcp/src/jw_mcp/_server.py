"""The SDK server with one-line messages for arguments that fail validation,
and over stdio an answer to a request holding a lone surrogate.

The SDK's stdio reader validates each line as strict JSON, which refuses a
lone surrogate escape (``"\\ud83d"``, half of a pair: what a JavaScript client
sends for a string cut inside an emoji); it then drops the line, and the client
waits for an answer that never comes. Such a line is read again here with
Python's JSON reader, each lone surrogate becoming U+FFFD (the rule every
source's text follows), and served."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
import mcp.types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ["OneLineErrorServer", "one_line", "repaired"]

_LONE = re.compile("[\ud800-\udfff]")


def _without_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    return value


def repaired(item: SessionMessage | Exception) -> SessionMessage | Exception:
    """``item`` from the stdio reader; a line refused only for its lone
    surrogates comes back as its message, each one U+FFFD (module docstring)."""
    if not isinstance(item, ValidationError):
        return item
    errors = item.errors()
    line = errors[0].get("input") if len(errors) == 1 else None
    if errors[0]["type"] != "json_invalid" or not isinstance(line, str) or "\\u" not in line:
        return item
    try:
        value = _without_lone_surrogates(json.loads(line))
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(value, by_name=False))
    except (ValueError, RecursionError):
        return item


class _RepairedReads:
    """The stdio reader's stream, each item passed through :func:`repaired`."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        return repaired(await self._inner.receive())

    def __aiter__(self) -> _RepairedReads:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _RepairedReads:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def one_line(tool: str, error: ValidationError) -> str:
    """``error`` as one line: each rejected argument with what was expected."""
    parts = []
    for e in error.errors():
        name = ".".join(str(p) for p in e["loc"]) or "arguments"
        parts.append(f"{name}: {e['msg']}")
    return (
        f"Error executing tool {tool}: invalid arguments ({'; '.join(parts)}): "
        "follow the tool's input schema"
    )


class OneLineErrorServer(MCPServer):
    """An :class:`MCPServer` whose argument validation errors are one line."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(one_line(name, exc.__cause__)) from exc.__cause__
            raise

    async def run_stdio_async(self) -> None:
        """The SDK's stdio serving, its reads passed through :func:`repaired`."""
        async with stdio_server() as (read_stream, write_stream):
            lowlevel = self._lowlevel_server
            await lowlevel.run(
                _RepairedReads(read_stream), write_stream, lowlevel.create_initialization_options()
            )
