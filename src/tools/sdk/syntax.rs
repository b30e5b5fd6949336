//! Helpers the family recognisers share over tree-sitter nodes: a walk that keeps
//! its own stack (deeply nested code cannot exhaust the thread's stack), node text,
//! lines and string literals. Nothing here knows an SDK.

use std::cell::Cell;

use tree_sitter::{Language, Node};

use super::value::MAX_STRING_BYTES;

/// One grammar's names of node kinds and of fields, read from it once: asking
/// tree-sitter for a node's kind measures and checks a C string each time, and
/// for a field by name searches the grammar's field names, which the recognisers
/// do for almost every node they meet.
pub(crate) struct Names {
    /// By kind id.
    kinds: Vec<&'static str>,
    /// By kind id: the kind is a comment's (its name holds `comment`).
    comments: Vec<bool>,
    /// Sorted by the length of the name, then the name: most steps of a search
    /// tell two names apart by their lengths alone.
    fields: Vec<(&'static str, u16)>,
}

impl Names {
    pub(crate) fn of(grammar: &Language) -> Names {
        let kinds: Vec<&'static str> = (0..grammar.node_kind_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| grammar.node_kind_for_id(id))
                    .unwrap_or("")
            })
            .collect();
        let mut fields: Vec<(&'static str, u16)> = (1..=grammar.field_count())
            .filter_map(|id| {
                let id = u16::try_from(id).ok()?;
                Some((grammar.field_name_for_id(id)?, id))
            })
            .collect();
        fields.sort_unstable_by_key(|&(name, _)| (name.len(), name));
        let comments = kinds.iter().map(|k| k.contains("comment")).collect();
        Names {
            kinds,
            comments,
            fields,
        }
    }
}

thread_local! {
    /// The names of the grammar whose tree this thread reads (see [`reading`]).
    static NAMES: Cell<Option<&'static Names>> = const { Cell::new(None) };
}

/// Makes [`Named`] answer from `names` on this thread until the guard drops: set
/// while the recognisers read a tree of that grammar.
pub(crate) fn reading(names: &'static Names) -> impl Drop {
    struct Restore(Option<&'static Names>);
    impl Drop for Restore {
        fn drop(&mut self) {
            NAMES.with(|n| n.set(self.0));
        }
    }
    Restore(NAMES.with(|n| n.replace(Some(names))))
}

/// A node's kind and fields by name, as tree-sitter's `kind` and
/// `child_by_field_name` give them, from the [`Names`] of the grammar being read
/// (from tree-sitter itself when none is set, or for a kind the table lacks, such
/// as `ERROR`).
pub(crate) trait Named<'t> {
    fn kind_name(&self) -> &'static str;
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> Named<'t> for Node<'t> {
    #[inline]
    fn kind_name(&self) -> &'static str {
        let id = usize::from(self.kind_id());
        NAMES
            .with(|n| n.get().and_then(|names| names.kinds.get(id).copied()))
            .filter(|k| !k.is_empty())
            .unwrap_or_else(|| self.kind())
    }

    #[inline]
    fn field(&self, name: &str) -> Option<Node<'t>> {
        match NAMES.with(|n| n.get()) {
            Some(names) => {
                let at = names
                    .fields
                    .binary_search_by(|(f, _)| (f.len(), *f).cmp(&(name.len(), name)))
                    .ok()?;
                self.child_by_field_id(names.fields[at].1)
            }
            None => self.child_by_field_name(name),
        }
    }
}

/// Returns the 1-based line a node starts on.
pub(crate) fn line(node: Node) -> u32 {
    u32::try_from(node.start_position().row)
        .unwrap_or(u32::MAX - 1)
        .saturating_add(1)
}

/// The 1-based line a node ends on.
fn end_line(node: Node) -> u32 {
    u32::try_from(node.end_position().row)
        .unwrap_or(u32::MAX - 1)
        .saturating_add(1)
}

/// Returns a node's source text, or "" when it is not UTF-8.
pub(crate) fn text<'a>(node: Node, src: &'a [u8]) -> &'a str {
    src.get(node.byte_range())
        .and_then(|b| std::str::from_utf8(b).ok())
        .unwrap_or("")
}

/// Calls `visit` on every named node of the tree in source order, iteratively
/// (punctuation and keywords, the anonymous nodes, are passed over).
pub(crate) fn preorder<'t>(root: Node<'t>, visit: impl FnMut(Node<'t>)) {
    preorder_within(root, |_| true, visit);
}

/// [`preorder`], passing over the nodes of the kinds `skip` lists and all they
/// hold.
pub(crate) fn preorder_skipping<'t>(root: Node<'t>, skip: &[&str], visit: impl FnMut(Node<'t>)) {
    // Punctuation and keywords, the anonymous nodes, are of no kind listed.
    preorder_within(
        root,
        |n| !n.is_named() || !skip.contains(&n.kind_name()),
        visit,
    );
}

/// [`preorder`] over the nodes `within` holds: a node it does not hold is neither
/// visited nor walked into.
fn preorder_within<'t>(
    root: Node<'t>,
    mut within: impl FnMut(Node<'t>) -> bool,
    mut visit: impl FnMut(Node<'t>),
) {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let inside = within(node);
        if inside && node.is_named() {
            visit(node);
        }
        if inside && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Loops and comprehensions, in the grammars the finder reads.
fn is_loop(kind: &str) -> bool {
    matches!(
        kind,
        "for_statement"
            | "for_in_statement"
            | "while_statement"
            | "do_statement"
            | "enhanced_for_statement"
            | "foreach_statement"
            | "for_each_statement"
            | "for_expression"
            | "while_expression"
            | "loop_expression"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}

/// Functions and lambdas, in the same grammars.
fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "arrow_function"
            | "function_expression"
            | "function"
            | "lambda"
            | "lambda_expression"
            | "lambda_literal"
            | "annotated_lambda"
            | "closure_expression"
            | "func_literal"
    )
}

/// Methods that call a function once per element.
const PER_ELEMENT: &[&str] = &[
    "forEach",
    "map",
    "flatMap",
    "each",
    "for_each",
    "ForEach",
    "Select",
    "forEachIndexed",
    "mapNotNull",
    "filter_map",
];

/// Returns the line ranges (1-based, inclusive) of code that runs once per element
/// (the bodies of loops and comprehensions, and functions passed to `forEach`, `map`
/// and the like) that hold one of `lines` (1-based, sorted): a subtree holding none
/// of them is not walked.
pub(crate) fn repeated_lines(root: Node, src: &[u8], lines: &[u32]) -> Vec<(u32, u32)> {
    let mut ranges = Vec::new();
    let holds_a_line = |node: Node| {
        let at = lines.partition_point(|&l| l < line(node));
        lines.get(at).is_some_and(|&l| l <= end_line(node))
    };
    preorder_within(root, holds_a_line, |node| {
        let kind = node.kind_name();
        if is_loop(kind) || (is_function(kind) && passed_per_element(node, src)) {
            ranges.push((line(node), end_line(node)));
        }
    });
    ranges
}

/// Returns true when a function node is an argument of a call of a per-element
/// method (`xs.forEach(f)`, `xs.map { ... }`), looking a few parents up.
fn passed_per_element(function: Node, src: &[u8]) -> bool {
    let mut cur = function;
    for _ in 0..4 {
        let Some(parent) = cur.parent() else {
            return false;
        };
        if parent.kind_name().contains("call") || parent.kind_name() == "method_invocation" {
            let callee = match parent.field("function") {
                Some(f) => text(f, src),
                // Java's `xs.forEach(...)`: the method's name field.
                None => parent.field("name").map_or("", |n| text(n, src)),
            };
            let callee = callee.split('(').next().unwrap_or("");
            let last = callee
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .find(|s| !s.is_empty())
                .unwrap_or("");
            return PER_ELEMENT.contains(&last);
        }
        cur = parent;
    }
    false
}

/// Returns the descendants of `node` (itself included) for which `want` holds, in
/// source order, looking at no more than `budget` nodes.
pub(crate) fn descendants<'t>(
    node: Node<'t>,
    budget: usize,
    mut want: impl FnMut(Node<'t>) -> bool,
) -> Vec<Node<'t>> {
    let mut found = Vec::new();
    let mut stack = vec![node];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > budget {
            break;
        }
        if want(n) {
            found.push(n);
            continue;
        }
        let mut cursor = n.walk();
        let children: Vec<Node<'t>> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    found
}

/// Returns the named children of a node that are not comments.
pub(crate) fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::with_capacity(node.named_child_count());
    let mut cursor = node.walk();
    out.extend(node.named_children(&mut cursor).filter(|c| !is_comment(c)));
    out
}

/// Returns true for a comment (a kind whose name holds `comment`), from the
/// [`Names`] being read when one is set.
fn is_comment(node: &Node) -> bool {
    let id = usize::from(node.kind_id());
    NAMES
        .with(|n| n.get().and_then(|names| names.comments.get(id).copied()))
        .unwrap_or_else(|| node.kind().contains("comment"))
}

/// Returns the value of a quoted string literal's text: the quotes (and prefixes
/// such as Python's `r`/`b`/`u`, C#'s `@`) removed, the common escapes decoded.
/// `None` for an interpolated string, an unknown escape or a string too long to be a name.
pub(crate) fn unquote(literal: &str) -> Option<String> {
    let body = literal.trim_start_matches(['r', 'R', 'b', 'B', 'u', 'U', '@']);
    let raw = body.len() != literal.len() && literal.starts_with(['r', 'R', '@']);
    let body = ["\"\"\"", "'''", "\"", "'", "`"]
        .iter()
        .find_map(|q| body.strip_prefix(q)?.strip_suffix(q))?;
    if body.len() > MAX_STRING_BYTES {
        return None;
    }
    if raw || !body.contains('\\') {
        return Some(body.to_string());
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            c @ ('\\' | '"' | '\'' | '`' | '/' | '$') => c,
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every range of code run per element, from a walk of the whole tree.
    fn every_repeated_range(root: Node, src: &[u8]) -> Vec<(u32, u32)> {
        let mut ranges = Vec::new();
        preorder(root, |node| {
            let kind = node.kind_name();
            if is_loop(kind) || (is_function(kind) && passed_per_element(node, src)) {
                let end = u32::try_from(node.end_position().row).unwrap();
                ranges.push((line(node), end + 1));
            }
        });
        ranges
    }

    #[test]
    fn repeated_lines_walks_only_toward_the_lines_and_finds_what_a_whole_walk_does() {
        let src = "for (const a of xs) {\n  f(a);\n}\nys.forEach((y) => {\n  for (;;) {\n    g(y);\n  }\n});\nconst z = zs.map(function (q) {\n  return q;\n}); while (w) { h(); }\nserver.tool(\"t\", {}, () => {});\n";
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
            .unwrap();
        let tree = parser.parse(src, None).unwrap();
        let root = tree.root_node();
        let every = every_repeated_range(root, src.as_bytes());
        assert_eq!(every.len(), 5, "{every:?}");
        let rows = u32::try_from(src.lines().count()).unwrap();
        // Each line alone, and several at once (sorted), against the whole walk.
        let mut sets: Vec<Vec<u32>> = (1..=rows + 1).map(|l| vec![l]).collect();
        sets.push(vec![2, 6, 11]);
        sets.push((1..=rows).collect());
        for lines in sets {
            let holding =
                |&(start, end): &(u32, u32)| lines.iter().any(|&l| start <= l && l <= end);
            let mut want: Vec<(u32, u32)> = every.iter().copied().filter(holding).collect();
            let mut got = repeated_lines(root, src.as_bytes(), &lines);
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want, "lines {lines:?}");
        }
    }

    #[test]
    fn unquote_reads_the_usual_literals() {
        assert_eq!(unquote("\"a_b\"").as_deref(), Some("a_b"));
        assert_eq!(unquote("'x'").as_deref(), Some("x"));
        assert_eq!(unquote("`t`").as_deref(), Some("t"));
        assert_eq!(unquote("r'a\\b'").as_deref(), Some("a\\b"));
        assert_eq!(unquote("\"a\\\"b\"").as_deref(), Some("a\"b"));
        assert_eq!(unquote("\"\\u0041\""), None);
        assert_eq!(unquote("name"), None);
    }
}
