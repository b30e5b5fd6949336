#!/usr/bin/env python3
"""Checks that no module of src/ imports one that imports it back.

A module is a file under src/ or a folder (src/probe/ is `probe`, its files are
its submodules): the graph is drawn between the top-level modules, where layers
live, and between the submodules of each folder. Every `crate::NAME` path in a
file's code (comments and strings left out) is an edge from the file's module to
NAME. Prints each cycle and exits 1 when there is one; exits 0 otherwise.
"""
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def code_of(text):
    """Returns the text without comments, strings and character literals."""
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\])'", "''", text)
    text = re.sub(r"//[^\n]*", "", text)
    return text


def module_of(path):
    """Returns (top-level module, submodule or None) of a file under src/."""
    parts = path.relative_to(SRC).with_suffix("").parts
    if len(parts) == 1:
        return parts[0], None
    sub = parts[1] if parts[1] != "mod" else None
    return parts[0], sub


def edges():
    top, inner = {}, {}
    for path in sorted(SRC.rglob("*.rs")):
        name, sub = module_of(path)
        if name in ("main", "lib"):
            continue
        code = code_of(path.read_text(encoding="utf-8"))
        # `#[cfg(test)] mod tests` may import anything: tests sit beside the code.
        code = re.split(r"#\[cfg\(test\)\]\s*mod tests", code)[0]
        for target in re.findall(r"\bcrate::(\w+)", code):
            if target != name:
                top.setdefault(name, set()).add(target)
        if sub is not None:
            for target in re.findall(r"\bsuper::(\w+)", code):
                if target != sub:
                    inner.setdefault((name, sub), set()).add((name, target))
        # `use` lists that name siblings: `use super::{a, b}` and crate::name::sub
        for target in re.findall(r"\bcrate::%s::(\w+)" % name, code):
            if sub is not None and target != sub:
                inner.setdefault((name, sub), set()).add((name, target))
            elif sub is None:
                inner.setdefault((name, None), set()).add((name, target))
    return top, inner


def cycles(graph):
    """Returns each strongly connected component of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp, key=str))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main():
    top, inner = edges()
    found = cycles(top) + cycles(inner)
    for comp in found:
        names = [c if isinstance(c, str) else "/".join(x for x in c if x) for c in comp]
        print("cycle: " + " <-> ".join(names))
    if found:
        return 1
    print(f"deps: no cycle among {len(top)} top-level modules and their submodules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
