#!/usr/bin/env python3
"""Checks that the modules of src/ import one way: down the layers, and never in a
circle.

Each file under src/ is a module: `src/probe/http.rs` is `probe::http`,
`src/tools/mod.rs` (or `src/tools.rs` beside a `src/tools/` folder) is `tools`
itself. Every path in a file's code (comments and strings left out) that names a
module of the crate is an edge: `crate::a::b`, `super::x` (also `super::super::`),
`self::x`, a path that starts with a child module of the file's own module
(`value::Val` in `tools/mod.rs`), and each path of a `use` list
(`use super::{lex::{self, Lexed}, Lang}`), expanded. An edge goes to the deepest
module the path names; what follows it is an item of that module
(`super::Family` from `tools/golang.rs` goes to `tools`, its `mod.rs`).

The graph is drawn in each folder between the folder's own file (its `mod.rs`)
and its children, a child folder standing as one node for every file under it:
an edge from `tools/filter/lex/python.rs` to `tools/model.rs` is `filter -> model`
in the folder `tools`; one from `tools/sdk/golang.rs` to `tools/mod.rs` is
`sdk -> mod` there. Between the top-level modules (the folders and files right
under src/) live the layers. Two rules:

- direction: each top-level module sits in one of LAYERS, lowest first, and may
  import only its own layer and those below. Each import of a module above is
  printed as `file: crate::NAME`.
- no cycle: no module imports one that imports it back, at the top level and in
  every folder. Each cycle is printed.

Exits 1 when either rule is broken, or a top-level module is in no layer; exits 0
otherwise. Test code may import anything: a
`#[cfg(test)] mod NAME { ... }` block is left out, and so is the file of a
`#[cfg(test)] mod NAME;` and every file under it. A visibility, `pub(in crate::x)`,
is no import.
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
    ["registry"],
    ["archive"],
    ["table"],
    ["report"],
    ["cli"],
    ["census", "compare", "corpus", "merge", "probe", "scan", "survey"],
]

# The node of a folder's own file in that folder's graph.
OWN = "mod"

# One token of the text that is no code, each found where it starts, as the
# compiler's lexer finds it: a `"` inside a comment opens no string, a `//`
# inside a string opens no comment, and a `\` at the end of a line in a string
# continues the string.
NOT_CODE = re.compile(
    r"//[^\n]*"
    r"|/\*(?:.|\n)*?\*/"
    r'|b?r(#*)"(?:.|\n)*?"\1'
    r'|b?"(?:\\(?:.|\n)|[^"\\])*"'
    r"|b?'(?:\\(?:.|\n)[^'\n]*|[^'\\\n])'"
)


def code_of(text):
    """Returns the text without comments, strings and character literals."""

    def blank(m):
        token = m.group(0)
        if token.startswith("/"):
            return ""
        return "''" if token.endswith("'") else '""'

    return NOT_CODE.sub(blank, text)


def module_of(path):
    """Returns a file's module path, a tuple of names: `src/tools/mod.rs` and
    `src/tools.rs` are both ("tools",)."""
    parts = path.relative_to(SRC).with_suffix("").parts
    if parts[-1] == "mod":
        parts = parts[:-1]
    return tuple(parts)


TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*([;{])")


def without_tests(code):
    """Returns the code without its `#[cfg(test)]` modules, and the names of those
    declared as files (`#[cfg(test)] mod tests;`)."""
    files = []
    while True:
        m = TEST_MOD.search(code)
        if not m:
            return code, files
        if m.group(2) == ";":
            files.append(m.group(1))
            code = code[: m.start()] + code[m.end() :]
            continue
        depth, i = 0, m.end() - 1
        while i < len(code):
            if code[i] == "{":
                depth += 1
            elif code[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        code = code[: m.start()] + code[i + 1 :]


def use_paths(tree):
    """Expands a `use` tree (the text between `use` and `;`) into its paths, each a
    list of names (`self` and `*` kept, `as` aliases dropped)."""
    tree = re.sub(r"\s+", "", re.sub(r"\bas\s+\w+", "", tree))
    out = []

    def expand(prefix, text):
        # Splits `text` at top-level commas.
        depth, start, parts = 0, 0, []
        for i, c in enumerate(text):
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == "," and depth == 0:
                parts.append(text[start:i])
                start = i + 1
        parts.append(text[start:])
        for part in filter(None, parts):
            brace = part.find("{")
            if brace < 0:
                out.append(prefix + part.split("::"))
            else:
                head = [p for p in part[:brace].split("::") if p]
                expand(prefix + head, part[brace + 1 : part.rindex("}")])

    expand([], tree)
    return out


USE = re.compile(r"\buse\s+([^;]+);")
PATH = re.compile(r"(?<![\w:])(\w+(?:\s*::\s*\w+)+)")


def references(module, code, modules):
    """Returns the crate modules `code` (of the file of `module`) names, as module
    paths."""
    # `pub(in crate::x)` says who may see an item: no import.
    code = re.sub(r"\bpub\s*\(\s*in\s+[^)]*\)", "pub", code)
    paths = [p for tree in USE.findall(code) for p in use_paths(tree)]
    rest = USE.sub(";", code)
    paths += [re.split(r"\s*::\s*", p) for p in PATH.findall(rest)]
    found = set()
    for path in paths:
        head, names = path[0], path[1:]
        if head == "crate":
            at = ()
        elif head in ("super", "self"):
            at = module
            while head in ("super", "self"):
                if head == "super":
                    at = at[:-1]
                if not names:
                    break
                head, names = names[0], names[1:]
            else:
                names = [head] + names
            if head in ("super", "self"):
                names = []
        elif module + (head,) in modules:
            at, names = module, [head] + names
        else:
            continue
        target = at
        for name in names:
            if target + (name,) not in modules:
                break
            target += (name,)
        if target:
            found.add(target)
    return found


def edges():
    """Returns the top-level graph, the graph of each folder (keyed by (folder,
    node)), and each file's imports of other top-level modules, as {path: {NAME}}."""
    files, tests = {}, set()
    for path in sorted(SRC.rglob("*.rs")):
        module = module_of(path)
        if module in (("main",), ("lib",)):
            continue
        code, test_files = without_tests(code_of(path.read_text(encoding="utf-8")))
        tests.update(module + (name,) for name in test_files)
        files[path] = (module, code)
    files = {
        p: (m, c)
        for p, (m, c) in files.items()
        if not any(m[: i + 1] in tests for i in range(len(m)))
    }
    modules = {m for m, _ in files.values()}
    top, inner, imports = {}, {}, {}
    for path, (module, code) in files.items():
        for target in references(module, code, modules):
            k = 0
            while k < min(len(module), len(target)) and module[k] == target[k]:
                k += 1
            if k == 0:
                top.setdefault(module[0], set()).add(target[0])
                imports.setdefault(path, set()).add(target[0])
                continue
            node = lambda m: m[: k + 1] if len(m) > k else m + (OWN,)
            source, dest = node(module), node(target)
            if source != dest:
                inner.setdefault(source, set()).add(dest)
    return top, inner, imports


def upward(imports):
    """Returns (path, NAME) for each import of a module in a higher layer, and the
    top-level modules that are in no layer."""
    rank = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    unplaced = set()
    found = []
    for path in sorted(imports):
        name = module_of(path)[0]
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
        for w in sorted(graph.get(v, ()), key=str):
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
    for v in sorted(graph, key=str):
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
    shown = lambda n: n if isinstance(n, str) else "/".join(n)
    for comp in found:
        print("cycle: " + " <-> ".join(shown(c) for c in comp))
        for c in comp:
            for d in sorted(top.get(c, ()) if isinstance(c, str) else inner.get(c, ()), key=str):
                if d in comp:
                    print(f"  {shown(c)} -> {shown(d)}")
    if up or unplaced or found:
        return 1
    folders = {node[:-1] for node in inner}
    print(
        f"deps: {len(top)} top-level modules in {len(LAYERS)} layers import down only,"
        f" and no module imports one that imports it back (top level and {len(folders)} folders)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
