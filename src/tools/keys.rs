//! The one table of the keys that make an object a tool: the tool-shaped object
//! literal (`{ name, inputSchema, execute }`, `{ name, annotations: { readOnlyHint } }`)
//! and the tool class (`class X extends Tool { name = ...; execute() {} }`). The
//! TypeScript lexer and the prefilter decide from these keys which files to parse,
//! and the TypeScript recogniser records a definition from the same keys, so the
//! filter never drops a file the recogniser would have read (docs/method.md,
//! "Tools": "What is parsed").

use super::hints::Hint;

/// The key that names the tool.
pub(super) const NAME: &str = "name";

/// The key whose object holds the hints.
pub(super) const ANNOTATIONS: &str = "annotations";

/// The keys of a tool's input schema.
pub(super) const SCHEMA: [&str; 3] = ["inputSchema", "schema", "parameters"];

/// Returns true for a key whose object-literal value is a tool's input or output
/// schema, which the recogniser reads as a schema without reading inside it, and
/// the parse may leave out (see `lex::typescript`).
pub(super) fn is_schema(key: &[u8]) -> bool {
    key == b"outputSchema" || is_one_of(key, &SCHEMA)
}

/// Returns true for the callee of Zod's object schema, `z.object`, `zod.object`
/// (`strictObject`, `looseObject`; `zod_1.z.object` as tsc compiles it), white
/// space around the dots allowed: the recogniser reads its arguments as nothing it
/// knows (a schema's content is never read), and the parse may leave out the
/// object literal it is first given (see `lex::typescript`).
pub(super) fn is_zod_object(callee: &[u8]) -> bool {
    let mut parts = callee.rsplit(|&b| b == b'.').map(<[u8]>::trim_ascii);
    matches!(
        parts.next(),
        Some(b"object" | b"strictObject" | b"looseObject")
    ) && matches!(parts.next(), Some(b"z" | b"zod"))
}

/// The keys of the function that runs a tool.
pub(super) const HANDLER: [&str; 5] = ["handler", "handle", "execute", "run", "callback"];

/// The fields beside its name that make a class whose base names `Tool` a tool:
/// something to run, a schema, or annotations.
pub(super) const CLASS: [&str; 11] = [
    "execute",
    "handler",
    "handle",
    "run",
    "call",
    "invoke",
    "schema",
    "inputSchema",
    "argsShape",
    "parameters",
    "annotations",
];

/// A type a TypeScript constant or function is declared with that says it gives a
/// tool, or a list of tools (see [`tool_type`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ToolType {
    /// `Tool[]`, `Array<Tool>`: a list.
    pub(super) is_list: bool,
    /// A type of the project's own whose name holds `Tool` (`ToolDefinition`), not
    /// the SDK's `Tool`: its object is a tool only with the protocol's `inputSchema`
    /// key, which no other kind of tool (a model's function, a tool call) spells.
    pub(super) is_own: bool,
}

/// Returns the tool type a declared type is written as (its white space left out,
/// a leading `:` and `readonly` too): the SDK's `Tool` (`types.Tool`), or a project's own type
/// whose name holds `Tool` (`ToolDefinition`, `McpTool`), alone or as a list
/// (`Tool[]`, `Array<Tool>`), each maybe in a `Promise<...>`. The recogniser reads the
/// object or array a constant or a function of that type gives, and the skimmer
/// keeps such a function's body in the parse, both by this reading.
pub(super) fn tool_type(written: &[u8]) -> Option<ToolType> {
    let written = written.trim_ascii();
    let written = written
        .strip_prefix(b":")
        .unwrap_or(written)
        .trim_ascii_start();
    // `readonly Tool[]`: the list's elements are read alike.
    let written = match written.strip_prefix(b"readonly") {
        Some(rest) if rest.first().is_some_and(u8::is_ascii_whitespace) => rest,
        _ => written,
    };
    let written: Vec<u8> = written
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let written = written.as_slice();
    let inner = written
        .strip_prefix(b"Promise<")
        .and_then(|w| w.strip_suffix(b">"))
        .unwrap_or(written);
    let element = inner.strip_suffix(b"[]").or_else(|| {
        inner
            .strip_prefix(b"Array<")
            .and_then(|w| w.strip_suffix(b">"))
    });
    let is_list = element.is_some();
    let element = element.unwrap_or(inner);
    // A project's own type may take type arguments (`ToolDefinition<typeof In, typeof
    // Out>`, as cyanheads' template declares each tool); the SDK's `Tool` takes none.
    let element = match element.iter().position(|&b| b == b'<') {
        Some(open) if element.ends_with(b">") => {
            let base = &element[..open];
            match base.rsplit(|&b| b == b'.').next() {
                Some(b"Tool") => return None,
                _ => base,
            }
        }
        _ => element,
    };
    if element.is_empty()
        || !element
            .iter()
            .all(|&b| b == b'.' || b == b'_' || b == b'$' || b.is_ascii_alphanumeric())
    {
        return None;
    }
    let name = element.rsplit(|&b| b == b'.').next().unwrap_or(element);
    let is_own = name != b"Tool";
    (!is_own || memchr::memmem::find(name, b"Tool").is_some())
        .then_some(ToolType { is_list, is_own })
}

/// Returns true when `key` is one of `keys`, compared byte for byte.
pub(super) fn is_one_of(key: &[u8], keys: &[&str]) -> bool {
    keys.iter().any(|k| k.as_bytes() == key)
}

/// Returns true when `key` names one of the four hints (`readOnlyHint`).
pub(super) fn is_hint(key: &[u8]) -> bool {
    Hint::ALL.iter().any(|h| h.name().as_bytes() == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Returns the backquoted words of the first parenthesis after `after` in the
    /// finder's table of docs/method.md.
    fn listed_after(after: &str) -> Vec<&'static str> {
        let method = include_str!("../../docs/method.md");
        let (_, rest) = method
            .split_once(after)
            .expect("docs/method.md has the phrase");
        let inside = rest.split_once('(').map_or("", |(_, r)| r);
        let inside = inside.split(')').next().unwrap_or_default();
        inside.split('`').skip(1).step_by(2).collect()
    }

    #[test]
    fn the_keys_in_the_method_are_the_keys_read() {
        assert_eq!(listed_after("something to run or a schema"), CLASS);
        assert_eq!(listed_after("beside a schema"), SCHEMA);
        let mut handler = listed_after("and a handler");
        let mut read = HANDLER.to_vec();
        handler.sort_unstable();
        read.sort_unstable();
        assert_eq!(handler, read);
    }

    #[test]
    fn a_tool_type_is_the_sdks_or_a_name_holding_tool_alone_or_listed() {
        let t = |w: &str| tool_type(w.as_bytes()).map(|t| (t.is_list, t.is_own));
        assert_eq!(t(": Tool[]"), Some((true, false)));
        assert_eq!(t("Promise< Array<types.Tool> >"), Some((true, false)));
        assert_eq!(t(":Tool"), Some((false, false)));
        assert_eq!(t(": ToolDefinition[]"), Some((true, true)));
        assert_eq!(t("Promise<McpTool>"), Some((false, true)));
        assert_eq!(t("readonly Tool[]"), Some((true, false)));
        assert_eq!(t(": readonly NeonToolDefinition[]"), Some((true, true)));
        // A project's own type with type arguments; the SDK's `Tool` takes none.
        assert_eq!(
            t(": ToolDefinition<\n  typeof InputSchema,\n  typeof OutputSchema\n>"),
            Some((false, true))
        );
        assert_eq!(t("Array<McpTool<A>>"), Some((true, true)));
        for none in [
            ": string[]",
            ": Tools | undefined",
            ": Record<string, Tool>",
            ": Array<Tool",
            ": Tool<any, any>[]",
            ": types.Tool<X>",
            ": Map<string, ToolDefinition>",
            "",
        ] {
            assert_eq!(t(none), None, "{none}");
        }
    }
}
