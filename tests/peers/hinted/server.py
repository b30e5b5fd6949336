"""The hinted server: decorators, a preset, a spread preset and add_tool."""

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from .presets import ADDITIVE, READ_ONLY

server = MCPServer("hinted", version="1.0.0")


@server.tool()
def plain(text: str = "") -> str:
    return text


@server.tool(annotations=READ_ONLY)
def lookup(text: str = "") -> str:
    return text


@server.tool("renamed", annotations=ToolAnnotations(**ADDITIVE, idempotent_hint=True))
def writer(text: str = "") -> str:
    return text


@server.tool(name="careful", annotations=ToolAnnotations(destructiveHint=True, openWorldHint=True))
def remove(text: str = "") -> str:
    return text


def added(text: str = "") -> str:
    return text


server.add_tool(added, annotations=ToolAnnotations(open_world_hint=False))

if __name__ == "__main__":
    server.run()
