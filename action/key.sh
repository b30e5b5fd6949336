#!/usr/bin/env bash
# Works out the cache key of an mcp-hint-census build for action.yml, PLATFORM-SOURCE:
# SOURCE is the sha256 of the files the binary is built from (Cargo.toml, Cargo.lock,
# corpus.toml, src/), so that a cached binary is reused exactly while they are
# unchanged, whatever ref the action was used at; PLATFORM is a short hash of the
# system and C library (or macOS) version, because a binary linked against a newer
# glibc does not start on an older runner image of the same OS and architecture.
# Writes key=... to GITHUB_OUTPUT when that is set, else prints it.
set -euo pipefail
cd "${GITHUB_ACTION_PATH:?names the action checkout}"
# A command, not a function: xargs runs it. (macOS has shasum, not sha256sum.)
sha256=(sha256sum)
if ! command -v sha256sum >/dev/null 2>&1; then sha256=(shasum -a 256); fi
platform=$({
    uname -sm
    getconf GNU_LIBC_VERSION 2>/dev/null || true
    sw_vers -productVersion 2>/dev/null || true
} | "${sha256[@]}" | cut -c1-12)
sources=$(find Cargo.toml Cargo.lock corpus.toml src -type f -print0 |
    LC_ALL=C sort -z | xargs -0 "${sha256[@]}" | "${sha256[@]}" | cut -c1-64)
key=$platform-$sources
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'key=%s\n' "$key" >>"$GITHUB_OUTPUT"
else
    printf 'key=%s\n' "$key"
fi
