#!/usr/bin/env python3
"""Checks that the modules of src/ import one way: down the layers, and never in a
circle.

A module is a file under src/ or a folder (src/probe/ is `probe`, its files are
its submodules): the graph is drawn between the top-level modules, where layers
live, and between the submodules of each folder. Every `crate::NAME` path in a
file's code (comments and strings left out) is an edge from the file's module to
NAME. Two rules:

- direction: each top-level module sits in one of LAYERS, lowest first, and may
  import only its own layer and those below. Each import of a module above is
  printed as `file: crate::NAME`.
- no cycle: no module imports one that imports it back. Each cycle is printed.

Exits 1 when either rule is broken, or a top-level module is in no layer; exits 0
otherwise. Tests inside `#[cfg(test)] mod tests` may import anything.
"""
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

# The layers, lowest first (docs/layout.md). `infra` is what every layer shares;
# then the stages, in the order their imports allow: the inputs drive the sink in
# `count`, which feeds the finder in `tools`, so both sit below the readers
# (`fetch`, `archive`) although their bytes come after; `table` holds the rows
# and `report` formats them. `cli` parses into the stages' types; the commands sit
# on top and may import each other (the cycle rule still holds among them).
LAYERS = [
    ["infra"],
    ["tools"],
    ["lint"],
    ["count"],
    ["fetch"],
    ["archive"],
    ["table"],
    ["report"],
    ["cli"],
    ["census", "compare", "corpus", "merge", "probe", "scan"],
]


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
    """Returns the top-level graph, the graph inside each folder, and each file's
    `crate::NAME` imports of other top-level modules, as {path: {NAME}}."""
    top, inner, imports = {}, {}, {}
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
                imports.setdefault(path, set()).add(target)
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
    return top, inner, imports


def upward(imports):
    """Returns (path, NAME) for each import of a module in a higher layer, and the
    top-level modules that are in no layer."""
    rank = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    unplaced = set()
    found = []
    for path in sorted(imports):
        name, _ = module_of(path)
        for target in sorted(imports[path]):
            for m in (name, target):
                if m not in rank:
                    unplaced.add(m)
            if name in rank and target in rank and rank[target] > rank[name]:
                found.append((path, target))
    return found, sorted(unplaced)


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
    top, inner, imports = edges()
    up, unplaced = upward(imports)
    for path, target in up:
        print(f"{path.relative_to(SRC.parent)}: crate::{target}")
    if up:
        order = " < ".join("/".join(layer) for layer in LAYERS)
        print(f"deps: imports that point up the layers ({order}): {len(up)}")
    for name in unplaced:
        print(f"deps: module '{name}' is in no layer; add it to LAYERS in .ci/deps.py")
    found = cycles(top) + cycles(inner)
    for comp in found:
        names = [c if isinstance(c, str) else "/".join(x for x in c if x) for c in comp]
        print("cycle: " + " <-> ".join(names))
    if up or unplaced or found:
        return 1
    print(
        f"deps: {len(top)} top-level modules in {len(LAYERS)} layers import down only,"
        " and no module or submodule imports one that imports it back"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
