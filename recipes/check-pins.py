#!/usr/bin/env python3
"""Checks a pinned corpus's dated pins against git's own answer, in local clones.

    python3 recipes/check-pins.py MIRRORS CORPUS.toml [CORPUS.toml ...]

A dated pin is a tree with an `as_of` date (`corpus registry --since/--at`) or one
whose note says it was pinned at the end of the day its version was published (an
entry with no release tag). Its commit must be what

    git rev-list -1 --first-parent --before="DATE 23:59:59 +0000" HEAD

gives in the repository's clone under MIRRORS (`owner+name/`, the clone itself or a
git folder inside it, found by owner and name in any case, as `--mirrors` finds it).
Each repository and date is asked once. Prints one line per corpus, and each pin
that differs; exits 1 when one differs or has no clone. Reads nothing but the
corpora and the clones; runs nothing from them.

Stdlib only (Python 3.11).
"""

import os
import re
import subprocess
import sys
import tomllib

PUBLISHED = re.compile(r"at the end of (\d{4}-\d\d-\d\d) \(UTC\), the day the version was published")


def clones(root):
    """Returns owner/name in lower case -> the git folder of its clone."""
    found = {}
    for entry in sorted(os.listdir(root)):
        if "+" not in entry:
            continue
        base = os.path.join(root, entry)
        subs = sorted(os.path.join(base, d) for d in os.listdir(base)) if os.path.isdir(base) else []
        for path in [base] + subs:
            if os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects")):
                found.setdefault(entry.replace("+", "/", 1).lower(), path)
                break
    return found


def git_answer(clone, day):
    ran = subprocess.run(
        ["git", "--git-dir", clone, "rev-list", "-1", "--first-parent",
         f"--before={day} 23:59:59 +0000", "HEAD"],
        capture_output=True, text=True, check=False)
    return ran.stdout.strip() or None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mirrors = clones(sys.argv[1])
    failed = False
    for corpus in sys.argv[2:]:
        with open(corpus, "rb") as f:
            trees = tomllib.load(f).get("tree", [])
        asked, agree, differ = {}, 0, 0
        for tree in trees:
            day = tree.get("as_of")
            if day is None:
                published = PUBLISHED.search(tree.get("note", ""))
                day = published and published.group(1)
            if not day:
                continue
            key = (tree["repo"].lower(), day)
            if key in asked:
                continue
            clone = mirrors.get(key[0])
            answer = git_answer(clone, day) if clone else None
            asked[key] = answer
            if answer == tree["commit"]:
                agree += 1
            else:
                differ += 1
                print(f"{tree['repo']} {day}: pinned {tree['commit']}, git says {answer or 'nothing'}"
                      + ("" if clone else " (no clone)"))
        print(f"{corpus}: {agree} dated pins are git's answer, {differ} differ")
        failed |= differ > 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
