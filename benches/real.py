#!/usr/bin/env python3
"""Times the census, with and without its tool finder, on real MCP server trees.

One command, from the repository root, with clones of the trees at hand:

    python3 benches/real.py                        # clones in /work/.mirror, 3 repeats
    python3 benches/real.py --clones DIR --bin target/release/mcp-hint-census
    python3 benches/real.py --per-tree             # where the finder's time goes
    python3 benches/real.py --tools-only           # the tools table's hash and name classes

`benches/real-trees.toml` lists the trees: public MCP servers and SDKs in TypeScript,
Python, Go, Rust, C#, Java and Kotlin, each pinned at a commit, monorepos also as
subfolder trees. The network is not used. Each repository's archive is packed from a
clone in `--clones` (`DIR/owner+name/<git dir>`, `DIR/owner/name` or `DIR/owner+name`
being the git dir itself) as GitHub's archive endpoint packs it: `git archive
--format=tar --prefix=NAME-COMMIT/ COMMIT | gzip -n`, whose pax global header names
the commit. The archives are kept, keyed by repository and commit, as a census cache
under `target/bench-real/cache` (`owner/name/COMMIT.tar.gz` and its `.sha256`), which
`census --offline --cache` reads; subfolder trees share their repository's archive.
A clone that lacks some blobs (a partial clone, or a snapshot without its largest
files) is packed without those paths, from a rewritten tree and after a pax header
naming the commit; they are listed in `COMMIT.tar.gz.missing` and named on stderr.

The contenders, on the same archives, run round robin `--repeats` times (medians):
  census          census --offline, the tool finder on (the default), --jobs N
  census-literal  the same census with --no-tools: literals only
  floor           examples/inflate, inflating every archive one after another
  igzip           igzip -dc > /dev/null (gzip -dc where igzip is not installed)
  python          the article's method (benches/article.py), one archive after another
in two groups: `all` (every tree) and `census-7` (the trees of corpus.toml, the
published census plus memori-mcp, that the list holds). Wall seconds, CPU seconds
(user+sys of the child and what it waited for, from the rusage of its wait4) and peak
RSS (GNU time) are reported with the ratios census/census-literal, census/floor,
census/igzip and census/python. census and census-literal must agree on every count
of every tree, and python with census on every whole-repository tree: a
disagreement stops the run.

The census's tools table (`tools-DATE.csv`, --date fixed) is hashed and copied to
`target/bench-real/tools-LABEL.csv` (LABEL: --label, else the binary's file name), so
the tables of two binaries can be diffed. Every timed census must write the same one.
From it the run prints, per name class (`read`, `write`, `destructive`, `unknown`), the
distinct source tools, those declaring nothing and those declaring readOnlyHint true and
false, and the class's precision where authors declared readOnlyHint: a name is a hint
about a hint, measured here rather than assumed.

Stdlib only (Python 3.11); GNU time (`apt-get install time`) is required.
"""

import argparse
import csv
import hashlib
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench  # noqa: E402  (run, Contender, fmt_rss, flate2_backend)

DATE = bench.DATE
CONTENDERS = ["census", "census-literal", "floor", "igzip", "python"]
GROUPS = ["all", "census-7"]
WORK = os.path.join(ROOT, "target", "bench-real")


# ---- clones, archives and the cache -------------------------------------------------

def is_git_dir(path):
    return os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))


def find_clone(clones, repo):
    """Returns the git dir holding `repo` under `clones`, or None."""
    owner, name = repo.split("/")
    for base in (os.path.join(clones, owner + "+" + name), os.path.join(clones, owner, name),
                 os.path.join(clones, owner, name + ".git")):
        if not os.path.isdir(base):
            continue
        if is_git_dir(base):
            return base
        for top, dirs, _ in os.walk(base):
            if top.count(os.sep) - base.count(os.sep) >= 2:
                dirs[:] = []
            for d in sorted(dirs):
                if is_git_dir(os.path.join(top, d)):
                    return os.path.join(top, d)
    return None


def cache_path(cache, repo, commit):
    # fetch::Fetcher::cache_path: CACHE/owner/name/<pin, lower case>.tar.gz
    owner, name = repo.split("/")
    return os.path.join(cache, owner, name, commit.lower() + ".tar.gz")


def missing_blobs(git_dir, commit):
    """Returns the paths of `commit` whose blobs the clone lacks (a partial clone, or a
    snapshot without its largest files)."""
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit],
                             check=True, capture_output=True).stdout.split(b"\0")
    entries = [e.split(b"\t", 1) for e in listing if e]
    blobs = [(meta.split()[2], path) for meta, path in entries if meta.split()[1] == b"blob"]
    answer = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch-check"],
                            input=b"".join(sha + b"\n" for sha, _ in blobs),
                            check=True, capture_output=True).stdout.split(b"\n")
    return [path for (_, path), line in zip(blobs, answer) if line.endswith(b" missing")]


def archive_stream(git_dir, repo, commit, lacking, tmp):
    """Starts `git archive` of the commit; returns (the header to write first, the process).

    When the clone lacks blobs, the tree is rewritten without those paths (in a
    temporary object folder and index, the clone untouched) and archived with the
    commit's time, after a pax global header naming the commit as git writes it.
    """
    prefix = "--prefix={}-{}/".format(repo.split("/")[1], commit)
    if not lacking:
        return b"", subprocess.Popen(["git", "--git-dir", git_dir, "archive", "--format=tar",
                                      prefix, commit], stdout=subprocess.PIPE)
    env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, "index"),
               GIT_OBJECT_DIRECTORY=os.path.join(tmp, "objects"),
               GIT_ALTERNATE_OBJECT_DIRECTORIES=os.path.join(os.path.abspath(git_dir), "objects"))
    git = lambda *a, **k: subprocess.run(["git", "--git-dir", git_dir] + list(a), env=env,
                                         check=True, capture_output=True, **k).stdout
    os.mkdir(env["GIT_OBJECT_DIRECTORY"])
    git("read-tree", commit)
    git("update-index", "--force-remove", "-z", "--stdin", input=b"\0".join(lacking) + b"\0")
    tree = git("write-tree", "--missing-ok").decode().strip()
    when = git("show", "-s", "--format=%ct", commit).decode().strip()
    header = io.BytesIO()
    tarfile.open(fileobj=header, mode="w", format=tarfile.PAX_FORMAT,
                 pax_headers={"comment": commit}).close()
    return header.getvalue()[:1024], subprocess.Popen(
        ["git", "--git-dir", git_dir, "archive", "--format=tar", prefix, "--mtime=@" + when,
         tree], env=env, stdout=subprocess.PIPE)


def pack(git_dir, repo, commit, path):
    """Writes the archive of `repo` at `commit` to `path` (and its sidecars) unless there.

    `path.sha256` marks it complete for the census; `path.missing` lists the paths a
    clone without all its blobs could not give (one a line), and exists only then.
    """
    if os.path.isfile(path) and os.path.isfile(path + ".sha256"):
        return
    subprocess.run(["git", "--git-dir", git_dir, "cat-file", "-e", commit + "^{commit}"],
                   check=True, capture_output=True)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    lacking = missing_blobs(git_dir, commit)
    with tempfile.TemporaryDirectory() as tmp, open(path + ".part", "wb") as out:
        header, git = archive_stream(git_dir, repo, commit, lacking, tmp)
        gz = subprocess.Popen(["gzip", "-n"], stdin=subprocess.PIPE, stdout=out)
        gz.stdin.write(header)
        shutil.copyfileobj(git.stdout, gz.stdin, 1 << 20)
        gz.stdin.close()
        if git.wait() or gz.wait():
            raise SystemExit("packing {} at {} failed".format(repo, commit))
    with open(path + ".part", "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    if lacking:
        with open(path + ".missing", "wb") as f:
            f.write(b"".join(p + b"\n" for p in lacking))
    os.replace(path + ".part", path)
    with open(path + ".sha256", "w") as f:
        f.write(digest + "\n")


def write_corpus(census, trees, path):
    """Writes a corpus file of `trees` with the [census] section `census`."""
    q = json.dumps  # a JSON string with ASCII escapes is a TOML basic string
    lines = ["[census]"] + ["{} = {}".format(k, q(v)) for k, v in census.items()]
    for t in trees:
        lines += ["", "[[tree]]"] + ["{} = {}".format(k, q(t[k]))
                                     for k in ("repo", "commit", "subfolder") if t.get(k)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


# ---- reading the results --------------------------------------------------------------

def census_rows(out, terms):
    """Returns {(repo, subfolder): [files_walked, counts...]} from OUT/census-DATE.csv."""
    with open(os.path.join(out, "census-{}.csv".format(DATE)), newline="") as f:
        rows = list(csv.DictReader(f))
    got = {}
    for row in rows:
        if row["status"] != "ok":
            raise SystemExit("{} {}: {}".format(row["repo"], row.get("subfolder", ""), row["error"]))
        got[(row["repo"], row.get("subfolder", ""))] = [int(row["files_walked"])] + [
            int(row[t]) for t in terms]
    return got


def python_rows(path, by_archive, terms):
    got = {}
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            got[(by_archive[rec["archive"]], "")] = [rec["files_walked"]] + [
                rec["counts"][t] for t in terms]
    return got


def tools_table(out):
    """Returns (path, sha256, rows) of OUT/tools-DATE.csv."""
    path = os.path.join(out, "tools-{}.csv".format(DATE))
    with open(path, "rb") as f:
        data = f.read()
    with open(path, newline="") as f:
        rows = sum(1 for _ in csv.reader(f)) - 1
    return path, hashlib.sha256(data).hexdigest(), rows


# ---- timing ---------------------------------------------------------------------------

def timed(argv, stdout=None, cold=False):
    """Runs argv with bench.run; returns (wall s, CPU s, peak RSS bytes).

    bench.run reaps the child with wait4, which adds the child's rusage (and that of
    what it waited for) to this process's RUSAGE_CHILDREN: the delta is the child's.
    """
    if cold:
        drop_caches()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, peak = bench.run(argv, stdout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, peak


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def cold_available():
    try:
        drop_caches()
        return True
    except OSError:
        return False


# ---- the benchmark --------------------------------------------------------------------

def contenders(group, args, work):
    """Returns {name: bench.Contender} for one group of trees."""
    tag = os.path.join(work, group["name"])
    archives = group["archives"]
    out = {}
    for name, extra in (("census", []), ("census-literal", ["--no-tools"])):
        dest = tag + "-" + name
        out[name] = bench.Contender(
            name, [args.bin, "census", "--offline", "--cache", args.cache, "--corpus",
                   group["corpus"], "--out", dest, "--date", DATE, "-q", "--jobs",
                   str(args.jobs)] + extra,
            counts=lambda dest=dest: census_rows(dest, args.terms),
            note="--jobs {}{}".format(args.jobs, ", --no-tools" if extra else ""))
        out[name].out = dest
    out["floor"] = bench.Contender("floor", [args.inflate] + archives, stdout=tag + "-floor.txt",
                                   note="flate2 ({}), sequential".format(args.backend))
    gunzip = "igzip" if shutil.which("igzip") else "gzip"
    out["igzip"] = bench.Contender("igzip", [gunzip, "-dc"] + archives,
                                   note=gunzip + " -dc, sequential")
    py_out = tag + "-python.jsonl"
    out["python"] = bench.Contender(
        "python", [sys.executable, os.path.join(HERE, "article.py"), ",".join(args.terms)]
        + archives, stdout=py_out,
        counts=lambda: python_rows(py_out, group["by_archive"], args.terms),
        note="benches/article.py, sequential")
    return out


def check(group, got):
    """Stops unless census-literal (every tree) and python (whole trees) agree with census."""
    census = got.get("census")
    for name in ("census-literal", "python"):
        if census is None or name not in got:
            continue
        keys = census if name == "census-literal" else got[name]
        for key in keys:
            if got[name].get(key) != census.get(key):
                raise SystemExit("{}: {} reads [files_walked, counts...] {} for {}, census {}"
                                 .format(group["name"], name, got[name].get(key), key,
                                         census.get(key)))


def bench_group(group, args, work):
    cands = contenders(group, args, work)
    live = [cands[n] for n in args.only]
    got, tools, notes = {}, set(), {}
    for c in live:  # one untimed run each: the counts are checked, the files warmed
        bench.run(c.argv, c.stdout)
        if c.counts_of:
            got[c.name] = c.counts_of()
    check(group, got)
    if "floor" in cands and "floor" in args.only:
        with open(cands["floor"].stdout) as f:
            group["inflated"] = int(f.read())
    stats = {c.name: [] for c in live}
    for _ in range(args.repeats):
        for c in live:
            stats[c.name].append(timed(c.argv, c.stdout, args.cold))
            if c.name == "census":
                tools.add(tools_table(c.out)[1])
    if len(tools) > 1:
        raise SystemExit("{}: the census wrote {} different tools tables".format(
            group["name"], len(tools)))
    rows = []
    for c in live:
        walls, cpus, peaks = zip(*stats[c.name])
        rows.append({"group": group["name"], "contender": c.name, "note": c.note,
                     "wall": statistics.median(walls), "cpu": statistics.median(cpus),
                     "rss": max(peaks), "walls": walls, "cpus": cpus,
                     "check": "agree" if c.name in got and "census" in got else "-"})
    if "census" in cands and "census" in args.only:
        notes["tools"] = tools_table(cands["census"].out)
    return rows, notes


def print_table(rows, groups, args):
    print("| group | contender | wall s | CPU s | peak RSS MiB | MiB/s | counts | how |")
    print("|---|---|---:|---:|---:|---:|---|---|")
    for r in rows:
        g = groups[r["group"]]
        rate = "{:.0f}".format(g["inflated"] / 1048576 / r["wall"]) if g.get("inflated") else "-"
        print("| {} | {} | {:.2f} | {:.2f} | {} | {} | {} | {} |".format(
            r["group"], r["contender"], r["wall"], r["cpu"], bench.fmt_rss(r["rss"]), rate,
            r["check"], r["note"]))
    print()
    by = {(r["group"], r["contender"]): r for r in rows}
    for name, g in groups.items():
        ratios = []
        for b in ("census-literal", "floor", "igzip", "python"):
            a, d = by.get((name, "census")), by.get((name, b))
            if a and d:
                ratios.append("census/{} wall {:.2f}, CPU {:.2f}".format(
                    b, a["wall"] / d["wall"], a["cpu"] / d["cpu"]))
        print("- {} ({} trees, {} archives, {:.0f} MiB gz{}): {}".format(
            name, len(g["trees"]), len(g["archives"]), g["gz"] / 1048576,
            ", {:.0f} MiB tar".format(g["inflated"] / 1048576) if g.get("inflated") else "",
            "; ".join(ratios) or "-"))
    print()
    print("Medians of {} runs{}; CPU = user+sys; MiB/s of inflated tar; peak RSS is the "
          "largest of the runs (GNU time); on {} CPUs.".format(
              args.repeats, ", page cache dropped before each" if args.cold else "",
              os.cpu_count()))


def per_tree(trees, args, work):
    """Times each repository's trees (one archive) with and without the finder."""
    rows = []
    repos = list(dict.fromkeys(t["repo"] for t in trees))
    for repo in repos:
        mine = [t for t in trees if t["repo"] == repo]
        corpus = write_corpus(args.census, mine, os.path.join(work, "one.toml"))
        secs = {}
        for extra in ([], ["--no-tools"]):
            argv = [args.bin, "census", "--offline", "--cache", args.cache, "--corpus", corpus,
                    "--out", os.path.join(work, "one"), "--date", DATE, "-q", "--jobs", "1"]
            runs = [timed(argv + extra, cold=args.cold) for _ in range(args.repeats)]
            secs[bool(extra)] = (statistics.median(r[0] for r in runs),
                                 statistics.median(r[1] for r in runs))
            if not extra:
                n = tools_table(os.path.join(work, "one"))[2]
        rows.append((secs[False][0] - secs[True][0], repo, len(mine), secs, n,
                     os.path.getsize(cache_path(args.cache, repo, mine[0]["commit"]))))
        print("per-tree: {} {:.2f}s / {:.2f}s".format(repo, secs[False][0], secs[True][0]),
              file=sys.stderr)
    rows.sort(reverse=True)
    print("| repository | trees | MiB gz | tools | census s | literal s | finder s | x literal | "
          "finder CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for cost, repo, n, secs, tools, gz in rows[:15]:
        print("| {} | {} | {:.1f} | {} | {:.2f} | {:.2f} | {:.2f} | {:.1f} | {:.2f} |".format(
            repo, n, gz / 1048576, tools, secs[False][0], secs[True][0], cost,
            secs[False][0] / secs[True][0], secs[False][1] - secs[True][1]))
    total = sum(r[0] for r in rows)
    print("\nFinder cost over all {} repositories: {:.2f}s (census --jobs 1, one repository "
          "at a time, medians of {}).".format(len(rows), total, args.repeats))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clones", default="/work/.mirror", help="folder of git clones")
    parser.add_argument("--corpus", default=os.path.join(HERE, "real-trees.toml"))
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per contender")
    parser.add_argument("--jobs", type=int, default=2, help="census --jobs")
    parser.add_argument("--only", help="comma-separated contenders (default all)")
    parser.add_argument("--groups", default=",".join(GROUPS), help="all, census-7 or both")
    parser.add_argument("--bin", help="the mcp-hint-census binary (default: build release)")
    parser.add_argument("--inflate", help="the inflate example (default: target/release's)")
    parser.add_argument("--label", help="names the copy of the tools table (default: --bin's name)")
    parser.add_argument("--allow-missing", action="store_true",
                        help="drops the trees whose clone is missing instead of stopping")
    parser.add_argument("--tools-only", action="store_true",
                        help="runs the census once and prints its tools table's hash")
    parser.add_argument("--per-tree", action="store_true",
                        help="times each repository alone, finder on and off; prints the top 15")
    parser.add_argument("--cold", action="store_true", help="drops the page cache before each run")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    args.only = args.only.split(",") if args.only else CONTENDERS
    for name in args.only:
        if name not in CONTENDERS:
            parser.error("unknown contender '{}'".format(name))
    if not bench.GNU_TIME:
        raise SystemExit("GNU time (/usr/bin/time) is needed for peak RSS: apt-get install time")
    if args.cold and not cold_available():
        print("cold not available (cannot write /proc/sys/vm/drop_caches): runs are warm",
              file=sys.stderr)
        args.cold = False

    if not args.bin:
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, check=True)
        args.bin = os.path.join(ROOT, "target", "release", "mcp-hint-census")
    args.inflate = args.inflate or os.path.join(ROOT, "target", "release", "examples", "inflate")
    if "floor" in args.only and not os.access(args.inflate, os.X_OK):
        subprocess.run(["cargo", "build", "--release", "--example", "inflate"], cwd=ROOT, check=True)
    args.bin, args.inflate = os.path.abspath(args.bin), os.path.abspath(args.inflate)
    args.backend = bench.flate2_backend()
    label = args.label or os.path.basename(args.bin)

    with open(args.corpus, "rb") as f:
        corpus = tomllib.load(f)
    args.census = corpus["census"]
    args.terms = args.census["terms"] + args.census.get("controls", [])
    args.cache = os.path.join(WORK, "cache")
    trees, missing, clone = [], [], {}
    for t in corpus["tree"]:
        if t["repo"] not in clone:
            clone[t["repo"]] = find_clone(args.clones, t["repo"])
        (trees if clone[t["repo"]] else missing).append(t)
    if missing:
        names = sorted({t["repo"] for t in missing})
        if not args.allow_missing:
            raise SystemExit("no clone in '{}' of: {} (--allow-missing drops them)".format(
                args.clones, ", ".join(names)))
        print("dropped, no clone: {}".format(", ".join(names)), file=sys.stderr)
    lacking = {}
    for t in trees:
        path = cache_path(args.cache, t["repo"], t["commit"])
        if not os.path.isfile(path):
            print("packing {} at {}".format(t["repo"], t["commit"]), file=sys.stderr)
        pack(clone[t["repo"]], t["repo"], t["commit"], path)
        t["archive"] = path
        if os.path.isfile(path + ".missing") and t["repo"] not in lacking:
            with open(path + ".missing", "rb") as f:
                lacking[t["repo"]] = f.read().count(b"\n")
    if lacking:
        print("packed without the files their clone lacks: {}".format(", ".join(
            "{} ({})".format(r, n) for r, n in lacking.items())), file=sys.stderr)

    os.makedirs(WORK, exist_ok=True)
    work = tempfile.mkdtemp(prefix="work-", dir=WORK)
    try:
        with open(os.path.join(ROOT, "corpus.toml"), "rb") as f:
            published = {t["repo"] for t in tomllib.load(f)["tree"]}
        groups = {}
        for name in args.groups.split(","):
            mine = trees if name == "all" else [
                t for t in trees if t["repo"] in published and not t.get("subfolder")]
            if name == "census-7":
                absent = published - {t["repo"] for t in mine}
                if absent:
                    print("census-7 lacks {}".format(", ".join(sorted(absent))), file=sys.stderr)
            archives = list(dict.fromkeys(t["archive"] for t in mine))
            groups[name] = {
                "name": name, "trees": mine, "archives": archives,
                "gz": sum(os.path.getsize(a) for a in archives),
                "by_archive": {t["archive"]: t["repo"] for t in mine},
                "corpus": write_corpus(args.census, mine, os.path.join(work, name + ".toml"))}
        if args.tools_only:
            g = groups[args.groups.split(",")[0]]
            out = os.path.join(work, "tools")
            bench.run([args.bin, "census", "--offline", "--cache", args.cache, "--corpus",
                       g["corpus"], "--out", out, "--date", DATE, "-q", "--jobs", str(args.jobs)])
            report_tools(tools_table(out), label, g)
            return
        if args.per_tree:
            per_tree(trees, args, work)
            return
        rows, notes = [], {}
        for g in groups.values():
            got, note = bench_group(g, args, work)
            rows += got
            notes[g["name"]] = note
        print_table(rows, groups, args)
        if "tools" in notes.get("all", {}):
            report_tools(notes["all"]["tools"], label, groups["all"])
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def unresolved_share(path):
    """Returns {(repo, subfolder): [tools, unresolved]} of a tools table, and the
    total under ("", ""): the tree's own tools (kind tool, role source) and those
    whose hints are only `?` or `unknown` (docs/method.md, "Tool columns")."""
    hints = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]
    out = {("", ""): [0, 0]}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["kind"] != "tool" or row["role"] != "source":
                continue
            cells = [row[h] for h in hints]
            unresolved = any(c in ("?", "unknown") for c in cells) and not any(
                c in ("true", "false") for c in cells)
            for key in [(row["repo"], row["subfolder"]), ("", "")]:
                counts = out.setdefault(key, [0, 0])
                counts[0] += 1
                counts[1] += unresolved
    return out


def report_tools(table, label, group):
    path, sha, rows = table
    dest = os.path.join(WORK, "tools-{}.csv".format(label))
    shutil.copyfile(path, dest)
    print("\ntools table ({} trees): sha256 {}, {} tool rows; copied to {}".format(
        len(group["trees"]), sha, rows, os.path.relpath(dest, ROOT)))
    shares = unresolved_share(path)
    total, unresolved = shares.pop(("", ""))
    print("unresolved: {} of {} source tools ({:.1f}%); the most:".format(
        unresolved, total, 100 * unresolved / max(1, total)))
    worst = sorted(shares.items(), key=lambda kv: (-kv[1][1], kv[0]))[:10]
    for (repo, sub), (n, u) in worst:
        if u:
            name = repo + ("/" + sub if sub else "")
            print("  {:>5} of {:>5} ({:5.1f}%)  {}".format(u, n, 100 * u / n, name))
    print_name_classes(path)


CLASSES = ["read", "write", "destructive", "unknown"]


def name_classes(path):
    """Returns, per name class of the tools table at `path`, the trees' own tools
    (kind tool, role source, each distinct (repo, pin, path, line) once: subfolder
    trees of a repository share definitions), those with no hint set, and those
    declaring readOnlyHint true and false."""
    counts = {c: [0, 0, 0, 0] for c in CLASSES}
    seen = set()
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.DictReader(f):
            if row["kind"] != "tool" or row["role"] != "source":
                continue
            key = (row["repo"], row["pinned"], row["path"], row["line"], row["tool"])
            if key in seen:
                continue
            seen.add(key)
            c = counts[row["name_class"]]
            hints = [row[h] for h in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")]
            c[0] += 1
            c[1] += all(h == "" for h in hints)
            c[2] += hints[0] == "true"
            c[3] += hints[0] == "false"
    return counts


def print_name_classes(path):
    """Prints what silence costs on these trees and each class's measured precision:
    for read names the share declaring readOnlyHint true among those declaring it,
    for write and destructive names the share declaring it false."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        if "name_class" not in next(csv.reader(f), []):
            print("\nname classes: the tools table has no name_class column (a build before it)")
            return
    counts = name_classes(path)
    print("\nname classes (distinct source tools; docs/method.md, \"Name classes\"):")
    print("{:<12} {:>7} {:>16} {:>18} {:>19}  {}".format(
        "name reads", "tools", "declare nothing", "readOnlyHint true", "readOnlyHint false",
        "precision where declared"))
    for name in CLASSES:
        tools, silent, ro, not_ro = counts[name]
        agree = {"read": ro, "write": not_ro, "destructive": not_ro}.get(name)
        declared = ro + not_ro
        if agree is None:
            precision = "-"
        elif declared == 0:
            precision = "- (none declared)"
        else:
            precision = "{:.1f}% ({} of {})".format(100.0 * agree / declared, agree, declared)
        print("{:<12} {:>7} {:>16} {:>18} {:>19}  {}".format(
            name, tools, silent, ro, not_ro, precision))
    silent = sum(c[1] for c in counts.values())
    print("{} declare nothing; {} of them have read names".format(silent, counts["read"][1]))


if __name__ == "__main__":
    main()
