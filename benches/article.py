#!/usr/bin/env python3
"""The article's method, as a contender: Python's tarfile and `bytes.lower().count`.

For each archive given, reads every regular file whole and counts each term in its
lower-cased bytes; prints one JSON object per archive with the per-term totals.

Usage: article.py TERM,TERM,... ARCHIVE...
"""

import json
import sys
import tarfile


def main():
    terms = sys.argv[1].split(",")
    lowered = [t.lower().encode() for t in terms]
    for path in sys.argv[2:]:
        counts = [0] * len(terms)
        files = 0
        with tarfile.open(path, "r:gz") as tar:
            for member in tar:
                if not member.isfile():
                    continue
                data = tar.extractfile(member).read().lower()
                files += 1
                for i, term in enumerate(lowered):
                    counts[i] += data.count(term)
        print(json.dumps({"archive": path, "files_walked": files,
                          "counts": dict(zip(terms, counts))}))


if __name__ == "__main__":
    main()
