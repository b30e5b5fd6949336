#!/usr/bin/env python3
"""Reads a survey's repositories from local mirrors (bare clones) where the forge is
not reached: a git configuration that points each GitHub URL of a listing at its
mirror, for `corpus registry` to pin through, and the pinned commits packed from the
mirrors into a census cache, for `census --offline` to count. It counts nothing.

    python3 recipes/mirrors.py gitconfig servers.json MIRRORS > mirrors.gitconfig
    GIT_CONFIG_GLOBAL=mirrors.gitconfig mcp-hint-census corpus registry --pages servers.json ...
    python3 recipes/mirrors.py archives repos.toml MIRRORS CACHE
    mcp-hint-census census --corpus repos.toml --offline --cache CACHE ...

MIRRORS holds one bare clone per repository, as `owner+name/<git dir>` (or the git
dir itself at `owner+name`), found ASCII case-insensitively. `gitconfig` writes one
`url.<mirror>.insteadOf = https://github.com/owner/name` per spelling of a
repository the listing names (git takes the longest prefix that matches, so
`owner/name` never stands in for `owner/name-two`); a repository with no mirror is
pointed at the relative folder `no-mirror/owner+name`, which does not exist, so
that its pinning fails, naming no folder of this machine, and never reaches for the
forge. `archives` packs each
[[tree]]'s commit as `git archive --format=tar.gz --prefix=NAME-COMMIT/ COMMIT`
makes it (a pax global header naming the commit, which the census checks against
the pin) into `CACHE/owner/name/COMMIT.tar.gz` with its `.sha256`, as the census
caches a download; a tree whose mirror or commit is missing is named on stderr and
left out, and the census then says it is not in the cache, and why: beside it,
`COMMIT.tar.gz.why` names the files whose blobs the mirror lacks (a snapshot without
its largest files), since a tree counted without some of its files would be a
partial count.

Stdlib only (Python 3.11).
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib

GITHUB = re.compile(r"https?://(?:www\.)?github\.com/([^/\s]+)/([^/\s#?]+)", re.IGNORECASE)


def is_git_dir(path):
    return os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))


def mirrors_of(root):
    """Returns owner/name, lower case → the git dir of its mirror."""
    found = {}
    for entry in os.listdir(root):
        if "+" not in entry:
            continue
        base = os.path.join(root, entry)
        candidates = [base] + [os.path.join(base, d) for d in sorted(os.listdir(base))
                               if os.path.isdir(os.path.join(base, d))]
        for path in candidates:
            if is_git_dir(path):
                found[entry.replace("+", "/", 1).lower()] = os.path.abspath(path)
                break
    return found


def gitconfig(listing, root):
    with open(listing, "rb") as f:
        records = json.loads(f.read().decode("utf-8-sig"))
    if isinstance(records, dict):
        records = records.get("servers", [])
    mirrors = mirrors_of(root)
    spellings = set()
    for record in records:
        server = record.get("server", {})
        url = (server.get("repository") or {}).get("url") or ""
        match = GITHUB.match(url.strip())
        if match:
            owner, name = match.group(1), re.sub(r"\.git$", "", match.group(2))
            spellings.add((owner, name))
    lines = ["# url.<mirror>.insteadOf, written by recipes/mirrors.py gitconfig"]
    missing = 0
    for owner, name in sorted(spellings):
        mirror = mirrors.get("{}/{}".format(owner, name).lower())
        if mirror is None:
            # A folder that does not exist: its pinning fails here, naming it,
            # instead of reaching for the forge.
            missing += 1
            # Relative, so that the error naming it names no folder of this machine.
            mirror = "no-mirror/{}+{}".format(owner, name)
        lines.append('[url "{}"]'.format(mirror))
        lines.append("\tinsteadOf = https://github.com/{}/{}".format(owner, name))
    print("\n".join(lines))
    print("{} spellings of GitHub repositories, {} without a mirror".format(
        len(spellings), missing), file=sys.stderr)


def why(mirror, commit, said):
    """Returns in one line why `git archive` could not pack `commit`: the files of its
    tree whose blobs the mirror lacks (a snapshot without its largest files), else
    git's own last line."""
    listed = subprocess.run(["git", "--git-dir", mirror, "ls-tree", "-r", "-z", commit],
                            capture_output=True)
    entries = [e for e in listed.stdout.split(b"\0") if b"\t" in e]
    blobs = [(e.split(b"\t", 1)[0].split()[2].decode(), e.split(b"\t", 1)[1]) for e in entries
             if e.split()[1] == b"blob"]
    asked = "".join(oid + "\n" for oid, _ in blobs).encode()
    checked = subprocess.run(["git", "--git-dir", mirror, "cat-file", "--batch-check"],
                             input=asked, capture_output=True)
    absent = {line.split()[0].decode() for line in checked.stdout.splitlines()
              if line.endswith(b" missing")}
    lacking = [path.decode(errors="replace") for oid, path in blobs if oid in absent]
    if lacking:
        return "its mirror lacks {} of the commit's {} files, the first '{}'".format(
            len(lacking), len(blobs), lacking[0])
    last = said.splitlines()[-1] if said else "git archive failed"
    return "git archive failed: {}".format(last)


def archives(corpus, root, cache):
    with open(corpus, "rb") as f:
        trees = tomllib.load(f).get("tree", [])
    mirrors = mirrors_of(root)
    packed = skipped = 0
    done = set()
    for tree in trees:
        repo, commit = tree["repo"], tree["commit"].lower()
        if (repo.lower(), commit) in done:
            continue
        done.add((repo.lower(), commit))
        owner, name = repo.split("/", 1)
        target = os.path.join(cache, owner, name, commit + ".tar.gz")
        if os.path.exists(target + ".sha256"):
            packed += 1
            continue
        mirror = mirrors.get(repo.lower())
        if mirror is None:
            print("no mirror of {}".format(repo), file=sys.stderr)
            skipped += 1
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        made = subprocess.run(
            ["git", "--git-dir", mirror, "archive", "--format=tar.gz",
             "--prefix={}-{}/".format(name, commit[:7]), commit],
            capture_output=True)
        if made.returncode != 0:
            said = made.stderr.decode(errors="replace").strip()
            print("{}@{}: {}".format(repo, commit, said), file=sys.stderr)
            # Why, beside where the archive would be, for the census's row.
            with open(target + ".why", "w") as f:
                f.write(why(mirror, commit, said) + "\n")
            skipped += 1
            continue
        with open(target, "wb") as f:
            f.write(made.stdout)
        with open(target + ".sha256", "w") as f:
            f.write(hashlib.sha256(made.stdout).hexdigest() + "\n")
        packed += 1
    print("{} archives in {}, {} trees left out".format(packed, cache, skipped), file=sys.stderr)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "gitconfig":
        gitconfig(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "archives":
        archives(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
