#!/usr/bin/env python3
"""Times the wire survey on real registry packages, beside the plain way of doing it.

One command, from the repository root, with the network to npm and PyPI:

    python3 benches/wire.py                          # the pinned list, release binary
    python3 benches/wire.py --without-uv             # the same with no uv on PATH: pip installs
    python3 benches/wire.py --servers benches/wire-servers.toml --bin target/release/mcp-hint-census

`benches/wire-servers.toml` lists the packages: MCP servers from npm and PyPI that list
their tools with no configuration, pinned at exact versions. It is the only thing in
this repository that reaches the package registries; the tests do not.

Four passes, one server at a time unless said:
  ours, install+probe   `probe --servers ONE --keep-installs` per server, in a cache the
                        pass shares (so the run's one npm and one uv cache serve every
                        server): the time to install and probe each
  ours, probe only      the same again, every install found: the time to probe each;
                        install time = the first minus this
  ours, whole run       `probe --servers ALL --jobs CORES` without --keep-installs in a
                        fresh cache, its disk sampled every 0.2 s: servers per hour per
                        core, and the most disk it held
  plain                 per server, a venv and `pip install PKG==VERSION` (PyPI) or
                        `npm install PKG@VERSION` (npm), then the official MCP Python SDK's
                        client (tests/peers/.venv, `sh tests/peers/install.sh`) listing its
                        tools; one pip cache and one npm cache for the pass, fresh at start
With --without-uv, no uv is on PATH (neither the peers' nor one of the machine's), so
the probe installs PyPI packages with pip, as on a machine without uv; the plain pass,
which never uses uv, is not run again.
Disk is `du` of each folder (a file hard-linked twice counted once). Prints a Markdown
table and writes every figure to target/bench-wire/result.json.
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "target", "bench-wire")
PEERS = os.path.join(ROOT, "tests", "peers")
# The probe date names the result files only; the run's own day, in UTC.
DATE = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")


def du(path):
    """Returns the bytes `path` takes on disk, 0 when it is not there."""
    if not os.path.exists(path):
        return 0
    out = subprocess.run(["du", "-s", "--block-size=1", path], capture_output=True, text=True)
    return int(out.stdout.split()[0]) if out.returncode == 0 and out.stdout else 0


def p90(values):
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * 9 // 10) - 1)]


def env_with_uv():
    """Returns the environment with the pinned uv of tests/peers first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.path.join(PEERS, ".venv", "bin") + os.pathsep + env.get("PATH", "")
    return env


def env_without_uv():
    """Returns the environment with no folder holding a `uv` program on PATH."""
    env = dict(os.environ)
    folders = env.get("PATH", "").split(os.pathsep)
    env["PATH"] = os.pathsep.join(
        d for d in folders if not os.access(os.path.join(d, "uv"), os.X_OK))
    return env


def write_servers(path, servers):
    with open(path, "w") as f:
        for s in servers:
            p = s["package"]
            f.write("[[server]]\nname = {}\n".format(json.dumps(s["name"])))
            f.write("package = {{ registry = {}, name = {}, version = {} }}\n".format(
                json.dumps(p["registry"]), json.dumps(p["name"]), json.dumps(p["version"])))
            if s.get("args"):
                f.write("args = {}\n".format(json.dumps(s["args"])))
            if s.get("program"):
                f.write("program = {}\n".format(json.dumps(s["program"])))
            f.write("\n")


def outcomes(out_dir):
    import csv
    path = os.path.join(out_dir, "wire-{}-servers.csv".format(DATE))
    with open(path, newline="") as f:
        return {r["server"]: (r["outcome"], r["tools"]) for r in csv.DictReader(f)}


def probe(binary, servers_file, cache, out, extra, env):
    started = time.monotonic()
    run = subprocess.run(
        [binary, "probe", "--servers", servers_file, "--date", DATE, "--cache", cache,
         "--out", out, "--timeout", "60", "--install-timeout", "900"] + extra,
        capture_output=True, text=True, env=env)
    took = time.monotonic() - started
    if run.returncode not in (0, 1):
        sys.exit("probe failed ({}): {}".format(run.returncode, run.stderr[-2000:]))
    return took


def ours_one_by_one(binary, servers, env):
    cache = os.path.join(WORK, "cache-kept")
    shutil.rmtree(cache, ignore_errors=True)
    rows = {}
    for s in servers:
        one = os.path.join(WORK, "one.toml")
        write_servers(one, [s])
        first = probe(binary, one, cache, os.path.join(WORK, "out-first"), ["--keep-installs"], env)
        again = probe(binary, one, cache, os.path.join(WORK, "out-again"), ["--keep-installs"], env)
        outcome, tools = outcomes(os.path.join(WORK, "out-first"))[s["name"]]
        rows[s["name"]] = {"install": max(first - again, 0.0), "probe": again,
                           "outcome": outcome, "tools": tools}
        print("  ours  {:34} install {:6.1f} s  probe {:5.1f} s  {} ({} tools)".format(
            s["name"], first - again, again, outcome, tools), file=sys.stderr)
    return rows, du(cache)


def ours_whole(binary, servers, cores, env):
    cache = os.path.join(WORK, "cache-run")
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache)
    whole = os.path.join(WORK, "all.toml")
    write_servers(whole, servers)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], du(cache))
            done.wait(0.2)

    sampler = threading.Thread(target=sample)
    sampler.start()
    took = probe(binary, whole, cache, os.path.join(WORK, "out-run"), ["--jobs", str(cores)], env)
    done.set()
    sampler.join()
    counts = {}
    for o, _ in outcomes(os.path.join(WORK, "out-run")).values():
        counts[o] = counts.get(o, 0) + 1
    locks = du(os.path.join(WORK, "out-run", "wire-{}-locks".format(DATE)))
    return {"seconds": took, "peak_disk": peak[0], "disk_after": du(cache),
            "locks": locks, "listed": counts.get("listed", 0), "outcomes": counts}


def npm_bin(prefix, name):
    with open(os.path.join(prefix, "node_modules", name, "package.json")) as f:
        manifest = json.load(f)
    bins = manifest.get("bin")
    if isinstance(bins, str):
        return os.path.join(prefix, "node_modules", name, bins)
    own = name.rsplit("/", 1)[-1]
    rel = bins.get(own) if own in bins else next(iter(bins.values()))
    return os.path.join(prefix, "node_modules", name, rel)


def plain(servers, env):
    base = os.path.join(WORK, "plain")
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    env = dict(env)
    env["PIP_CACHE_DIR"] = os.path.join(base, "pip-cache")
    env["npm_config_cache"] = os.path.join(base, "npm-cache")
    sdk = [os.path.join(PEERS, ".venv", "bin", "python"), os.path.join(PEERS, "sdk_list_tools.py")]
    rows = {}
    for i, s in enumerate(servers):
        p = s["package"]
        prefix = os.path.join(base, str(i))
        started = time.monotonic()
        if p["registry"] == "pypi":
            subprocess.run([sys.executable, "-m", "venv", prefix], check=True, env=env)
            done = subprocess.run([os.path.join(prefix, "bin", "pip"), "install", "--quiet",
                                   "--disable-pip-version-check",
                                   "{}=={}".format(p["name"], p["version"])],
                                  capture_output=True, text=True, env=env)
            command = [os.path.join(prefix, "bin", s.get("program") or p["name"])]
        else:
            done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel",
                                   "error", "--prefix", prefix,
                                   "{}@{}".format(p["name"], p["version"])],
                                  capture_output=True, text=True, env=env)
            command = ["node", npm_bin(prefix, p["name"])] if done.returncode == 0 else []
        installed = time.monotonic()
        tools = ""
        if done.returncode == 0:
            listed = subprocess.run(sdk + command + s.get("args", []), capture_output=True,
                                    text=True, env=env, timeout=120)
            if listed.returncode == 0:
                tools = str(len(json.loads(listed.stdout)["tools"]))
        rows[s["name"]] = {"install": installed - started, "probe": time.monotonic() - installed,
                           "disk": du(prefix), "tools": tools}
        print("  plain {:34} install {:6.1f} s  probe {:5.1f} s  {} tools".format(
            s["name"], installed - started, time.monotonic() - installed, tools or "no"),
            file=sys.stderr)
    caches = du(env["PIP_CACHE_DIR"]) + du(env["npm_config_cache"])
    return rows, caches


def per_server_stats(rows, key):
    """Returns the median and p90 of `key` over the servers' rows."""
    values = [r[key] for r in rows.values()]
    return statistics.median(values), p90(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", default=os.path.join(ROOT, "benches", "wire-servers.toml"))
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "mcp-hint-census"))
    parser.add_argument("--cores", type=int, default=os.cpu_count())
    parser.add_argument("--without-uv", action="store_true",
                        help="no uv on PATH: the probe installs PyPI packages with pip")
    args = parser.parse_args()
    with open(args.servers, "rb") as f:
        servers = tomllib.load(f)["server"]
    os.makedirs(WORK, exist_ok=True)
    env = env_without_uv() if args.without_uv else env_with_uv()
    n = len(servers)
    print("wire bench: {} servers, {} cores, uv {}".format(
        n, args.cores, "not on PATH" if args.without_uv else "on PATH"), file=sys.stderr)
    one, kept_disk = ours_one_by_one(args.bin, servers, env)
    run = ours_whole(args.bin, servers, args.cores, env)
    print("whole run's outcomes: " + ", ".join(
        "{} {}".format(k, v) for k, v in sorted(run["outcomes"].items())))
    if args.without_uv:
        with open(os.path.join(WORK, "result-without-uv.json"), "w") as f:
            json.dump({"servers": n, "cores": args.cores, "uv": False,
                       "ours": {"per_server": one, "kept_disk": kept_disk, "run": run}},
                      f, indent=2)
        oi, op = per_server_stats(one, "install"), per_server_stats(one, "probe")
        print("| no uv on PATH | probe --servers |")
        print("|---|---:|")
        print("| servers listing tools | {} of {} |".format(
            sum(1 for r in one.values() if r["outcome"] == "listed"), n))
        print("| install, median / p90 | {:.1f} s / {:.1f} s |".format(*oi))
        print("| probe, median / p90 | {:.1f} s / {:.1f} s |".format(*op))
        print("| whole run, `--jobs {}` | {:.0f} s |".format(args.cores, run["seconds"]))
        return
    base, base_caches = plain(servers, env)

    mib = 1 << 20
    result = {
        "servers": n, "cores": args.cores,
        "ours": {"per_server": one, "kept_disk": kept_disk, "run": run},
        "plain": {"per_server": base, "caches": base_caches},
    }
    with open(os.path.join(WORK, "result.json"), "w") as f:
        json.dump(result, f, indent=2)
    oi, op = per_server_stats(one, "install"), per_server_stats(one, "probe")
    bi, bp = per_server_stats(base, "install"), per_server_stats(base, "probe")
    plain_disk = (sum(r["disk"] for r in base.values()) + base_caches) / n
    plain_total = sum(r["install"] + r["probe"] for r in base.values())
    ours_total = sum(r["install"] + r["probe"] for r in one.values())
    print("| | probe --servers | plain pip/npm install + SDK client |")
    print("|---|---:|---:|")
    print("| servers listing tools | {} of {} | {} of {} |".format(
        sum(1 for r in one.values() if r["outcome"] == "listed"), n,
        sum(1 for r in base.values() if r["tools"]), n))
    print("| install, median / p90 | {:.1f} s / {:.1f} s | {:.1f} s / {:.1f} s |".format(*oi, *bi))
    print("| probe, median / p90 | {:.1f} s / {:.1f} s | {:.1f} s / {:.1f} s |".format(*op, *bp))
    print("| one server after another, total | {:.0f} s | {:.0f} s |".format(ours_total, plain_total))
    print("| whole run, `--jobs {}` | {:.0f} s: {:.0f} servers/hour/core | |".format(
        args.cores, run["seconds"], n / (run["seconds"] / 3600) / args.cores))
    print("| disk per server, kept (`--keep-installs`; plain: venvs, prefixes, caches) | {:.1f} MiB | {:.1f} MiB |".format(
        kept_disk / n / mib, plain_disk / mib))
    print("| disk per server, not kept: most held while running / left after | {:.1f} MiB / {:.2f} MiB (+ {:.1f} KiB of locks) | |".format(
        run["peak_disk"] / n / mib, run["disk_after"] / n / mib, run["locks"] / n / 1024))


if __name__ == "__main__":
    main()
