#!/usr/bin/env bash
# Runs a census on a real single-node Slurm cluster and checks that the merged
# tables are byte for byte those of one run.
#
#   tests/slurm/run.sh [WORKDIR]
#
# It starts, in WORKDIR (default: a new temporary folder, removed afterwards):
#   * munged, with a key and socket of its own;
#   * slurmctld and slurmd (Debian's slurm-wlm), one node named after this host,
#     on two free loopback ports, no cgroup plugin (proctrack/linuxproc, task/none),
#     state, spool and logs in WORKDIR/slurm;
#   * a static HTTP server on 127.0.0.1 serving a generated corpus of .tar.gz
#     archives shaped like GitHub's tarballs (benches/gen_corpus.py writes them and
#     counts each term in Python as it writes: the oracle).
# Then it submits recipes/slurm-run.sh (an array of SHARDS census jobs and a merge
# job after them), waits for both, and checks:
#   * every array task and the merge job COMPLETED with exit code 0;
#   * shard K counted exactly the trees at positions K, K+N, ... of the corpus,
#     so K and N really came from the Slurm array's variables;
#   * the merged census-DATE.csv, files-DATE.csv and census-DATE.md are
#     identical (cmp) to those of one `census` run over the whole corpus;
#   * the merged counts, files and bytes equal Python's counts of the same bytes;
#   * every archive was downloaded over HTTP: once by a shard, once by the run.
# Then the same for a wire survey: recipes/slurm-run.sh with SERVERS set submits an
# array of `probe --servers --shard env` jobs over stdio servers of
# tests/peers/fault_server.py and a `merge --servers` job, and it checks that every
# job COMPLETED, that shard K probed the servers at positions K, K+N, ... of the
# file, that the merged wire-DATE.csv, wire-DATE-servers.csv and wire-DATE.md are
# identical to one `probe --servers` run's, and that each server's tools are those
# the file gave it.
# On exit it stops every process it started, by process id.
#
# Run it as root, as CI does: slurmd starts each job as the user who submitted
# it. It needs slurm-wlm, munge and python3. CENSUS_BIN names the binary under
# test (default: target/release/mcp-hint-census). Exit 0: every check passed;
# 1: a step or a check failed (the message says which, followed by the tails of
# the logs); 3: a tool is missing or this is not root.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
census=${CENSUS_BIN:-$repo/target/release/mcp-hint-census}
shards=${SHARDS:-3}
trees=${TREES:-7}
date=2026-11-30

missing=()
for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol python3; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "slurm test: not installed: ${missing[*]} (apt-get install slurm-wlm munge python3)" >&2
    exit 3
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "slurm test: not root: slurmd must run as root to start jobs (run it as root, as CI does)" >&2
    exit 3
fi
if [ ! -x "$census" ]; then
    echo "slurm test: no binary at '$census'; run cargo build --release or set CENSUS_BIN" >&2
    exit 1
fi
census=$(cd "$(dirname "$census")" && pwd)/$(basename "$census")

if [ $# -ge 1 ]; then
    work=$1
    keep=1
    mkdir -p "$work"
else
    work=$(mktemp -d /tmp/hint-census-slurm.XXXXXX)
    keep=0
fi
work=$(cd "$work" && pwd)
sl=$work/slurm
mkdir -p "$sl/state" "$sl/spool" "$work/www" "$work/job"
# munged refuses a socket folder that others cannot enter, or a key others can read.
mkdir -m 0755 "$work/munge"

# Variables of an enclosing Slurm job would point sbatch and census at it.
while IFS='=' read -r name _; do
    case $name in SLURM_* | SBATCH_*) unset "$name" ;; esac
done < <(env)
export SLURM_CONF=$sl/slurm.conf

pids=()
cleanup() {
    local status=$?
    # Children first (jobs are over by now, or get cut short), then the daemons.
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 50); do
        local alive=0
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ "$alive" -eq 0 ] && break
        sleep 0.2
    done
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    if [ "$keep" -eq 0 ]; then
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
    echo "slurm test: $*" >&2
    for log in "$sl/slurmctld.log" "$sl/slurmd.log" "$work/munge/munged.log" "$work"/job/slurm-*.out "$work/http.log"; do
        [ -f "$log" ] || continue
        echo "--- last lines of $log" >&2
        tail -n 15 "$log" >&2
    done
    exit 1
}

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.5
    done
}

# --- munge: its own key and socket, in the foreground of a background job.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
    --seed-file="$work/munge/munged.seed" >"$work/munge/stdout.log" 2>&1 &
pids+=($!)
wait_for 10 test -S "$socket" || fail "munged did not create its socket '$socket'"

# --- Slurm: one node, this host, on loopback ports nobody holds.
host=$(hostname -s)
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
cpus=$(nproc)
mem_mib=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024 / 2))
user=$(id -un)
cat >"$SLURM_CONF" <<CONF
# Written by tests/slurm/run.sh: a single-node cluster for one test run.
ClusterName=hintcensus
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
# No cgroup plugin: a container rarely lets one be mounted or delegated.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/slurmd.pid
SlurmctldLogFile=$sl/slurmctld.log
SlurmdLogFile=$sl/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
# -D: stay in the foreground of a background job, so that its pid is ours to stop;
# -i: ignore any state a previous controller left (there is none: the folder is new).
slurmctld -D -i >"$sl/slurmctld.stdout" 2>&1 &
pids+=($!)
slurmd -D -N "$host" >"$sl/slurmd.stdout" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -N -n "$host" -o %T 2>/dev/null)" = idle ]; }
wait_for 60 node_idle || fail "node '$host' did not become idle: $(sinfo -N 2>&1 | tail -n 2)"
echo "slurm test: slurmctld and slurmd up on ports $ctld_port and $slurmd_port; node '$host' idle"

# --- The corpus: archives written and counted by benches/gen_corpus.py.
python3 - "$repo/benches" "$work/www" "$trees" >"$work/expected.json" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import gen_corpus

www, count = sys.argv[2], int(sys.argv[3])
trees = []
for i in range(count):
    # Trees of different owners and sizes (about 40 to 160 KiB of files each).
    owner = "org{}".format(i % 3)
    trees.append(gen_corpus.make_tree((7, owner, "tree-{}".format(i), 0.04 * (1 + i % 4), www)))
json.dump(trees, sys.stdout)
PY
python3 -u -m http.server --bind 127.0.0.1 --directory "$work/www" 0 >"$work/http.log" 2>&1 &
pids+=($!)
http_port() { sed -n 's/^Serving HTTP on .* port \([0-9]*\) .*/\1/p' "$work/http.log" | grep -q .; }
wait_for 10 http_port || fail "the HTTP server did not start"
port=$(sed -n 's/^Serving HTTP on .* port \([0-9]*\) .*/\1/p' "$work/http.log")
python3 - "$work/expected.json" "$port" >"$work/job/corpus.toml" <<'PY'
import json, sys
trees = json.load(open(sys.argv[1]))
print("[census]")
print('archive_url = "http://127.0.0.1:{}/{{owner}}/{{name}}/{{commit}}.tar.gz"'.format(sys.argv[2]))
for t in trees:
    print('\n[[tree]]\nrepo = "{}"\ncommit = "{}"'.format(t["repo"], t["commit"]))
PY

# --- The census on Slurm, through the recipe a user runs.
cd "$work/job"
submitted=$(CENSUS_BIN=$census CORPUS=corpus.toml OUT=results DATE=$date \
    XDG_CACHE_HOME=$work/cache-slurm "$repo/recipes/slurm-run.sh" "$shards") ||
    fail "recipes/slurm-run.sh failed"
array=$(sed -n 's/^array=\([0-9]*\) merge=[0-9]*$/\1/p' <<<"$submitted")
merge=$(sed -n 's/^array=[0-9]* merge=\([0-9]*\)$/\1/p' <<<"$submitted")
[ -n "$array" ] && [ -n "$merge" ] || fail "recipes/slurm-run.sh printed no job ids: '$submitted'"
echo "slurm test: submitted array job $array ($shards shards over $trees trees) and merge job $merge"
queue_empty() { [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ]; }
wait_for 300 queue_empty || fail "jobs $array and $merge still queued after 300 s: $(squeue 2>&1)"

# Each record of `scontrol -o show job` is one line: every array task and the merge.
records=$(scontrol -o show job "$array"; scontrol -o show job "$merge")
tasks=$(grep -c "ArrayJobId=$array " <<<"$records" || true)
[ "$tasks" -eq "$shards" ] || fail "expected $shards array tasks, scontrol shows $tasks: $records"
while IFS= read -r record; do
    id=$(grep -o 'JobId=[0-9]*' <<<"$record" | head -n 1)
    name=$(grep -o 'JobName=[^ ]*' <<<"$record")
    state=$(grep -o 'JobState=[A-Z_]*' <<<"$record")
    code=$(grep -o ' ExitCode=[0-9:]*' <<<"$record")
    [ "$state" = JobState=COMPLETED ] && [ "$code" = " ExitCode=0:0" ] ||
        fail "$id ($name) ended $state$code"
done <<<"$records"
echo "slurm test: $shards array tasks and the merge job COMPLETED with exit code 0"

# --- One run over the whole corpus, with its own empty cache: the reference.
XDG_CACHE_HOME=$work/cache-single "$census" census --corpus corpus.toml --date "$date" \
    --quiet --out single >"$work/single.stdout" 2>"$work/single.stderr" ||
    fail "the single census run failed: $(cat "$work/single.stderr")"
for name in "census-$date.csv" "files-$date.csv" "census-$date.md"; do
    cmp "results/$name" "single/$name" || fail "merged $name differs from one run's"
done
echo "slurm test: merged census-$date.csv, files-$date.csv and census-$date.md are identical to one run's"

# --- Python's view: counts, shard membership, and the downloads the server saw.
python3 - "$work/expected.json" "$shards" "$date" "$work/http.log" <<'PY' || fail "the oracle check failed"
import csv, json, re, sys
expected = json.load(open(sys.argv[1]))
shards, date = int(sys.argv[2]), sys.argv[3]
terms = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "annotations"]

def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

merged = rows("results/census-{}.csv".format(date))
assert [r["repo"] for r in merged] == [t["repo"] for t in expected], merged
for row, tree in zip(merged, expected):
    assert row["status"] == "ok", row
    assert row["commit"] == tree["commit"] and row["commit_source"] == "archive", row
    assert int(row["files_walked"]) == tree["files_walked"], (row, tree)
    assert int(row["bytes_read"]) == tree["bytes_read"], (row, tree)
    assert row["archive_sha256"] == tree["sha256"], (row, tree)
    for term in terms:
        assert int(row[term]) == tree["counts"][term], (term, row, tree)
    assert sum(tree["counts"].values()) > 0, tree
for k in range(1, shards + 1):
    got = [r["repo"] for r in rows("results/shard-{}/census-{}.csv".format(k, date))]
    want = [t["repo"] for t in expected[k - 1::shards]]
    assert got == want, ("shard", k, got, want)
log = open(sys.argv[4]).read()
for tree in expected:
    path = "/{}/{}.tar.gz".format(tree["repo"], tree["commit"])
    hits = len(re.findall(r'"GET {} HTTP/1\.1" 200'.format(re.escape(path)), log))
    assert hits == 2, (path, hits)
print("slurm test: {} trees: counts, files and bytes equal Python's; each shard held "
      "its own trees; each archive was downloaded twice over HTTP".format(len(expected)))
PY
# --- A wire survey on Slurm, through the same recipe with SERVERS set.
python=$(python3 -c 'import sys; print(sys.executable)')
python3 - "$python" "$repo/tests/peers/fault_server.py" "$trees" >"$work/job/servers.toml" <<'PY'
import json, sys
python, script, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(count):
    # Server i lists i % 4 tools, the last read-only.
    tools = [{"name": "t{}".format(j), "inputSchema": {"type": "object"},
              "annotations": {"readOnlyHint": j == i % 4 - 1}} for j in range(i % 4)]
    print("[[server]]\nname = {}\ncommand = {}\nargs = [{}]\nenv = {{ FAULT_TOOLS = {} }}\n".format(
        json.dumps("server-{}".format(i)), json.dumps(python), json.dumps(script),
        json.dumps(json.dumps(tools))))
PY
submitted=$(CENSUS_BIN=$census SERVERS=servers.toml OUT=wire DATE=$date \
    "$repo/recipes/slurm-run.sh" "$shards") || fail "recipes/slurm-run.sh with SERVERS failed"
array=$(sed -n 's/^array=\([0-9]*\) merge=[0-9]*$/\1/p' <<<"$submitted")
merge=$(sed -n 's/^array=[0-9]* merge=\([0-9]*\)$/\1/p' <<<"$submitted")
[ -n "$array" ] && [ -n "$merge" ] || fail "recipes/slurm-run.sh printed no job ids: '$submitted'"
echo "slurm test: submitted wire array job $array ($shards shards over $trees servers) and merge job $merge"
wait_for 300 queue_empty || fail "jobs $array and $merge still queued after 300 s: $(squeue 2>&1)"
records=$(scontrol -o show job "$array"; scontrol -o show job "$merge")
tasks=$(grep -c "ArrayJobId=$array " <<<"$records" || true)
[ "$tasks" -eq "$shards" ] || fail "expected $shards wire array tasks, scontrol shows $tasks: $records"
while IFS= read -r record; do
    id=$(grep -o 'JobId=[0-9]*' <<<"$record" | head -n 1)
    state=$(grep -o 'JobState=[A-Z_]*' <<<"$record")
    code=$(grep -o ' ExitCode=[0-9:]*' <<<"$record")
    [ "$state" = JobState=COMPLETED ] && [ "$code" = " ExitCode=0:0" ] ||
        fail "wire $id ended $state$code"
done <<<"$records"
"$census" probe --servers servers.toml --date "$date" --out wire-single \
    >"$work/wire-single.stdout" 2>"$work/wire-single.stderr" ||
    fail "the single probe --servers run failed: $(cat "$work/wire-single.stderr")"
for name in "wire-$date.csv" "wire-$date-servers.csv" "wire-$date.md"; do
    cmp "wire/$name" "wire-single/$name" || fail "merged $name differs from one run's"
done
echo "slurm test: merged wire-$date.csv, wire-$date-servers.csv and wire-$date.md are identical to one run's"
python3 - "$shards" "$date" "$trees" <<'PY' || fail "the wire oracle check failed"
import csv, sys
shards, date, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
names = ["server-{}".format(i) for i in range(count)]
def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
merged = rows("wire/wire-{}-servers.csv".format(date))
assert [r["server"] for r in merged] == names, merged
for i, row in enumerate(merged):
    assert row["outcome"] == "listed", row
    assert int(row["tools"]) == i % 4, row
    assert int(row["tools_every_meaningful_hint"]) == 0, row
wire = rows("wire/wire-{}.csv".format(date))
for i, name in enumerate(names):
    got = [(r["tool"], r["readOnlyHint"]) for r in wire if r["server"] == name]
    want = [("t{}".format(j), "true" if j == i % 4 - 1 else "false") for j in range(i % 4)]
    assert got == want, (name, got, want)
for k in range(1, shards + 1):
    got = [r["server"] for r in rows("wire/shard-{}/wire-{}-servers.csv".format(k, date))]
    assert got == names[k - 1::shards], ("shard", k, got)
print("slurm test: {} servers: each shard probed its own, and every tool is the file's".format(count))
PY
echo "slurm test: passed"
