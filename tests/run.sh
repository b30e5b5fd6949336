#!/usr/bin/env bash
# Runs every test: installs the pinned MCP peers the probe tests talk to (the npm
# reference memory server and the official Python SDK, into tests/peers), then the
# whole cargo test suite, and closes with one line totalling every test binary.
# Safe to rerun; works on a fresh machine with cargo, node, npm and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
sh tests/peers/install.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --locked --all-targets --no-fail-fast 2>&1 | tee "$log" || status=$?
# cargo prints one "test result" line per test binary, the last often for a binary
# with no tests; the total says what the whole suite did.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
