#!/usr/bin/env bash
# The registry survey of one saved listing, each step a command of the tool; this
# script only sequences them and computes nothing (docs/surveys.md, "The registry
# survey, from one saved listing").
#
#   recipes/registry-survey.sh servers.json results/registry-2025-12-18 2025-12-18
#
# LISTING  a listing saved whole (servers.json) or a folder of answer pages
# DIR      where every table, report and corpus goes
# DATE     the listing's date, in the names of what is written
#
# Environment: CENSUS_BIN (default: mcp-hint-census on PATH), LISTING_FROM (where the
# listing came from, for the report), WIRE_DATE (the day
# the wire is read; default today in UTC), PROBE_ARGS (more options for each wire
# shard, such as `--python /path/to/python3.13` for interpreters off PATH), CACHE
# (default: the tool's own cache folder). A killed run resumes: the census and each
# wire shard are run with --resume.
#
# The wire half needs bubblewrap and uv; the repository half needs the forge, which a
# machine reaching package registries only does not have: its pinning stops after
# the first failures, and the survey says `not read`.
set -euo pipefail
listing=${1:?usage: registry-survey.sh LISTING DIR DATE}
dir=${2:?usage: registry-survey.sh LISTING DIR DATE}
date=${3:?usage: registry-survey.sh LISTING DIR DATE}
bin=${CENSUS_BIN:-mcp-hint-census}
wire_date=${WIRE_DATE:-$(date -u +%F)}
cache=()
[[ -n "${CACHE:-}" ]] && cache=(--cache "$CACHE")
mkdir -p "$dir"

# 1. The corpora: what ships, pinned by digest; the packages to probe; the
# repositories (which may stop early where the forge is not reached).
"$bin" corpus registry --pages "$listing" --date "$date" --out "$dir/repos.toml" \
    --shipped "$dir/shipped.toml" --packages "$dir/packages.toml" \
    --remotes "$dir/remotes.toml" || true
[[ -s "$dir/shipped.toml" ]] || { echo "no corpus of what ships was written" >&2; exit 1; }

# 2. What ships, counted; a failed row is named in the table, the run goes on.
"$bin" census --corpus "$dir/shipped.toml" --date "$date" --out "$dir" --resume \
    "${cache[@]}" || true

# 3. The wire: two shards, then their merge, byte for byte one run's tables.
for k in 1 2; do
    # shellcheck disable=SC2086
    "$bin" probe --servers "$dir/packages.toml" --shard "$k/2" --date "$wire_date" \
        --out "$dir/wire-shard-$k" --resume "${cache[@]}" ${PROBE_ARGS:-} || true
done
"$bin" merge --servers "$dir/packages.toml" --out "$dir" \
    "$dir/wire-shard-1/wire-$wire_date.csv" "$dir/wire-shard-2/wire-$wire_date.csv" || true

# 4. The join of the wire to what ships, and the survey of every entry.
"$bin" join "$dir/wire-$wire_date.csv" --source-table "$dir/census-$date.csv" || true
"$bin" survey --pages "$listing" --shipped "$dir/shipped.toml" \
    --shipped-table "$dir/census-$date.csv" --wire "$dir/wire-$wire_date.csv" \
    --date "$date" --out "$dir" ${LISTING_FROM:+--listing-from "$LISTING_FROM"}
# The folder's README is the survey's report.
cp "$dir/survey-$date.md" "$dir/README.md"
