#!/usr/bin/env python3
"""Measures a survey over a simulated wide-area network: downloads apart from counts
(`census --downloads`, the default) beside downloads capped by `--jobs`, as before,
and a keep-nothing run that is killed midway and resumed.

One command, from the repository root:

    python3 benches/wan.py                    # 2,000 trees; about 4 minutes on 2 cores
    python3 benches/wan.py --no-tools         # literals only: the network's share alone
    python3 benches/wan.py --trees 200        # a quick look

It builds the release binary (unless `--bin` names one), generates (or reuses) the
small GitHub-shaped trees of `benches/scale.py` under `target/bench-data/scale`, and
serves them from a threaded HTTP server on 127.0.0.1 that this script starts and
that behaves like a distant forge:

  latency     every answer waits `--latency-ms` (default 150) before its first byte;
  bandwidth   every connection sends at most `--kib-per-s` KiB/s (default 1024);
  429         the first request for `--rate-limited` percent of the archives (default
              0.5) is answered 429 with `Retry-After: 1`;
  resets      the first request for `--resets` percent of them (default 1) sends the
              headers and half the body, then resets the connection (RST).

The faults are chosen by a hash of the archive's path, so every run meets the same
ones. Every run keeps no archive (`--no-cache`), so each downloads every tree. It
measures, with the same `--jobs`:

  capped      `--downloads` equal to `--jobs`: downloads and counts in step, as a
              census ran before downloads had a limit of their own;
  default     the default `--downloads` (16);
  resumed     the default run with `--resume`, killed (SIGKILL) once the journal
              holds half the trees, then the same command again: the rerun's time,
              its downloads, and whether its tables equal the default run's.

Reported: wall time, trees per second and peak RSS of each, and the ratio of the two
wall times. Checked: every run exits 0, every row equals the generator's oracle,
every run's tables are byte-identical to the others' (all are of the same bytes), the
rerun downloads only the trees the journal lacks, and leaves no journal. The figures
and checks go to `--json` (default `target/bench-data/wan.json`); the script exits 1
when a check failed.

Stdlib only.
"""

import argparse
import hashlib
import http.server
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import scale  # noqa: E402

DATE = scale.DATE


def fault_of(path, rate_limited, resets):
    """Returns the fault of an archive's first request: '429', 'reset' or None."""
    h = int(hashlib.sha256(path.encode()).hexdigest()[:8], 16) % 10000
    if h < rate_limited * 100:
        return "429"
    if h >= 10000 - resets * 100:
        return "reset"
    return None


class Wan:
    """Serves data/archives/{owner}/{name}/{commit} like a distant forge (see the
    module's text), counting requests and faults."""

    def __init__(self, root, latency, bytes_per_s, rate_limited, resets):
        self.reset_counts()
        lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_GET(self):
                path = self.path.split("?")[0]
                with lock:
                    outer.gets += 1
                    nth = outer.asked.get(path, 0) + 1
                    outer.asked[path] = nth
                    outer.in_flight += 1
                    outer.most = max(outer.most, outer.in_flight)
                try:
                    self.answer(path, nth)
                finally:
                    with lock:
                        outer.in_flight -= 1

            def answer(self, path, nth):
                time.sleep(latency)
                parts = path.strip("/").split("/")
                file = None
                if len(parts) == 3 and all(p and not p.startswith(".") for p in parts):
                    file = os.path.join(root, *parts)
                if file is None or not os.path.isfile(file):
                    self.send_error(404)
                    return
                fault = fault_of(path, rate_limited, resets) if nth == 1 else None
                if fault == "429":
                    with lock:
                        outer.faults["429"] += 1
                    self.send_response(429)
                    self.send_header("Retry-After", "1")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                with open(file, "rb") as f:
                    body = f.read()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if fault == "reset":
                    with lock:
                        outer.faults["reset"] += 1
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    # SO_LINGER with a zero timeout: close sends RST, not FIN.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                # The connection's bandwidth: 16 KiB at a time, paced.
                chunk = 16 * 1024
                start = time.perf_counter()
                for at in range(0, len(body), chunk):
                    self.wfile.write(body[at:at + chunk])
                    due = start + (at + chunk) / bytes_per_s
                    pause = due - time.perf_counter()
                    if pause > 0:
                        time.sleep(pause)

            def finish(self):
                try:
                    super().finish()
                except OSError:
                    pass  # the connection was reset on purpose

            def log_message(self, *args):
                pass

        class Threading(http.server.ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128

            def handle_error(self, request, client_address):
                pass  # a client that went away (a killed census) is expected

        self.httpd = Threading(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def reset_counts(self):
        self.gets, self.faults, self.asked = 0, {"429": 0, "reset": 0}, {}
        self.in_flight, self.most = 0, 0

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def argv_of(args, corpus, out, extra):
    return [args.bin, "census", "--corpus", corpus, "--out", out, "--date", DATE, "--quiet",
            "--no-cache", "--jobs", str(args.jobs), "--retries", "4"] + (
                ["--no-tools"] if args.no_tools else []) + list(extra)


def folder(path):
    """Returns {name: bytes} of the files in path."""
    out = {}
    for name in sorted(os.listdir(path)):
        with open(os.path.join(path, name), "rb") as f:
            out[name] = f.read()
    return out


def journal_trees(out):
    """Returns how many trees the journal in out holds (its lines less the head)."""
    try:
        with open(os.path.join(out, "census.journal"), "rb") as f:
            return max(0, f.read().count(b"\n") - 1)
    except OSError:
        return 0


def killed_and_resumed(args, corpus, out, server, n, checks):
    """Runs the resumable census, kills it at half the trees, reruns it; returns the
    figures."""
    extra = ["--resume"]
    argv = argv_of(args, corpus, out, extra)
    server.reset_counts()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while journal_trees(out) < n // 2 and proc.poll() is None:
        time.sleep(0.01)
    killed_at = time.perf_counter() - start
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = journal_trees(out)
    first_gets = server.gets
    checks.add("resumed: the first run was killed before it finished",
               proc.returncode == -signal.SIGKILL and kept < n,
               "exit {}, {} of {} trees journaled".format(proc.returncode, kept, n))
    server.reset_counts()
    seconds, rss, code, err = scale.run(argv)
    checks.add("resumed: the rerun exits 0", code == 0, err.strip()[-300:])
    asked = len(server.asked)
    checks.add("resumed: the rerun downloads only the trees the journal lacks",
               asked == n - kept, "{} archives asked, {} not journaled".format(asked, n - kept))
    checks.add("resumed: the rerun leaves no journal",
               not os.path.exists(os.path.join(out, "census.journal")))
    return {"killed_after_seconds": killed_at, "journaled": kept, "first_gets": first_gets,
            "rerun": {"seconds": seconds, "rss": rss, "gets": server.gets, "archives": asked,
                      "faults": dict(server.faults)}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trees", type=int, default=2000, help="trees (default 2000)")
    parser.add_argument("--jobs", type=int, default=4, help="census --jobs (default 4)")
    parser.add_argument("--downloads", type=int,
                        help="census --downloads of the default run (default: the tool's)")
    parser.add_argument("--latency-ms", type=float, default=150)
    parser.add_argument("--kib-per-s", type=float, default=1024,
                        help="bandwidth of one connection")
    parser.add_argument("--rate-limited", type=float, default=0.5,
                        help="percent of archives whose first request gets 429")
    parser.add_argument("--resets", type=float, default=1,
                        help="percent of archives whose first request is reset midway")
    parser.add_argument("--no-tools", action="store_true",
                        help="count literals only (census --no-tools): the counts' CPU out "
                        "of the way of the network's figures")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="capped,default,resumed",
                        help="comma-separated runs")
    parser.add_argument("--data", help="generated data (default target/bench-data/scale)")
    parser.add_argument("--bin", help="the mcp-hint-census binary (default: build release)")
    parser.add_argument("--json", help="where the figures go (default DATA/../wan.json)")
    args = parser.parse_args()
    runs = args.only.split(",")
    for r in runs:
        if r not in ("capped", "default", "resumed"):
            parser.error("unknown run '{}'".format(r))
    if args.trees < 2 or args.jobs < 1:
        parser.error("--trees must be at least 2 and --jobs at least 1")
    if not args.bin:
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "mcp-hint-census"],
                       cwd=ROOT, check=True)
        args.bin = os.path.join(ROOT, "target", "release", "mcp-hint-census")
    data = os.path.abspath(args.data or os.path.join(ROOT, "target", "bench-data", "scale"))
    os.makedirs(data, exist_ok=True)
    json_path = args.json or os.path.join(os.path.dirname(data), "wan.json")

    checks = scale.Checks()
    trees = scale.small_trees(data, args.trees, args.seed)
    n = len(trees)
    fig = {"machine": scale.machine(), "command": " ".join(sys.argv), "trees": n,
           "jobs": args.jobs, "no_tools": args.no_tools, "latency_ms": args.latency_ms, "kib_per_s": args.kib_per_s,
           "rate_limited_percent": args.rate_limited, "resets_percent": args.resets}
    work = tempfile.mkdtemp(prefix="wan-", dir=data)
    server = Wan(os.path.join(data, "archives"), args.latency_ms / 1000,
                 args.kib_per_s * 1024, args.rate_limited, args.resets)
    tables = {}
    try:
        corpus = os.path.join(work, "wan.toml")
        scale.write_corpus(corpus, server.port, [(t["repo"], t["pin"], None) for t in trees])
        plain = {"capped": ["--downloads", str(args.jobs)],
                 "default": [] if args.downloads is None else ["--downloads",
                                                              str(args.downloads)]}
        for label in ("capped", "default"):
            if label not in runs:
                continue
            out = os.path.join(work, label)
            server.reset_counts()
            seconds, rss, code, err = scale.run(argv_of(args, corpus, out, plain[label]))
            checks.add("{}: census exits 0".format(label), code == 0, err.strip()[-300:])
            fig[label] = {"seconds": seconds, "trees_per_second": n / seconds, "rss": rss,
                          "gets": server.gets, "faults": dict(server.faults),
                          "most_in_flight": server.most,
                          "argv": " ".join(plain[label]) or "(defaults)"}
            if code == 0:
                diff = scale.compare_rows(scale.read_rows(out), trees, label)
                checks.add("{}: every row equals the oracle".format(label), diff is None,
                           diff or "")
                tables[label] = folder(out)
        if "resumed" in runs:
            out = os.path.join(work, "resumed")
            fig["resumed"] = killed_and_resumed(args, corpus, out, server, n, checks)
            if os.path.exists(os.path.join(out, "census-{}.csv".format(DATE))):
                tables["resumed"] = folder(out)
        names = list(tables)
        for other in names[1:]:
            same = tables[other] == tables[names[0]]
            checks.add("{} tables byte-identical to {}".format(other, names[0]), same,
                       "differ in " + ", ".join(k for k in tables[names[0]]
                                                if tables[other].get(k) != tables[names[0]][k]))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    if "capped" in fig and "default" in fig:
        fig["speedup"] = fig["capped"]["seconds"] / fig["default"]["seconds"]
    fig["checks"] = checks.items
    fig["ok"] = checks.ok
    with open(json_path, "w") as f:
        json.dump(fig, f, indent=1)
    print_table(fig)
    print()
    print("{} checks, {} failed; figures in {}".format(
        len(checks.items), sum(not c["ok"] for c in checks.items), json_path))
    sys.exit(0 if checks.ok else 1)


def print_table(fig):
    mib = scale.mib
    print("| run | trees | seconds | trees/s | peak RSS MiB | note |")
    print("|---|---:|---:|---:|---:|---|")
    for label, what in (("capped", "downloads = jobs (as before)"),
                        ("default", "default --downloads")):
        m = fig.get(label)
        if m:
            print("| {} | {} | {:.1f} | {:.1f} | {} | {}: `{}`, at most {} requests in flight, "
                  "{} GETs, {} x 429, {} resets |"
                  .format(label, fig["trees"], m["seconds"], m["trees_per_second"],
                          mib(m["rss"]), what, m["argv"], m["most_in_flight"], m["gets"],
                          m["faults"]["429"], m["faults"]["reset"]))
    r = fig.get("resumed")
    if r:
        m = r["rerun"]
        print("| resumed rerun | {} | {:.1f} | | {} | killed after {:.1f} s with {} trees "
              "journaled; the rerun asked for {} archives |".format(
                  fig["trees"] - r["journaled"], m["seconds"], mib(m["rss"]),
                  r["killed_after_seconds"], r["journaled"], m["archives"]))
    if "speedup" in fig:
        print()
        print("default / capped: {:.2f}x the trees per second (--jobs {}{}, latency {:g} ms, "
              "{:g} KiB/s a connection, {:g}% 429, {:g}% resets)".format(
                  fig["speedup"], fig["jobs"], ", --no-tools" if fig["no_tools"] else "",
                  fig["latency_ms"], fig["kib_per_s"],
                  fig["rate_limited_percent"], fig["resets_percent"]))


if __name__ == "__main__":
    main()
