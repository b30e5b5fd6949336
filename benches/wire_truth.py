#!/usr/bin/env python3
"""Holds the tool finder to the wire on real registry packages: what each server lists in
`tools/list` beside what the finder reads in the files of the same package.

One command, from the repository root, with the network to npm and PyPI:

    python3 benches/wire_truth.py
    python3 benches/wire_truth.py --servers benches/wire-servers.toml --bin target/release/mcp-hint-census

It runs `probe --servers FILE --keep-installs` into target/wire-truth/ (a second run
reuses the installs), then `scan --tools-csv` over each installed package's own
folder: node_modules/NAME for npm, the top-level modules a wheel's RECORD lists for
PyPI. Each wire tool is matched by name to the first source definition of that name
(role `source`, kind `tool`), and falls in one of:

  not visible   no source definition has its name (built at run time, or in another
                package)
  equal         every hint reads on the wire as in the source (an absent hint is
                absent in both)
  unresolved    some hint reads `?` or `unknown` in the source, none wrong
  wrong         some hint the source reads definitely differs from the wire: the finder
                is wrong, or the package computes the value at run time

Prints a Markdown table, a row per server and the totals, and each wrong hint with its
file and line. Exits 1 when a hint is wrong, so the figure can gate a release.
"""

import argparse
import csv
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "target", "wire-truth")
HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]


def newest(pattern):
    """Returns the newest file matching `pattern`, None when there is none."""
    found = sorted(glob.glob(pattern))
    return found[-1] if found else None


def npm_folders(cache, name, version):
    prefix = os.path.join(cache, "npm", f"{name.replace('/', '+')}@{version}")
    folder = os.path.join(prefix, "node_modules", name)
    return [folder] if os.path.isdir(folder) else []


def pypi_folders(cache, name, version):
    """Returns the top-level modules the wheel of `name` installed, from its RECORD."""
    prefix = os.path.join(cache, "pypi", f"{name}@{version}")
    normal = re.sub(r"[-_.]+", "_", name).lower()
    for record in glob.glob(os.path.join(prefix, "lib", "python*", "site-packages", "*.dist-info", "RECORD")):
        dist = os.path.basename(os.path.dirname(record)).removesuffix(".dist-info")
        if re.sub(r"[-_.]+", "_", dist.rsplit("-", 1)[0]).lower() != normal:
            continue
        site = os.path.dirname(os.path.dirname(record))
        tops = set()
        with open(record, newline="") as f:
            for row in csv.reader(f):
                first = row[0].split("/", 1)[0] if row else ""
                if first and not first.endswith((".dist-info", ".data")) and first != "..":
                    tops.add(first)
        return [os.path.join(site, t) for t in sorted(tops) if os.path.exists(os.path.join(site, t))]
    return []


def source_tools(binary, server, folders):
    """Returns {tool name: row} of the first source definition of each name."""
    out = os.path.join(WORK, "scan", re.sub(r"[^A-Za-z0-9._-]", "_", server) + ".csv")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    run = subprocess.run([binary, "scan", "--tools-csv", out, *folders], capture_output=True, text=True)
    if run.returncode not in (0, 1) or not os.path.exists(out):
        sys.exit(f"wire_truth: scan of {server} failed: {run.stderr.strip()}")
    tools = {}
    with open(out, newline="") as f:
        for row in csv.DictReader(f):
            if row["kind"] == "tool" and row["role"] == "source" and row["tool"]:
                tools.setdefault(row["tool"], row)
    return tools


def judge(source, wire):
    """Returns the tool's standing and its wrong hints."""
    wrong, unresolved = [], False
    for hint in HINTS:
        s, w = source[hint] or "absent", wire[hint] or "absent"
        if s in ("?", "unknown"):
            unresolved = True
        elif s != w:
            wrong.append((hint, s, w))
    if wrong:
        return "wrong", wrong
    return ("unresolved" if unresolved else "equal"), []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default=os.path.join(ROOT, "benches", "wire-servers.toml"))
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "mcp-hint-census"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    cache, out = os.path.join(WORK, "cache"), os.path.join(WORK, "out")
    subprocess.run([args.bin, "probe", "--servers", args.servers, "--keep-installs", "--cache", cache,
                    "--out", out, "--jobs", str(args.jobs)], check=False)
    servers_csv = newest(os.path.join(out, "wire-*-servers.csv"))
    if servers_csv is None:
        sys.exit(f"wire_truth: the probe wrote no servers table in {out}")
    wire_csv = servers_csv.replace("-servers.csv", ".csv")
    with open(wire_csv, newline="") as f:
        wire_rows = [r for r in csv.DictReader(f) if r["tool"]]
    totals = {"wire": 0, "not visible": 0, "equal": 0, "unresolved": 0, "wrong": 0}
    wrongs = []
    print("| server | wire tools | not visible | equal | unresolved | wrong |")
    print("|---|---:|---:|---:|---:|---:|")
    with open(servers_csv, newline="") as f:
        servers = list(csv.DictReader(f))
    for server in servers:
        name, version = server["package"], server["package_version"]
        find = {"npm": npm_folders, "pypi": pypi_folders}.get(server["package_registry"])
        folders = find(cache, name, version) if find and server["outcome"] == "listed" else []
        if not folders:
            print(f"| {server['server']} | {server['outcome']}: not judged | | | | |")
            continue
        source = source_tools(args.bin, server["server"], folders)
        counts = {k: 0 for k in totals}
        for wire in (r for r in wire_rows if r["server"] == server["server"]):
            counts["wire"] += 1
            found = source.get(wire["tool"])
            if found is None:
                counts["not visible"] += 1
                continue
            standing, wrong = judge(found, wire)
            counts[standing] += 1
            wrongs += [(server["server"], wire["tool"], found["path"], found["line"], *w) for w in wrong]
        for k in totals:
            totals[k] += counts[k]
        print(f"| {server['server']} | " + " | ".join(str(counts[k]) for k in totals) + " |")
    print("| **all** | " + " | ".join(f"**{totals[k]}**" for k in totals) + " |")
    visible = totals["wire"] - totals["not visible"]
    print(f"\n{visible} of {totals['wire']} wire tools are statically visible; "
          f"{totals['equal']} read equal, {totals['unresolved']} unresolved, {totals['wrong']} wrong.")
    for server, tool, path, line, hint, s, w in wrongs:
        print(f"wrong: {server} {tool} {hint}: source {s} ({path}:{line}), wire {w}")
    return 1 if wrongs else 0


if __name__ == "__main__":
    sys.exit(main())
