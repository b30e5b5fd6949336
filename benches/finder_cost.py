#!/usr/bin/env python3
"""Runs two builds of the tool side by side on folders of real trees and prints ratios.

    python3 benches/finder_cost.py --old OLD_BIN --new NEW_BIN --trees DIR [--rounds 2]

Each folder of DIR is one extracted tree (benches/real-trees.toml's, at their pins).
For each round, each build runs `scan TREE` and `scan --tools TREE` over every tree,
alternating, so that a noisy machine weighs on both alike; the best wall and CPU time of
each are compared, new against old.
"""
import argparse
import os
import resource
import subprocess
import time


def run(binary, extra, trees):
    """Returns the wall and CPU seconds of scanning every tree once."""
    start = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for tree in trees:
        subprocess.run([binary, "scan"] + extra + [tree],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return time.time() - start, cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--trees", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    trees = sorted(os.path.join(args.trees, d) for d in os.listdir(args.trees))
    best = {}
    for _ in range(args.rounds):
        for name, binary in [("old", args.old), ("new", args.new)]:
            for mode, extra in [("scan --tools", ["--tools"]), ("scan", [])]:
                wall, cpu = run(binary, extra, trees)
                old = best.get((name, mode), (wall, cpu))
                best[(name, mode)] = (min(old[0], wall), min(old[1], cpu))
    print("{} trees".format(len(trees)))
    for mode in ["scan --tools", "scan"]:
        (ow, oc), (nw, nc) = best[("old", mode)], best[("new", mode)]
        print("{:13} old {:.2f} s wall {:.2f} s CPU, new {:.2f} s {:.2f} s: {:.2f}x wall, {:.2f}x CPU"
              .format(mode, ow, oc, nw, nc, nw / ow, nc / oc))


if __name__ == "__main__":
    main()
