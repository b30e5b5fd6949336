#!/usr/bin/env python3
"""Measures a census of packages beside a census of the same bytes as plain archives,
and holds every package row to Python's own count of the same artifact.

One command, from the repository root (the network reaches the package indexes only
for the first run; later runs read the kept corpus and cache):

    python3 benches/packages.py                     # benches/packages.txt, 5 repeats
    python3 benches/packages.py --list L --repeats 9 --bin target/release/mcp-hint-census

What it does, under target/bench-packages/:
1. `corpus packages LIST --out shipped.toml` pins each package of the list to its
   artifact by the index's digest (once: the corpus is kept; --repin asks again).
2. `census --corpus shipped.toml --cache cache` downloads every artifact once, checks
   its digest and counts it: the download run, timed once. Its counting alone is then
   timed by the same census with --offline (no byte leaves the cache).
3. The same artifacts, copied into a second cache as plain archives of a corpus of
   trees (`pkg/pN` at a fixed pin), are counted by `census --offline` too: what the
   package path (the digest check, the artifact's own cache folder) adds to reading
   the same bytes.
4. The two offline censuses run round robin --repeats times; medians of wall and CPU
   seconds (the child's rusage from wait4) and peak RSS, packages per minute, MB/s of
   artifact bytes, and the ratio package/plain are printed.
5. Python opens each artifact (tarfile for npm tarballs and sdists, zipfile for
   wheels), counts the terms ASCII case-insensitively in every regular member, and
   every package row must give the same files, bytes and counts; the row's digest must
   be the corpus's. A disagreement exits 1.

Stdlib only (Python 3.11).
"""

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORK = os.path.join(ROOT, "target", "bench-packages")
DATE = "2026-01-01"
TERMS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "annotations"]


def timed(argv):
    """Runs argv; returns (wall s, CPU s, peak RSS KiB, exit code)."""
    start = time.monotonic()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit("{} failed ({}):\n{}".format(" ".join(argv), code, err.decode(errors="replace")))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, code


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def python_view(path):
    """Returns (files, bytes, counts) of an artifact as Python's readers see it."""
    blobs = []
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            blobs = [z.read(i) for i in z.infolist() if not i.is_dir()]
    else:
        with tarfile.open(path) as tar:
            blobs = [tar.extractfile(m).read() for m in tar.getmembers() if m.isreg()]
    counts = [sum(b.lower().count(t.lower().encode()) for b in blobs) for t in TERMS]
    return len(blobs), sum(len(b) for b in blobs), counts


def artifact_path(cache, package):
    # fetch::Fetcher::cache_path: CACHE/packages/REGISTRY/NAME/VERSION/ARTIFACT
    return os.path.join(cache, "packages", package["registry"], *package["name"].split("/"),
                        package["version"], package["artifact"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", default=os.path.join(HERE, "packages.txt"))
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "mcp-hint-census"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--repin", action="store_true", help="ask the indexes again")
    args = parser.parse_args()
    os.makedirs(WORK, exist_ok=True)
    shipped = os.path.join(WORK, "shipped.toml")
    cache = os.path.join(WORK, "cache")
    if args.repin or not os.path.exists(shipped):
        timed([args.bin, "corpus", "packages", args.list, "--out", shipped])
    with open(shipped, "rb") as f:
        packages = tomllib.load(f).get("package", [])
    skipped = read_rows(os.path.join(WORK, "shipped-skipped.csv"))
    print("{} listed; {} pinned; {} skipped (not served by the index, or not asked)".format(
        len(packages) + len(skipped), len(packages), len(skipped)))

    census = [args.bin, "census", "--corpus", shipped, "--cache", cache, "--date", DATE,
              "--jobs", str(args.jobs), "-q"]
    out = os.path.join(WORK, "out-download")
    downloaded = not all(os.path.exists(artifact_path(cache, p)) for p in packages)
    wall, cpu, _, _ = timed(census + ["--out", out])
    if downloaded:
        print("download and count: {:.2f} s wall, {:.2f} s CPU".format(wall, cpu))

    plain_cache = os.path.join(WORK, "plain-cache")
    shutil.rmtree(plain_cache, ignore_errors=True)
    plain = os.path.join(WORK, "plain.toml")
    pin = "0" * 40
    total = 0
    with open(plain, "w") as f:
        f.write("[census]\narchive_url = \"http://127.0.0.1:9/{repo}/{commit}\"\n")
        for i, p in enumerate(packages):
            source = artifact_path(cache, p)
            if not os.path.exists(source):
                continue
            folder = os.path.join(plain_cache, "pkg", "p{}".format(i))
            os.makedirs(folder)
            shutil.copyfile(source, os.path.join(folder, pin + ".tar.gz"))
            shutil.copyfile(source + ".sha256", os.path.join(folder, pin + ".tar.gz.sha256"))
            total += os.path.getsize(source)
            f.write("\n[[tree]]\nrepo = \"pkg/p{}\"\ncommit = \"{}\"\n".format(i, pin))

    runs = {"package": [], "plain": []}
    for _ in range(args.repeats):
        runs["package"].append(timed(census + ["--offline", "--out", os.path.join(WORK, "out")]))
        runs["plain"].append(timed([args.bin, "census", "--corpus", plain, "--cache", plain_cache,
                                    "--offline", "--date", DATE, "--jobs", str(args.jobs), "-q",
                                    "--out", os.path.join(WORK, "out-plain")]))
    median = {name: [statistics.median(r[i] for r in rs) for i in range(3)]
              for name, rs in runs.items()}
    counted = len(packages)
    print("{} artifacts, {:.1f} MB; offline, medians of {} round-robin runs:".format(
        counted, total / 1e6, args.repeats))
    print("{:<10} {:>8} {:>8} {:>10} {:>12} {:>8}".format(
        "census", "wall s", "CPU s", "peak MiB", "packages/min", "MB/s"))
    for name, (wall, cpu, rss) in median.items():
        print("{:<10} {:>8.3f} {:>8.3f} {:>10.1f} {:>12.0f} {:>8.1f}".format(
            name, wall, cpu, rss / 1024, counted * 60 / wall, total / 1e6 / wall))
    print("package/plain: {:.2f}x wall, {:.2f}x CPU".format(
        median["package"][0] / median["plain"][0], median["package"][1] / median["plain"][1]))

    table = read_rows(os.path.join(WORK, "out", "census-{}.csv".format(DATE)))
    plain_rows = read_rows(os.path.join(WORK, "out-plain", "census-{}.csv".format(DATE)))
    by_pin = {(p["registry"] + ":" + p["name"], p["version"]): p for p in packages}
    bad = 0
    plain_of = {r["repo"]: r for r in plain_rows}
    for i, row in enumerate(table):
        package = by_pin[(row["repo"], row["pinned"])]
        if row["status"] != "ok":
            print("not counted: {}@{}: {}".format(row["repo"], row["pinned"], row["error"]))
            continue
        files, size, counts = python_view(artifact_path(cache, package))
        got = (int(row["files_walked"]), int(row["bytes_read"]), [int(row[t]) for t in TERMS])
        other = plain_of.get("pkg/p{}".format(i), {})
        if got != (files, size, counts) or row["digest"] != package["digest"] \
                or [other.get(t) for t in TERMS] != [row[t] for t in TERMS]:
            bad += 1
            print("DISAGREES: {}@{}: census {} python {}".format(
                row["repo"], row["pinned"], got, (files, size, counts)))
    ok = sum(1 for r in table if r["status"] == "ok")
    print("{} of {} package rows equal Python's count of the same artifact".format(ok - bad, ok))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
