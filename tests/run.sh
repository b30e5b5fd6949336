#!/usr/bin/env bash
# Runs every test: installs the pinned MCP peers the probe tests talk to (the npm
# reference memory server and the official Python SDK, into tests/peers), then the
# whole cargo test suite. Safe to rerun; works on a fresh machine with cargo, node,
# npm and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
sh tests/peers/install.sh
cargo test --locked --all-targets
