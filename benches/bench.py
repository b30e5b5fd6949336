#!/usr/bin/env python3
"""Times a census against its floor and the alternatives on a synthetic corpus.

One command, from the repository root:

    python3 benches/bench.py --size small      # about 50 MiB, a minute
    python3 benches/bench.py --size full       # 1 MiB to 1 GiB trees, a 1 GiB corpus
    python3 benches/bench.py --size gib        # the small corpus plus the 1 GiB tree

It builds the release binary and `examples/inflate.rs`, generates the seeded corpus
(`benches/gen_corpus.py`, reused while its seed and version do not change) under
`target/bench-data/SIZE`, checks that every contender's counts agree with the
generator's oracle, then runs each contender `--repeats` times, round robin, and
prints a Markdown table of medians: seconds, MiB/s of inflated tar stream, the
ratio to the decode-only floor, and peak RSS (the largest over the runs, the
process and its children). Missing optional tools are listed as not installed.

The contenders, on the same archives:
  floor    examples/inflate: flate2 with the tool's backend, inflating and nothing else
  census   mcp-hint-census census --offline (the archives are in its cache), the tool
           finder on, as by default
  census-literal  the same census with --no-tools: literals only, no tool finder
  census-sdk  the same census with the `sdk` spelling profile on (`profiles = ["sdk"]`
           under [census] in a copy of the corpus): four more columns to count
  scan     mcp-hint-census scan on the archive paths (all in one command)
  gzip     gzip -dc > /dev/null
  igzip    igzip -dc > /dev/null (ISA-L, where installed)
  python   the article's method: tarfile plus bytes.lower().count (benches/article.py)
  tar+rg   tar -xzf into a temporary folder, then rg -i -o over it, per term tallied

Stdlib only.
"""

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gen_corpus  # noqa: E402

DATE = "2026-01-01"
CONTENDERS = ["floor", "census", "census-literal", "census-sdk", "scan", "gzip", "igzip",
              "python", "tar+rg"]
# Contenders that count, and so are checked against the oracle.
COUNTING = {"census", "census-literal", "census-sdk", "scan", "python", "tar+rg"}


class Contender:
    """One way of reading a workload's archives: a command, and how to read its counts."""

    def __init__(self, name, argv, counts=None, stdout=None, prepare=None, note=""):
        self.name, self.argv, self.counts_of = name, argv, counts
        self.stdout, self.prepare, self.note = stdout, prepare, note


# A child forked from this interpreter starts with its pages, so its own ru_maxrss
# would never read below the interpreter's size; GNU time is a small C program, so
# the peak it reports is the command's (and the children it waited for).
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def run(argv, stdout_path=None):
    """Runs argv; returns (seconds, peak RSS in bytes of it and its children)."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    rss_file = None
    if GNU_TIME:
        fd, rss_file = tempfile.mkstemp(prefix="rss-")
        os.close(fd)
        argv = [GNU_TIME, "-q", "-f", "%M", "-o", rss_file] + argv
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
        peak = usage.ru_maxrss * 1024
        if rss_file:
            with open(rss_file) as f:
                lines = f.read().split()
            peak = int(lines[-1]) * 1024 if lines else 0
    finally:
        if stdout_path:
            out.close()
        if rss_file:
            os.unlink(rss_file)
    if proc.returncode != 0:
        raise RuntimeError("{} exited with {}: {}".format(argv[0], proc.returncode, err.strip()))
    return elapsed, peak


def census_csv_counts(path, terms, at_least=None):
    """Returns {repo: [counts]} from a census CSV table.

    `at_least` maps extra columns to a term each: every row's count in such a column
    must be present and at least the term's (a profile column counts the term's own
    spelling among others), or this raises.
    """
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for row in rows:
        if row["status"] != "ok":
            raise RuntimeError("{}: {}".format(row["repo"], row["error"]))
        out[row["repo"]] = [int(row[t]) for t in terms]
        for column, term in (at_least or {}).items():
            if row.get(column) in (None, "") or int(row[column]) < int(row[term]):
                raise RuntimeError("{}: column '{}' is {!r}: missing, or below '{}' ({})".format(
                    row["repo"], column, row.get(column), term, row[term]))
    return out


def with_profile(corpus, profile, out):
    """Writes a copy of a corpus file with `profiles = [profile]` under [census]; returns out."""
    with open(corpus) as f:
        lines = f.read().split("\n")
    at = lines.index("[census]") + 1
    lines.insert(at, 'profiles = ["{}"]'.format(profile))
    with open(out, "w") as f:
        f.write("\n".join(lines))
    return out


def contenders(workload, manifest, args, work):
    """Returns the contenders for one workload (None for a tool that is not installed)."""
    terms = manifest["terms"] + manifest["controls"]
    trees = workload["trees"]
    archives = [t["archive"] for t in trees]
    by_archive = {t["archive"]: t["repo"] for t in trees}
    out = {}
    census_out = os.path.join(work, "census-out")
    out["floor"] = Contender("floor", [args.inflate] + archives,
                             note="flate2 ({}), one archive after another".format(args.backend))
    out["census"] = Contender(
        "census",
        [args.bin, "census", "--offline", "--cache", manifest["cache"], "--corpus",
         workload["corpus"], "--out", census_out, "--date", DATE, "-q", "--jobs", str(args.jobs)],
        counts=lambda _: census_csv_counts(
            os.path.join(census_out, "census-{}.csv".format(DATE)), terms),
        note="--jobs {}".format(args.jobs))
    # The same census with the tool finder off: the finder's cost is census over this.
    literal_out = os.path.join(work, "census-literal-out")
    out["census-literal"] = Contender(
        "census-literal",
        [args.bin, "census", "--offline", "--cache", manifest["cache"], "--corpus",
         workload["corpus"], "--out", literal_out, "--date", DATE, "-q", "--jobs",
         str(args.jobs), "--no-tools"],
        counts=lambda _: census_csv_counts(
            os.path.join(literal_out, "census-{}.csv".format(DATE)), terms),
        note="--jobs {}, --no-tools".format(args.jobs))
    # The same census counting the sdk profile too. Its literal columns must not
    # change; its profile columns count near misses the oracle leaves out (such as
    # `read_only_hint`), so they are only checked to be there and at least the
    # literal count of their hint.
    sdk_out = os.path.join(work, "census-sdk-out")
    sdk_corpus = with_profile(workload["corpus"], "sdk", os.path.join(work, "corpus-sdk.toml"))
    out["census-sdk"] = Contender(
        "census-sdk",
        [args.bin, "census", "--offline", "--cache", manifest["cache"], "--corpus",
         sdk_corpus, "--out", sdk_out, "--date", DATE, "-q", "--jobs", str(args.jobs)],
        counts=lambda _: census_csv_counts(
            os.path.join(sdk_out, "census-{}.csv".format(DATE)), terms,
            at_least={t + "_sdk": t for t in manifest["terms"]}),
        note="--jobs {}, profiles = [\"sdk\"]".format(args.jobs))
    scan_csv = os.path.join(work, "scan.csv")

    def scan_counts(_):
        got = census_csv_counts(scan_csv, terms)
        # scan names a row after its path; map it back to the tree.
        return {by_archive.get(k, k): v for k, v in got.items()}
    out["scan"] = Contender("scan", [args.bin, "scan", "--csv", scan_csv] + archives,
                            counts=scan_counts, note="all paths in one scan")
    out["gzip"] = Contender("gzip", ["gzip", "-dc"] + archives) if shutil.which("gzip") else None
    out["igzip"] = (Contender("igzip", ["igzip", "-dc"] + archives)
                    if shutil.which("igzip") else None)
    py_out = os.path.join(work, "python.jsonl")

    def python_counts(_):
        got = {}
        with open(py_out) as f:
            for line in f:
                rec = json.loads(line)
                got[by_archive[rec["archive"]]] = [rec["counts"][t] for t in terms]
        return got
    out["python"] = Contender(
        "python", [sys.executable, os.path.join(HERE, "article.py"), ",".join(terms)] + archives,
        counts=python_counts, stdout=py_out)
    if shutil.which("rg") and shutil.which("tar"):
        extract = os.path.join(work, "extract")
        rg_out = os.path.join(work, "rg.txt")
        script = "set -e\n"
        for i, a in enumerate(archives):
            script += 'mkdir -p "$1/{i}" && tar -xzf "{a}" -C "$1/{i}"\n'.format(i=i, a=a)
        # -a: binary files too; -uuu: no ignore files, hidden files; --no-unicode:
        # ASCII-only case folding, as the method says. -o prints each match.
        script += 'exec rg -o -H --no-line-number -i -a -uuu -F --no-unicode {} "$1"\n'.format(
            " ".join("-e " + t for t in terms))

        def prepare():
            shutil.rmtree(extract, ignore_errors=True)
            os.makedirs(extract)

        def rg_counts(_):
            got = {t["repo"]: [0] * len(terms) for t in trees}
            index = {t.lower(): k for k, t in enumerate(terms)}
            prefix = extract + os.sep
            with open(rg_out, "rb") as f:
                for line in f:
                    path, _, match = line.rstrip(b"\n").rpartition(b":")
                    tree = trees[int(path.decode()[len(prefix):].split(os.sep)[0])]
                    got[tree["repo"]][index[match.decode().lower()]] += 1
            return got
        out["tar+rg"] = Contender("tar+rg", ["sh", "-c", script, "sh", extract],
                                  counts=rg_counts, stdout=rg_out, prepare=prepare,
                                  note="rg {} threads".format(os.cpu_count()))
    else:
        out["tar+rg"] = None
    return out


def check(contender, workload, manifest):
    """Runs a contender once and compares its counts with the oracle's; returns a note."""
    if contender.prepare:
        contender.prepare()
    run(contender.argv, contender.stdout)
    if contender.name == "floor":
        total = int(subprocess.run(contender.argv, capture_output=True, check=True).stdout)
        want = sum(t["tar_bytes"] for t in workload["trees"])
        if total != want:
            raise SystemExit("floor inflated {} bytes, the archives hold {}".format(total, want))
        return "{} bytes".format(total)
    if not contender.counts_of:
        return "-"
    terms = manifest["terms"] + manifest["controls"]
    got = contender.counts_of(None)
    for tree in workload["trees"]:
        want = [tree["counts"][t] for t in terms]
        if got.get(tree["repo"]) != want:
            raise SystemExit("{}: {} counts {} for {}, the oracle {}".format(
                workload["name"], contender.name, got.get(tree["repo"]), tree["repo"], want))
    return "agree"


def fmt_rss(n):
    return "{:.1f}".format(n / 1048576)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", choices=sorted(gen_corpus.SIZES), default="small")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per contender")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", help="corpus folder (default target/bench-data/SIZE)")
    parser.add_argument("--bin", help="the mcp-hint-census binary (default: build release)")
    parser.add_argument("--inflate", help="the inflate example (default: build release)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="census --jobs")
    parser.add_argument("--only", help="comma-separated contenders (default all)")
    parser.add_argument("--check-only", action="store_true",
                        help="check that the counts agree, time nothing")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    only = args.only.split(",") if args.only else CONTENDERS
    for name in only:
        if name not in CONTENDERS:
            parser.error("unknown contender '{}'".format(name))
    if not args.bin or (not args.inflate and "floor" in only):
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "mcp-hint-census",
                        "--example", "inflate"], cwd=ROOT, check=True)
        release = os.path.join(ROOT, "target", "release")
        args.bin = args.bin or os.path.join(release, "mcp-hint-census")
        args.inflate = args.inflate or os.path.join(release, "examples", "inflate")
    args.backend = flate2_backend()

    data = args.data or os.path.join(ROOT, "target", "bench-data", args.size)
    manifest = gen_corpus.generate(args.size, data, args.seed)
    work = tempfile.mkdtemp(prefix="work-", dir=data)
    rows = []
    try:
        for workload in manifest["workloads"]:
            rows += bench_workload(workload, manifest, args, work, only)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.check_only:
        print("counts agree with the oracle: {}".format(
            ", ".join(sorted({r["contender"] for r in rows if r["check"] == "agree"}))))
        return
    print_table(rows, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


def bench_workload(workload, manifest, args, work, only):
    """Checks, then times, every contender on one workload; returns its rows."""
    inflated = sum(t["tar_bytes"] for t in workload["trees"])
    compressed = sum(t["gz_bytes"] for t in workload["trees"])
    cands = contenders(workload, manifest, args, work)
    live = [cands[n] for n in only if cands.get(n)]
    notes = {}
    for c in live:
        notes[c.name] = check(c, workload, manifest)
        print("{}: {}: {}".format(workload["name"], c.name, notes[c.name]), file=sys.stderr)
    times = {c.name: [] for c in live}
    rss = {c.name: 0 for c in live}
    if not args.check_only:
        for _ in range(args.repeats):
            for c in live:
                if c.prepare:
                    c.prepare()
                seconds, peak = run(c.argv, c.stdout)
                times[c.name].append(seconds)
                rss[c.name] = max(rss[c.name], peak)
    rows = []
    for name in only:
        c = cands.get(name)
        row = {"workload": workload["name"], "contender": name, "inflated": inflated,
               "compressed": compressed, "trees": len(workload["trees"])}
        if c is None:
            row.update(check="not installed")
        else:
            row.update(check=notes[name], note=c.note, times=times[name], rss=rss[name],
                       seconds=statistics.median(times[name]) if times[name] else None)
        rows.append(row)
    return rows


def print_table(rows, args):
    print("| workload | contender | seconds | MiB/s | x floor | peak RSS MiB | counts |")
    print("|---|---|---:|---:|---:|---:|---|")
    floor = {r["workload"]: r.get("seconds") for r in rows if r["contender"] == "floor"}
    for r in rows:
        if r.get("seconds") is None:
            print("| {} | {} | | | | | {} |".format(r["workload"], r["contender"], r["check"]))
            continue
        base = floor.get(r["workload"])
        print("| {} | {} | {:.3f} | {:.0f} | {} | {} | {} |".format(
            r["workload"], r["contender"], r["seconds"],
            r["inflated"] / 1048576 / r["seconds"],
            "{:.2f}".format(r["seconds"] / base) if base else "-",
            fmt_rss(r["rss"]), r["check"]))
    print()
    # The ratios the targets are stated in (docs/performance.md), workload by workload.
    secs = {(r["workload"], r["contender"]): r.get("seconds") for r in rows}
    for w in dict.fromkeys(r["workload"] for r in rows):
        ratios = []
        for a, b in (("census", "igzip"), ("census", "floor"), ("census", "census-literal"),
                     ("census-sdk", "census")):
            if secs.get((w, a)) and secs.get((w, b)):
                ratios.append("{}/{} {:.2f}".format(a, b, secs[(w, a)] / secs[(w, b)]))
        if ratios:
            print("- {}: {}".format(w, ", ".join(ratios)))
    print()
    print("Medians of {} runs; MiB/s of inflated tar stream; floor = {}; "
          "census --jobs {}; peak RSS is the largest of the runs.".format(
              args.repeats, "examples/inflate, flate2 with " + args.backend, args.jobs))


def flate2_backend():
    """Returns the flate2 backend named in Cargo.toml, for the table's legend."""
    try:
        with open(os.path.join(ROOT, "Cargo.toml")) as f:
            for line in f:
                if line.startswith("flate2"):
                    for name in ("zlib-rs", "zlib-ng-compat", "zlib-ng", "miniz_oxide", "zlib"):
                        if name in line:
                            return name
                    return "miniz_oxide"
    except OSError:
        pass
    return "?"


if __name__ == "__main__":
    main()
