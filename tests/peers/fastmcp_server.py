"""An MCP server on standalone FastMCP whose tools declare hints as dicts, a spread preset and ToolAnnotations.

Run with no arguments it speaks MCP over stdio. The tool finder reads this file and the
probe reads the wire: the two must agree.
"""

from fastmcp import FastMCP
from mcp.types import ToolAnnotations

mcp = FastMCP("fast")
CLOSED = {"openWorldHint": False}


@mcp.tool
def plain(text: str = "") -> str:
    return text


@mcp.tool(annotations={"readOnlyHint": True, **CLOSED})
def lookup(text: str = "") -> str:
    return text


@mcp.tool("renamed", annotations=ToolAnnotations(destructiveHint=False, readOnlyHint=False))
def writer(text: str = "") -> str:
    return text


@mcp.tool(name="careful", annotations={"destructiveHint": True, "idempotentHint": True})
def remove(text: str = "") -> str:
    return text


if __name__ == "__main__":
    mcp.run(show_banner=False)
