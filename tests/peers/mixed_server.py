"""An MCP server written with the official Python SDK whose tools declare a mix of hints.

Run with no arguments it speaks MCP over stdio; `--http PORT` serves Streamable HTTP on
127.0.0.1 (`--json-response` answers with application/json instead of an event stream).
`--expected` prints the declarations below as JSON and exits: the probe tests take their
expectations from this list, so the server and the oracle cannot drift apart.
"""

import json
import sys

# name -> (tool title, annotations as the SDK is asked to declare them, None for none)
TOOLS = {
    "plain": (None, None),
    "lookup": (None, {"readOnlyHint": True}),
    "writer": (None, {"readOnlyHint": False, "destructiveHint": False}),
    "titled": ("Titled Tool", None),
    "careful": (
        None,
        {
            "title": "Careful",
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    ),
}


def main() -> None:
    args = sys.argv[1:]
    if args == ["--expected"]:
        print(json.dumps([{"name": n, "title": t, "annotations": a} for n, (t, a) in TOOLS.items()]))
        return

    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer("mixed-hints", version="1.2.3")
    for name, (title, annotations) in TOOLS.items():

        def tool(text: str = "") -> str:
            return text

        server.add_tool(
            tool,
            name=name,
            title=title,
            description=f"the {name} tool",
            annotations=ToolAnnotations.model_validate(annotations) if annotations else None,
        )

    if args and args[0] == "--http":
        port = int(args[1])
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=port,
            json_response="--json-response" in args,
        )
    else:
        server.run()


if __name__ == "__main__":
    main()
