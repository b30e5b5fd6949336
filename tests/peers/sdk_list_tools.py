"""Lists a server's tools with the official MCP Python SDK client: the probe tests' oracle.

    python sdk_list_tools.py [--capabilities JSON | --callbacks] COMMAND [ARGS...]   # over stdio
    python sdk_list_tools.py [--capabilities JSON | --callbacks] --url URL           # Streamable HTTP

Prints one JSON object: the protocol version and client capabilities the SDK's client
offered in initialize and, in the server's order, every tool's name, title and
annotations as the SDK parsed them (fields the server left out are left out here too).

--capabilities makes the SDK's client offer exactly that client capabilities object in
initialize, in place of the one it builds from its callbacks (default: `{}`, no callbacks).
--callbacks gives the client a roots, a sampling and an elicitation callback, so that it
offers what the SDK itself builds for an application that has them.
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


def record_offer(offered: dict) -> None:
    """Records in `offered` what every client session offers in initialize."""
    build = ClientSession._build_capabilities

    def recording(self, version):
        capabilities = build(self, version)
        offered["protocolVersion"] = version
        offered["capabilities"] = capabilities.model_dump(by_alias=True, exclude_none=True, mode="json")
        return capabilities

    ClientSession._build_capabilities = recording


async def list_roots(context):
    return types.ListRootsResult(roots=[])


async def sample(context, params):
    return types.ErrorData(code=-1, message="rejected: this client only lists tools")


async def elicit(context, params):
    return types.ElicitResult(action="decline")


async def main(argv: list[str]) -> None:
    callbacks = {}
    if argv[0] == "--capabilities":
        offer_exactly(json.loads(argv[1]))
        argv = argv[2:]
    elif argv[0] == "--callbacks":
        callbacks = {"list_roots_callback": list_roots, "sampling_callback": sample, "elicitation_callback": elicit}
        argv = argv[1:]
    offered: dict = {}
    record_offer(offered)
    if argv[0] == "--url":
        server = argv[1]
    else:
        server = StdioServerParameters(command=argv[0], args=argv[1:])
    async with Client(server, mode="legacy", **callbacks) as client:
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
    print(json.dumps({**offered, "tools": tools}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
