"""Lists a server's tools with the official MCP Python SDK client: the probe tests' oracle.

    python sdk_list_tools.py [--capabilities JSON] COMMAND [ARGS...]   # a server over stdio
    python sdk_list_tools.py [--capabilities JSON] --url URL           # a Streamable HTTP server

Prints one JSON object: the server's name and version and, in the server's order, every
tool's name, title and annotations as the SDK parsed them (fields the server left out are
left out here too).

--capabilities makes the SDK's client offer exactly that client capabilities object in
initialize, in place of the one it builds from its callbacks (default: `{}`, no callbacks).
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters
from mcp import types
from mcp.client.session import ClientSession


def offer_exactly(capabilities: dict) -> None:
    """Makes every client session offer `capabilities` as they are."""
    fixed = types.ClientCapabilities.model_validate(capabilities)
    ClientSession._build_capabilities = lambda self, version: fixed


async def main(argv: list[str]) -> None:
    if argv[0] == "--capabilities":
        offer_exactly(json.loads(argv[1]))
        argv = argv[2:]
    if argv[0] == "--url":
        server = argv[1]
    else:
        server = StdioServerParameters(command=argv[0], args=argv[1:])
    async with Client(server, mode="legacy") as client:
        tools = []
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                entry = {"name": tool.name}
                if tool.title is not None:
                    entry["title"] = tool.title
                if tool.annotations is not None:
                    entry["annotations"] = tool.annotations.model_dump(
                        by_alias=True, exclude_unset=True, mode="json"
                    )
                tools.append(entry)
            cursor = page.next_cursor
            if not cursor:
                break
    print(json.dumps({"tools": tools}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
