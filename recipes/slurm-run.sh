#!/usr/bin/env bash
# Submits a whole census to Slurm: an array of N shard jobs (recipes/slurm.sbatch)
# and a merge job that starts once every shard succeeded (afterok). With SERVERS set,
# a whole wire survey of that servers file instead (`probe --servers --shard env`,
# then `merge --servers`).
#
#   recipes/slurm-run.sh [N]          # N shards, default 8
#
# Run it from the folder that holds the corpus: jobs run in the folder they were
# submitted from. Settings come from the environment, as in recipes/slurm.sbatch:
# CENSUS_BIN, CORPUS, OUT and DATE (fixed here once, so every shard and the merge
# stamp the same date). Any other sbatch option can be given through Slurm's own
# input variables, e.g. SBATCH_PARTITION=short or SBATCH_ACCOUNT=survey.
#
# Prints the two job ids as `array=ID merge=ID`. The merged tables land in $OUT
# (default results/), beside the shards' folders $OUT/shard-1 ... $OUT/shard-N:
#   census-DATE.csv, files-DATE.csv and census-DATE.md, byte for byte what one
#   `census` run over the whole corpus writes; for a wire survey wire-DATE.csv,
#   wire-DATE-servers.csv, wire-DATE.md and wire-DATE-locks/, what one
#   `probe --servers` run writes.
# The merge job exits 1 when some tree failed (its error row names why): rerun that
# shard alone with `sbatch --array=K recipes/slurm.sbatch` (same DATE), then
#   mcp-hint-census merge --corpus "$CORPUS" --out "$OUT" "$OUT"/shard-*/census-"$DATE".csv
set -euo pipefail

shards=${1:-8}
case $shards in
    '' | *[!0-9]* | 0) echo "slurm-run.sh: the number of shards must be a whole number above 0, not '$shards'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
export CENSUS_BIN=${CENSUS_BIN:-mcp-hint-census}
export CORPUS=${CORPUS:-corpus.toml}
export OUT=${OUT:-results}
export DATE=${DATE:-$(date -u +%F)}

if [ -n "${SERVERS:-}" ]; then
    export SERVERS
    if [ ! -f "$SERVERS" ]; then
        echo "slurm-run.sh: no servers file '$SERVERS' here ($(pwd))" >&2
        exit 2
    fi
elif [ ! -f "$CORPUS" ]; then
    echo "slurm-run.sh: no corpus file '$CORPUS' here ($(pwd)); set CORPUS" >&2
    exit 2
fi

array=$(sbatch --parsable --array="1-$shards" "$here/slurm.sbatch")
array=${array%%;*} # --parsable prints "id" or "id;cluster"

# The merge names every shard's table on its command line, so a missing shard is
# refused by name rather than silently left out. Its command reads the settings
# from the environment sbatch passes on, so no path is quoted into a script.
export SHARDS=$shards
# shellcheck disable=SC2016 # expanded by the merge job, not here
merge_cmd='set --; k=1
if [ -n "${SERVERS:-}" ]; then
    while [ "$k" -le "$SHARDS" ]; do set -- "$@" "$OUT/shard-$k/wire-$DATE.csv"; k=$((k + 1)); done
    exec "$CENSUS_BIN" merge --servers "$SERVERS" --out "$OUT" "$@"
fi
while [ "$k" -le "$SHARDS" ]; do set -- "$@" "$OUT/shard-$k/census-$DATE.csv"; k=$((k + 1)); done
exec "$CENSUS_BIN" merge --corpus "$CORPUS" --out "$OUT" "$@"'
table=census-$DATE.csv
[ -z "${SERVERS:-}" ] || table=wire-$DATE.csv
echo "slurm-run.sh: once shards 1-$shards of job $array succeed, merge writes $OUT/$table" >&2

# --kill-on-invalid-dep: if a shard fails, the merge is cancelled rather than left
# pending for ever.
merge_id=$(sbatch --parsable --job-name=hint-census-merge --ntasks=1 \
    --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --output="slurm-%x-%j.out" --wrap="$merge_cmd")
merge_id=${merge_id%%;*}
echo "array=$array merge=$merge_id"
