#!/usr/bin/env python3
"""Times what the tool finder adds to a census of a whole corpus, offline, side by side.

    python3 benches/corpus_cost.py --corpus DIR/repositories/repos.toml \
        --cache DIR/repositories/cache [--bin target/release/mcp-hint-census] [--rounds 3] \
        [--against OTHER-BINARY]

The corpus is any the tool pinned (a registry survey's repositories, say, whose
archives a mirror run packed into CACHE): every tree is counted from the cache with
`census --offline`, once with the finder (the default) and once with `--no-tools`,
the two alternating in each round (which goes first alternates too), so that a noisy
machine weighs on both alike. For each contender the wall seconds, the CPU seconds
(user and system, from the child's own rusage) and its peak RSS are kept; the report
gives the median of each, and the ratio finder/literal of each round, lowest to
highest. The literal counts of both must agree on every tree (a disagreement stops the
run), and so must every round's tables of one contender. `--against` adds another build's
census (the one before a change, say) to every round, its ratio taken against the same
round's literal census, and its tools table must be the same as `--bin`'s.

Stdlib only (Python 3.11).
"""

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LITERAL = ["files_walked", "bytes_read", "readOnlyHint", "destructiveHint", "idempotentHint",
           "openWorldHint", "status"]


def run(binary, corpus, cache, date, out, extra):
    """Runs one census; returns wall seconds, CPU seconds and peak RSS in MiB."""
    if os.path.exists(out):
        shutil.rmtree(out)
    command = [binary, "census", "--corpus", corpus, "--offline", "--cache", cache,
               "--date", date, "--out", out, "--quiet"] + extra
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit("census exited with {}: {}".format(code, " ".join(command)))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def rows(out, date):
    with open(os.path.join(out, "census-{}.csv".format(date)), newline="") as f:
        return [tuple(r[k] for k in ["repo", "pinned", "subfolder"] + LITERAL)
                for r in csv.DictReader(f)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--bin", default="target/release/mcp-hint-census")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--date", default="2025-12-18")
    parser.add_argument("--against", help="another build's census, in every round too")
    args = parser.parse_args()
    contenders = {"census": (args.bin, []), "census --no-tools": (args.bin, ["--no-tools"])}
    if args.against:
        contenders["census, " + args.against] = (args.against, [])
    times = {name: [] for name in contenders}
    seen = {}
    with tempfile.TemporaryDirectory() as work:
        for round_ in range(args.rounds):
            order = list(contenders)
            if round_ % 2:
                order.reverse()
            for name in order:
                out = os.path.join(work, name.replace(" ", "_"))
                binary, extra = contenders[name]
                times[name].append(run(binary, args.corpus, args.cache, args.date, out, extra))
                counted = rows(out, args.date)
                if seen.setdefault(name, counted) != counted:
                    sys.exit("{} wrote different tables in two rounds".format(name))
                mine = os.path.join(work, "census", "tools-{}.csv".format(args.date))
                if name.startswith("census,") and os.path.exists(mine):
                    with open(os.path.join(out, "tools-{}.csv".format(args.date)), "rb") as a, \
                            open(mine, "rb") as b:
                        if a.read() != b.read():
                            sys.exit("the two builds wrote different tools tables")
        if any(seen[n] != seen["census --no-tools"] for n in contenders):
            sys.exit("the literal counts differ with and without the finder")
    trees = len(seen["census"])
    ok = sum(1 for r in seen["census"] if r[-1] == "ok")
    print("{} trees ({} counted), {} rounds, {}".format(trees, ok, args.rounds, args.corpus))
    print("| | wall s | CPU s | peak RSS MiB |")
    print("|---|---:|---:|---:|")
    for name in contenders:
        wall, cpu, rss = zip(*times[name])
        print("| {} | {:.2f} | {:.2f} | {:.1f} |".format(
            name, statistics.median(wall), statistics.median(cpu), max(rss)))
    literal = times["census --no-tools"]
    for name in contenders:
        if name == "census --no-tools":
            continue
        for label, i in [("wall", 0), ("CPU", 1)]:
            r = sorted(f[i] / l[i] for f, l in zip(times[name], literal))
            print("{} / literal {}: {:.2f}-{:.2f}x, median {:.2f}x".format(
                name, label, r[0], r[-1], statistics.median(r)))


if __name__ == "__main__":
    main()
