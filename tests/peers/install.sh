#!/bin/sh
# Installs the pinned peers the probe tests talk to, into tests/peers:
#   node_modules/  the reference memory, everything, filesystem and sequential-thinking servers,
#                  and the SARIF SDK's validator (the Multitool, a .NET program shipped in
#                  the npm package), exactly as package-lock.json pins them
#   .venv/         the official MCP Python SDK and standalone FastMCP with their dependencies,
#                  and pre-commit, as requirements.txt pins them
# Needs node and npm (20 or later) and python3 (3.10 or later) with the venv module.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
.venv/bin/python -c 'import mcp.server.mcpserver, mcp.client.client, fastmcp, pre_commit'
node -e 'require.resolve("@modelcontextprotocol/server-memory/package.json"); require.resolve("@modelcontextprotocol/server-everything/package.json"); require.resolve("@modelcontextprotocol/server-filesystem/package.json"); require.resolve("@modelcontextprotocol/server-sequential-thinking/package.json"); require.resolve("@microsoft/sarif-multitool/package.json")'
