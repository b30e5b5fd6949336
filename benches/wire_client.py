#!/usr/bin/env python3
"""Replays the wire survey's own sandboxed commands through the official MCP Python SDK client.

The question it answers: on real registry entries, does every server that the official
MCP Python SDK client lists, run in the same sandbox with the same interpreters offered,
come out of `probe --servers` listed, with the same tools and the same four hints?

One command, from the repository root, with the network to npm and PyPI, bubblewrap,
uv and `prlimit` (util-linux), and the peers installed (`sh tests/peers/install.sh`):

    python3 benches/wire_client.py                   # the saved listing, debug binary
    python3 benches/wire_client.py --bin target/release/mcp-hint-census --every 4 --seed 0

The sample, not tuned: the servers file `corpus registry --pages LISTING --packages` writes
from the registry listing saved on 2025-12-18 (by default read from the local mirror of
joelverhagen/mcp-insights at commit 5d6e951, `servers.json`; `--listing FILE` for
another), in its order; of it the entries that need no configuration (no `needs` line:
every stdio npm or PyPI package that runs as the listing gives it); of those every
`--every`-th (default 4), starting at index `--seed` (default 0). With the defaults on
the 2025-12-18 listing: 331 such entries, 83 sampled.

Steps, each a command of the tool or of the SDK, nothing computed twice:
  1. probe   `probe --servers SAMPLE --keep-installs --show-commands --python P...` for
             every interpreter P of /root/.pyenv/versions/*/bin (`--pythons GLOB`), into
             a cache of the run (target/bench-wire-client/cache, kept between runs so a
             rerun installs nothing again; `--fresh` empties it first). The probe writes
             wire-DATE-commands.jsonl: for each server it started, the bubblewrap command
             line, the environment and the resource limits it ran it with.
  2. client  for each of those servers, the official SDK client (tests/peers/.venv,
             tests/peers/sdk_list_tools.py) starts the very same command: the same argv
             under `prlimit` with the same limits, bwrap with the same launch environment
             and the server's variables handed to it on the same descriptor, nothing else,
             a hosts file of the same bytes bound where the run's own was (that one is
             removed with the run), the same time bound (`--timeout`).
  3. compare per server: listed by the client or not, the probe's outcome, the tool names,
             each tool's four hints (readOnlyHint, destructiveHint, idempotentHint,
             openWorldHint) as each read them; every difference is given a cause.
  4. cache   `probe --servers SAMPLE` again without --keep-installs in a fresh cache: the
             bytes its cache holds after the run (the bound is 256 MiB).

Prints a Markdown table and writes every row and figure to
target/bench-wire-client/result.json. `--skip-cache` leaves out step 4.
"""

import argparse
import datetime
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "target", "bench-wire-client")
PEERS = os.path.join(ROOT, "tests", "peers")
MIRROR = "/work/.mirror/joelverhagen+mcp-insights/repo"
LISTING_COMMIT = "5d6e951"
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
DATE = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")


def du(path):
    """Returns the bytes `path` takes on disk, 0 when it is not there."""
    if not os.path.exists(path):
        return 0
    out = subprocess.run(["du", "-s", "--block-size=1", path], capture_output=True, text=True)
    return int(out.stdout.split()[0]) if out.returncode == 0 and out.stdout else 0


def toml_value(value):
    """Returns `value` (a string, list or table of them) as TOML."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[{}]".format(", ".join(toml_value(v) for v in value))
    if isinstance(value, dict):
        return "{{ {} }}".format(", ".join(
            "{} = {}".format(json.dumps(k), toml_value(v)) for k, v in value.items()))
    raise ValueError("no TOML for {!r}".format(value))


def write_servers(path, entries):
    """Writes `entries` (tables of a servers file) as a servers file, every key kept."""
    with open(path, "w") as f:
        for entry in entries:
            f.write("[[server]]\n")
            for key, value in entry.items():
                f.write("{} = {}\n".format(key, toml_value(value)))
            f.write("\n")


def sample(binary, listing, every, seed):
    """Returns the sampled entries of the listing's servers file, in its order, and how
    many entries needing no configuration it holds."""
    packages = os.path.join(WORK, "packages.toml")
    run = subprocess.run(
        [binary, "corpus", "registry", "--pages", listing, "--date", "2025-12-18",
         "--out", os.path.join(WORK, "repos.toml"), "--packages", packages,
         "--shipped", os.path.join(WORK, "shipped.toml"),
         "--remotes", os.path.join(WORK, "remotes.toml")],
        capture_output=True, text=True)
    if not os.path.exists(packages):
        sys.exit("corpus registry wrote no servers file ({}): {}".format(
            run.returncode, run.stderr[-2000:]))
    with open(packages, "rb") as f:
        entries = tomllib.load(f)["server"]
    runnable = [e for e in entries if not e.get("needs")]
    return runnable[seed::every], len(runnable)


def probe(binary, servers_file, cache, out, pythons, extra, timeout, jobs):
    """Runs `probe --servers` and returns its seconds; exits when it could not run."""
    line = [binary, "probe", "--servers", servers_file, "--date", DATE, "--cache", cache,
            "--out", out, "--timeout", str(timeout), "--install-timeout", "900",
            "--jobs", str(jobs)]
    for python in pythons:
        line += ["--python", python]
    env = dict(os.environ)
    # The pinned uv of tests/peers, as the tests and benches/wire.py use it.
    env["PATH"] = os.path.join(PEERS, ".venv", "bin") + os.pathsep + env.get("PATH", "")
    started = time.monotonic()
    run = subprocess.run(line + extra, capture_output=True, text=True, env=env)
    took = time.monotonic() - started
    if run.returncode not in (0, 1):
        sys.exit("probe failed ({}): {}".format(run.returncode, run.stderr[-2000:]))
    return took


def probe_tables(out):
    """Returns the probe's servers table by server, and each server's tools as
    {name: {hint: value}} in the order listed."""
    import csv
    with open(os.path.join(out, "wire-{}-servers.csv".format(DATE)), newline="") as f:
        servers = {r["server"]: r for r in csv.DictReader(f)}
    tools = {}
    with open(os.path.join(out, "wire-{}.csv".format(DATE)), newline="") as f:
        for r in csv.DictReader(f):
            if r["tool"]:
                tools.setdefault(r["server"], []).append((r["tool"], {h: r[h] for h in HINTS}))
    return servers, tools


def replay_line(line, hosts_dir):
    """Returns the argv that starts `line`'s server as the probe started it: under
    `prlimit` with its resource limits, bwrap under `env -i` with the line's
    `launch_env` and nothing else, the server's environment handed to bwrap inside the
    walls as the line says (`--clearenv`, then `--setenv NAME VALUE` for each of `env`,
    each word NUL-terminated, on descriptor `env_fd`: a file the shell opens there),
    with a hosts file of the same bytes where the run's own was. The SDK's client adds
    the variables it inherits to the environment of what it starts: here they reach
    `env -i` only."""
    sandbox = line["sandbox"]
    if sandbox is None:
        return None
    words = [b"--clearenv"]
    for name, value in line["env"].items():
        if isinstance(value, dict):
            if value["env"] not in os.environ:
                return None
            value = value["prefix"] + os.environ[value["env"]]
        words += [b"--setenv", name.encode(), value.encode()]
    hosts = os.path.join(hosts_dir, "hosts")
    if not os.path.exists(hosts):
        with open(hosts, "w") as f:
            f.write(sandbox["hosts"]["text"])
    handed = os.path.join(hosts_dir, "env-" + hashlib.sha256(line["server"].encode()).hexdigest())
    fd = os.open(handed, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(b"".join(word + b"\0" for word in words))
    command = [hosts if word == sandbox["hosts"]["path"] else word for word in line["command"]]
    # A fresh copy of each folder the run bound a writable copy of, in its place.
    for i, writable in enumerate(sandbox.get("writable", [])):
        copy = os.path.join(hosts_dir, "writable-{}-{}".format(handed[-12:], i))
        if not os.path.exists(copy):
            shutil.copytree(writable["of"], copy, symlinks=True)
        command = [copy if word == writable["copy"] else word for word in command]
    launch = ["{}={}".format(k, v) for k, v in sandbox["launch_env"].items()]
    limits = sandbox["rlimits"]
    return (["prlimit", "--core={}".format(limits["core"]), "--data={}".format(limits["data"]),
             "--fsize={}".format(limits["fsize"]), "--", "env", "-i"] + launch
            + ["/bin/sh", "-c", 'exec "$@" {}<"$0"'.format(sandbox["env_fd"]), handed] + command)


def client(argv, timeout):
    """Lists tools with the official SDK's client over `argv`, offering what the probe
    offers by default (roots, sampling, elicitation: --callbacks); returns
    (tools or None, the error's last line, seconds)."""
    python = os.path.join(PEERS, ".venv", "bin", "python")
    script = os.path.join(PEERS, "sdk_list_tools.py")
    started = time.monotonic()
    proc = subprocess.Popen([python, script, "--callbacks"] + argv, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        return None, "timed out after {} s".format(timeout), time.monotonic() - started
    took = time.monotonic() - started
    if proc.returncode != 0:
        return None, last_error(err) or "exit {}".format(proc.returncode), took
    try:
        listed = json.loads(out)
    except ValueError:
        return None, "no JSON on stdout: {!r}".format(out[:200]), took
    return listed["tools"], "", took


def last_error(stderr):
    """Returns the innermost exception a Python traceback on `stderr` names, without
    the frames of an exception group around it; else its last line."""
    found = ""
    for line in stderr.splitlines():
        text = line.strip(" |+-")
        head = text.split(":", 1)[0]
        if head.endswith(("Error", "Exception", "Exit", "Interrupt")) and " " not in head \
                and not head.endswith("ExceptionGroup"):
            found = text
    lines = [l.strip() for l in stderr.splitlines() if l.strip(" |+-")]
    return found or (lines[-1] if lines else "")


def sdk_hint(annotations, hint):
    """Returns the SDK's reading of a hint in the probe's words: true, false, absent."""
    value = (annotations or {}).get(hint)
    return "absent" if value is None else ("true" if value else "false")


def is_listed(outcome):
    """Returns true for the probe's outcomes of a server that listed its tools: as
    the entry gives it, or with placeholders for what it requires."""
    return outcome in ("listed", "listed with placeholders")


def compare(name, row, probed, listed, error):
    """Returns (is_equal, cause) for one server: the cause of the difference, empty
    when both agree."""
    outcome = row["outcome"]
    if listed is None and not is_listed(outcome):
        return True, ""
    if listed is None:
        return False, "client failed, probe listed: " + error
    if not is_listed(outcome):
        return False, "probe {}, client listed".format(outcome)
    ours = [t for t, _ in probed]
    theirs = [t["name"] for t in listed]
    if ours != theirs:
        if sorted(ours) == sorted(theirs):
            return False, "same tools, another order"
        return False, "tool names differ: probe only {}, client only {}".format(
            sorted(set(ours) - set(theirs))[:5], sorted(set(theirs) - set(ours))[:5])
    for (tool, hints), theirs in zip(probed, listed):
        for hint in HINTS:
            sdk = sdk_hint(theirs.get("annotations"), hint)
            if hints[hint] != sdk:
                if hints[hint] == "invalid":
                    return False, "{}.{}: invalid for the probe, {} as the SDK coerces it".format(
                        tool, hint, sdk)
                return False, "{}.{}: probe {}, client {}".format(tool, hint, hints[hint], sdk)
    return True, ""


def listing_file(path):
    """Returns the listing to read: `path`, else servers.json of the mirror's commit,
    saved under the run's folder."""
    if path:
        return path
    saved = os.path.join(WORK, "servers.json")
    run = subprocess.run(["git", "-C", MIRROR, "show", "{}:servers.json".format(LISTING_COMMIT)],
                         capture_output=True)
    if run.returncode != 0:
        sys.exit("reading servers.json at {} of {}: {}".format(
            LISTING_COMMIT, MIRROR, run.stderr.decode(errors="replace").strip()))
    with open(saved, "wb") as f:
        f.write(run.stdout)
    return saved


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "debug", "mcp-hint-census"))
    parser.add_argument("--listing", help="a saved registry listing (default: the mirror's)")
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0, help="the index the sample starts at")
    parser.add_argument("--pythons", default="/root/.pyenv/versions/*/bin/python3")
    parser.add_argument("--timeout", type=int, default=60, help="seconds, probe and client alike")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--fresh", action="store_true", help="empty the kept installs first")
    parser.add_argument("--skip-cache", action="store_true", help="leave out step 4")
    args = parser.parse_args()
    binary = os.path.abspath(args.bin)
    os.makedirs(WORK, exist_ok=True)
    pythons = sorted(glob.glob(args.pythons))

    entries, runnable = sample(binary, listing_file(args.listing), args.every, args.seed)
    servers_file = os.path.join(WORK, "sample.toml")
    write_servers(servers_file, entries)
    print("sample: {} of {} entries needing no configuration (every {}, from {})".format(
        len(entries), runnable, args.every, args.seed), file=sys.stderr)

    # 1. The probe, its installs kept for the client and its commands written.
    cache = os.path.join(WORK, "cache")
    if args.fresh:
        shutil.rmtree(cache, ignore_errors=True)
    out = os.path.join(WORK, "out")
    shutil.rmtree(out, ignore_errors=True)
    probe_seconds = probe(binary, servers_file, cache, out, pythons,
                          ["--keep-installs", "--write-commands"], args.timeout, args.jobs)
    servers, tools = probe_tables(out)
    with open(os.path.join(out, "wire-{}-commands.jsonl".format(DATE))) as f:
        lines = {l["server"]: l for l in map(json.loads, f)}

    # 2. The client, on the very same commands.
    from concurrent.futures import ThreadPoolExecutor
    hosts_dir = tempfile.mkdtemp(prefix="wire-client-hosts-")

    def one(name):
        line = lines.get(name)
        argv = replay_line(line, hosts_dir) if line else None
        if argv is None:
            return name, None, "not started by the probe", 0.0, False
        listed, error, took = client(argv, args.timeout)
        return name, listed, error, took, True

    with ThreadPoolExecutor(args.jobs) as pool:
        replays = {name: rest for name, *rest in pool.map(one, [e["name"] for e in entries])}
    shutil.rmtree(hosts_dir, ignore_errors=True)

    # 3. Server by server.
    rows = []
    for entry in entries:
        name = entry["name"]
        row = servers[name]
        listed, error, took, started = replays[name]
        probed = tools.get(name, [])
        equal, cause = compare(name, row, probed, listed, error)
        rows.append({
            "server": name, "registry": entry["package"]["registry"],
            "package": "{}@{}".format(entry["package"]["name"], entry["package"]["version"]),
            "probe_outcome": row["outcome"], "probe_tools": len(probed),
            "probe_error": row["error"],
            "python": row["python"], "client_started": started,
            "client_listed": listed is not None,
            "client_tools": len(listed) if listed is not None else None,
            "client_error": error if listed is None else "", "client_seconds": round(took, 1),
            "equal": equal, "cause": cause,
            "tools": {"probe": [{"name": t, **h} for t, h in probed],
                      "client": [{"name": t["name"], **{h: sdk_hint(t.get("annotations"), h)
                                                       for h in HINTS}} for t in listed or []]},
        })

    # 4. The cache a run leaves without --keep-installs.
    cache_after = None
    if not args.skip_cache:
        fresh = os.path.join(WORK, "cache-run")
        shutil.rmtree(fresh, ignore_errors=True)
        os.makedirs(fresh)
        run_out = os.path.join(WORK, "out-run")
        shutil.rmtree(run_out, ignore_errors=True)
        seconds = probe(binary, servers_file, fresh, run_out, pythons, [], args.timeout, args.jobs)
        run_servers, _ = probe_tables(run_out)
        cache_after = {"bytes": du(fresh), "seconds": round(seconds, 1),
                       "listed": sum(1 for r in run_servers.values() if is_listed(r["outcome"]))}

    from collections import Counter
    outcomes = Counter(r["probe_outcome"] for r in rows)
    figures = {
        "sampled": len(rows), "runnable_in_listing": runnable,
        "every": args.every, "seed": args.seed, "pythons": pythons,
        "probe_seconds": round(probe_seconds, 1),
        "probe_outcomes": dict(outcomes.most_common()),
        "too_large": outcomes.get("too large", 0),
        "installed": sum(1 for r in rows if r["client_started"]),
        "client_listed": sum(1 for r in rows if r["client_listed"]),
        "probe_listed": sum(1 for r in rows if is_listed(r["probe_outcome"])),
        "both_listed": sum(1 for r in rows
                           if r["client_listed"] and is_listed(r["probe_outcome"])),
        "equal_tools_and_hints": sum(1 for r in rows if r["client_listed"] and r["equal"]),
        "client_listed_probe_not": sum(1 for r in rows
                                       if r["client_listed"] and not is_listed(r["probe_outcome"])),
        "probe_listed_client_not": sum(1 for r in rows
                                       if not r["client_listed"] and is_listed(r["probe_outcome"])),
        "differences": dict(Counter(r["cause"].split(":")[0] for r in rows if not r["equal"])),
        "cache_after_run": cache_after,
    }
    with open(os.path.join(WORK, "result.json"), "w") as f:
        json.dump({"date": DATE, "figures": figures, "servers": rows}, f, indent=1)

    print("| server | probe | client | tools (probe/client) | same | cause |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        client_cell = ("listed" if r["client_listed"] else
                       ("not started" if not r["client_started"] else "failed: " + r["client_error"]))
        print("| {} | {} | {} | {}/{} | {} | {} |".format(
            cell(r["server"]), cell(r["probe_outcome"]), cell(client_cell[:80]), r["probe_tools"],
            "" if r["client_tools"] is None else r["client_tools"],
            "yes" if r["equal"] else "no", cell(r["cause"][:120])))
    print()
    for key, value in figures.items():
        print("- {}: {}".format(key, value))


if __name__ == "__main__":
    main()
