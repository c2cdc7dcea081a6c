"""The SDK server with one-line messages for arguments that fail validation."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

__all__ = ["OneLineErrorServer", "one_line"]


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
