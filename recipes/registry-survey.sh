#!/usr/bin/env bash
# The registry survey of one saved listing, each step a command of the tool; this
# script only sequences them and computes nothing (docs/surveys.md, "The registry
# survey, from one saved listing").
#
#   recipes/registry-survey.sh servers.json results/registry-2025-12-18 2025-12-18
#
# LISTING  a listing saved whole (servers.json) or a folder of answer pages
# DIR      where everything goes: DIR/shipped (what ships: its corpus, census and
#          tools tables), DIR/repositories (the repositories' corpus and census),
#          DIR/versions (what ships at every version of the listing, counted),
#          DIR/wire (the wire survey, merged from two shards, and its join to what
#          ships), and in DIR itself entries-DATE.csv, survey-DATE.md and README.md
# DATE     the listing's date, in the names of what is written
#
# Environment: CENSUS_BIN (default: mcp-hint-census on PATH); MIRRORS (a folder of
# bare clones, owner+name/<git dir>, read instead of the forge through
# recipes/mirrors.py); LISTING_FROM (where the listing came from, for the report);
# WIRE_DATE (the day the wire is read, or was when the wire is not run; default
# today in UTC); REPOS_FROM (how the repositories were read, in words, for the
# report; default: from local mirrors when MIRRORS is given); PROBE_ARGS (more
# options for each wire shard, such as `--python /path/to/python3.13` for
# interpreters off PATH); CACHE (default: the tool's own cache folder); RUN_ON (what
# the run runs on, in words, for the report; default: cores, memory and system as
# this machine reports them); HALVES (which halves to run, of `shipped repositories
# wire versions history`, default all five, `versions` being what ships at every
# version the listing holds and `history` the repositories at the first of each
# month since HISTORY_SINCE (default 2025-03-01) and at DATE, both counted for the
# report's "Over time": one left out keeps the tables DIR already holds, which
# the joins and the report then read, so that one half can be run again alone, on
# another day, and logged beside the others); PIN (`no` counts what ships or the
# repositories from the corpora DIR already holds, pinned before, without pinning the
# listing again: for a census run again with a newer tool); REMOTES (`yes` on a machine that
# reaches the listing's remote endpoints: they are probed into DIR/remote, joined to
# the repositories and given to the report as a second wire table; never from a
# machine whose only route is to package registries). A killed run resumes: the
# census and each wire shard run with --resume.
#
# DIR/run-DATE.csv logs the run: each step's name, the time and the bytes DIR and the
# cache held, at its start, every 5 s while it runs, and at its end; `survey
# --run-log` turns it into the report's "How it was run".
#
# The wire half needs bubblewrap and uv.
set -euo pipefail
listing=${1:?usage: registry-survey.sh LISTING DIR DATE}
dir=${2:?usage: registry-survey.sh LISTING DIR DATE}
date=${3:?usage: registry-survey.sh LISTING DIR DATE}
bin=${CENSUS_BIN:-mcp-hint-census}
here=$(cd "$(dirname "$0")" && pwd)
wire_date=${WIRE_DATE:-$(date -u +%F)}
cache=()
[[ -n "${CACHE:-}" ]] && cache=(--cache "$CACHE")
mkdir -p "$dir/shipped" "$dir/repositories" "$dir/wire"
watched=("$dir" "${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-hint-census}")
log="$dir/run-$date.csv"
[[ -s "$log" ]] || echo "step,unix_seconds,disk_bytes" > "$log"
halves=" ${HALVES:-shipped repositories wire versions history} "
runs() { [[ "$halves" == *" $1 "* ]]; }
run_on=${RUN_ON:-"$(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB of memory, $(uname -sr)"}

# Appends one line to the run log: the step (quoted, as CSV quotes a cell: a name
# may hold a comma), now, and the bytes DIR and the cache hold.
sample() {
    local name=${1//\"/\"\"}
    echo "\"$name\",$(date +%s),$(du -sc --block-size=1 "${watched[@]}" 2>/dev/null | tail -n 1 | cut -f 1)" >> "$log"
}

# Runs a step (its name, then its command), sampled while it runs, in place of the
# lines an earlier run of it left; its failure is the command's own, named in the
# tables it writes, and does not stop the survey.
step() {
    local name=$1
    shift
    # A step run again replaces its earlier lines, as it replaces the tables they
    # stand for; one resumed after a kill adds to them.
    if [[ "$name" != "${resumed:-}" ]]; then
        # Quoted as CSV quotes it, or bare as earlier logs wrote a plain name.
        local quoted="\"${name//\"/\"\"}\","
        awk -v p="$quoted" -v b="$name," 'index($0, p) != 1 && index($0, b) != 1' \
            "$log" > "$log.new" && mv "$log.new" "$log"
    fi
    sample "$name"
    (while sleep 5; do sample "$name"; done) &
    local sampler=$!
    "$@" || echo "registry-survey: step '$name' exited with $?" >&2
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    sample "$name"
}

# 1. The corpora: what ships, pinned by digest; the packages to probe; the
# repositories, through local mirrors when MIRRORS is given. Pinned again only when
# what ships or the repositories are run.
if [[ -n "${MIRRORS:-}" ]]; then
    python3 "$here/mirrors.py" gitconfig "$listing" "$MIRRORS" > "$dir/repositories/mirrors.gitconfig"
    # Absolute: git runs in other folders (the clone cache's).
    GIT_CONFIG_GLOBAL="$(cd "$dir/repositories" && pwd)/mirrors.gitconfig"
    export GIT_CONFIG_GLOBAL
fi
if [[ "${PIN:-yes}" != no ]] && { runs repositories || { runs shipped && [[ ! -s "$dir/repositories/repos.toml" ]]; }; }; then
    step "pin the listing" "$bin" corpus registry --pages "$listing" --date "$date" \
        --out "$dir/repositories/repos.toml" --shipped "$dir/shipped/shipped.toml" \
        --packages "$dir/wire/packages.toml" --remotes "$dir/wire/remotes.toml" "${cache[@]}"
elif [[ "${PIN:-yes}" != no ]] && runs shipped; then
    # What ships pinned again beside the repositories pinned before (--pinned): no
    # forge is asked, and the repositories' corpus and skipped list stay as they are.
    step "pin what ships" "$bin" corpus registry --pages "$listing" --date "$date" \
        --out "$dir/repositories/repos.toml" --pinned --shipped "$dir/shipped/shipped.toml" \
        --packages "$dir/wire/packages.toml" --remotes "$dir/wire/remotes.toml"
fi
# What ships at every version the listing holds, for the report's "Over time".
if runs versions; then
    mkdir -p "$dir/versions"
    if [[ "${PIN:-yes}" != no ]]; then
        step "pin what ships at every version" "$bin" corpus registry --pages "$listing" \
            --date "$date" --all-versions --out "$dir/repositories/repos.toml" --pinned \
            --shipped "$dir/versions/versions.toml"
    fi
    step "count what ships at every version" "$bin" census \
        --corpus "$dir/versions/versions.toml" --date "$date" --out "$dir/versions" \
        --resume "${cache[@]}"
fi
# The repositories month by month, for the report's "Over time": each pinned at
# the first of each month and at DATE, along its default branch's first parents.
if runs history; then
    mkdir -p "$dir/history"
    if [[ "${PIN:-yes}" != no ]]; then
        step "pin the repositories month by month" "$bin" corpus registry --pages "$listing" \
            --date "$date" --since "${HISTORY_SINCE:-2025-03-01}" --every 1month \
            --until "$date" --at "$date" --out "$dir/history/history.toml" "${cache[@]}"
    fi
    if [[ -n "${MIRRORS:-}" ]]; then
        step "pack the commits of every month" python3 "$here/mirrors.py" archives \
            "$dir/history/history.toml" "$MIRRORS" "$dir/history/cache"
        step "count the repositories month by month" "$bin" census \
            --corpus "$dir/history/history.toml" --date "$date" --offline \
            --cache "$dir/history/cache" --out "$dir/history"
    else
        step "count the repositories month by month" "$bin" census \
            --corpus "$dir/history/history.toml" --date "$date" --out "$dir/history" \
            --resume "${cache[@]}"
    fi
fi
over_time=()
if [[ -s "$dir/history/census-$date.csv" ]]; then
    over_time+=(--history "$dir/history/history.toml"
               --history-table "$dir/history/census-$date.csv")
fi
if [[ -s "$dir/versions/census-$date.csv" ]]; then
    over_time+=(--versions "$dir/versions/versions.toml"
               --versions-table "$dir/versions/census-$date.csv")
fi
# The wire run alone writes its servers files again from the corpus pinned before
# (--pinned): no forge is asked, and the commits stay those of that corpus.
if runs wire && ! runs shipped && ! runs repositories && [[ -s "$dir/repositories/repos.toml" ]]; then
    step "write the servers files from the pinned corpus" "$bin" corpus registry \
        --pages "$listing" --date "$date" --out "$dir/repositories/repos.toml" --pinned \
        --packages "$dir/wire/packages.toml" --remotes "$dir/wire/remotes.toml"
fi
[[ -s "$dir/shipped/shipped.toml" ]] || { echo "no corpus of what ships was written" >&2; exit 1; }

# 2. What ships and the repositories, counted; a failed row is named in its table.
if runs shipped; then
    step "count what ships" "$bin" census --corpus "$dir/shipped/shipped.toml" --date "$date" \
        --out "$dir/shipped" --resume "${cache[@]}"
fi
repos=()
if [[ -s "$dir/repositories/repos.toml" ]]; then
    if ! runs repositories; then
        :
    elif [[ -n "${MIRRORS:-}" ]]; then
        step "pack the pinned commits" python3 "$here/mirrors.py" archives \
            "$dir/repositories/repos.toml" "$MIRRORS" "$dir/repositories/cache"
        step "count the repositories" "$bin" census --corpus "$dir/repositories/repos.toml" \
            --date "$date" --offline --cache "$dir/repositories/cache" --out "$dir/repositories"
    else
        step "count the repositories" "$bin" census --corpus "$dir/repositories/repos.toml" \
            --date "$date" --out "$dir/repositories" --resume "${cache[@]}"
    fi
    repos=(--repos "$dir/repositories/repos.toml"
           --repos-table "$dir/repositories/census-$date.csv")
    repos_from=${REPOS_FROM:-${MIRRORS:+pinned and read from local mirrors of the repositories}}
    [[ -n "$repos_from" ]] && repos+=(--repos-from "$repos_from")
fi

# 3. The wire: two shards, then their merge, byte for byte one run's tables.
# The shards run side by side, as two jobs of a batch engine would.
wire_shard() {
    # shellcheck disable=SC2086
    "$bin" probe --servers "$dir/wire/packages.toml" --shard "$1/2" --date "$wire_date" \
        --out "$dir/wire/shard-$1" --resume "${cache[@]}" ${PROBE_ARGS:-} || true
}
both_shards() {
    wire_shard 1 &
    local first=$!
    wire_shard 2
    wait "$first"
}
if runs wire; then
    # A shard's journal is a run that was killed: resumed, not begun again.
    if compgen -G "$dir/wire/shard-*/wire-$wire_date.journal" > /dev/null; then
        resumed="probe the wire, two shards"
    fi
    step "probe the wire, two shards" both_shards
    step "merge the shards" "$bin" merge --servers "$dir/wire/packages.toml" --out "$dir/wire" \
        "$dir/wire/shard-1/wire-$wire_date.csv" "$dir/wire/shard-2/wire-$wire_date.csv"
fi

# The remote endpoints, only where they can be reached.
wires=(--wire "$dir/wire/wire-$wire_date.csv")
if [[ "${REMOTES:-}" == yes ]]; then
    step "probe the remote endpoints" "$bin" probe --servers "$dir/wire/remotes.toml" \
        --date "$wire_date" --out "$dir/remote" --resume || true
    wires+=(--wire "$dir/remote/wire-$wire_date.csv")
fi

# 4. The wire joined to what ships and to the repositories, then every entry.
step "join the wire to what ships" "$bin" join "$dir/wire/wire-$wire_date.csv" \
    --source-table "$dir/shipped/census-$date.csv"
if [[ ${#repos[@]} -gt 0 ]]; then
    step "join the wire to the repositories" "$bin" join "$dir/wire/wire-$wire_date.csv" \
        --source-table "$dir/repositories/census-$date.csv" --out "$dir/repositories"
    if [[ "${REMOTES:-}" == yes ]]; then
        step "join the remote endpoints to the repositories" "$bin" join \
            "$dir/remote/wire-$wire_date.csv" \
            --source-table "$dir/repositories/census-$date.csv" --out "$dir/remote"
    fi
fi
"$bin" survey --pages "$listing" --date "$date" --out "$dir" \
    --shipped "$dir/shipped/shipped.toml" --shipped-table "$dir/shipped/census-$date.csv" \
    "${repos[@]}" "${wires[@]}" "${over_time[@]}" \
    ${LISTING_FROM:+--listing-from "$LISTING_FROM"} --run-log "$log" --run-on "$run_on"
# The folder's README is the survey's report.
cp "$dir/survey-$date.md" "$dir/README.md"
