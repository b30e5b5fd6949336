//! Spells a set of hint values as a tool's SDK takes them, so that a suggestion can
//! be pasted into the definition (docs/method.md, "Tools": where each family reads
//! its hints); the wire's JSON where no family is known.

use crate::tools::hints::Hint;
use crate::tools::Family;

/// Returns `hints` as the annotations of a definition of `family`, or as the JSON
/// object a server sends when `family` is `None`.
pub fn annotations(family: Option<Family>, hints: &[(Hint, bool)]) -> String {
    let Some(family) = family else {
        return format!(
            "\"annotations\": {{ {} }}",
            fields(hints, "\"", "\": ", lower)
        );
    };
    match family {
        Family::TypeScript => format!("annotations: {{ {} }}", fields(hints, "", ": ", lower)),
        Family::Python => format!(
            "annotations=ToolAnnotations({})",
            fields(hints, "", "=", |v| if v { "True" } else { "False" })
        ),
        Family::Go => format!("Annotations: &mcp.ToolAnnotations{{{}}}", go_sdk(hints)),
        Family::McpGo => hints
            .iter()
            .map(|&(h, v)| format!("mcp.With{}Annotation({v})", pascal(h)))
            .collect::<Vec<_>>()
            .join(", "),
        Family::Rmcp => format!("annotations({})", snake(hints, " = ")),
        Family::CSharp => hints
            .iter()
            .map(|&(h, v)| format!("{} = {v}", pascal(h).trim_end_matches("Hint")))
            .collect::<Vec<_>>()
            .join(", "),
        Family::Java => {
            let at = |hint: Hint| {
                hints
                    .iter()
                    .find(|(h, _)| *h == hint)
                    .map_or("null".to_string(), |(_, v)| v.to_string())
            };
            format!(
                "new McpSchema.ToolAnnotations(null, {}, null)",
                Hint::ALL.map(at).join(", ")
            )
        }
        Family::Kotlin => format!(
            "annotations = ToolAnnotations({})",
            fields(hints, "", " = ", lower)
        ),
        Family::Php => format!(
            "annotations: new ToolAnnotations({})",
            fields(hints, "", ": ", lower)
        ),
        Family::Laravel => hints
            .iter()
            .map(|&(h, v)| {
                let attr = pascal(h).trim_end_matches("Hint").to_string();
                match v {
                    true => format!("#[Is{attr}]"),
                    false => format!("#[Is{attr}(false)]"),
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
        Family::Ruby => format!("annotations: {{ {} }}", snake(hints, ": ")),
        Family::Swift => format!("annotations: .init({})", fields(hints, "", ": ", lower)),
    }
}

fn lower(value: bool) -> &'static str {
    if value {
        "true"
    } else {
        "false"
    }
}

/// Returns `name: value` pairs joined by `, `, each name quoted by `quote`.
fn fields(
    hints: &[(Hint, bool)],
    quote: &str,
    between: &str,
    value: fn(bool) -> &'static str,
) -> String {
    hints
        .iter()
        .map(|&(h, v)| format!("{quote}{}{between}{}", h.name(), value(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Returns the hint's name with its first letter upper case (`ReadOnlyHint`).
fn pascal(hint: Hint) -> String {
    let name = hint.name();
    name[..1].to_ascii_uppercase() + &name[1..]
}

/// Returns `read_only_hint = true, ...`: the snake_case spelling of rmcp and Ruby.
fn snake(hints: &[(Hint, bool)], between: &str) -> String {
    hints
        .iter()
        .map(|&(h, v)| {
            let mut name = String::new();
            for c in h.name().chars() {
                if c.is_ascii_uppercase() {
                    name.push('_');
                }
                name.push(c.to_ascii_lowercase());
            }
            format!("{name}{between}{v}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Returns the Go SDK's fields: `ReadOnlyHint` and `IdempotentHint` are plain `bool`
/// (a `false` is the zero value and is left out), the other two `*bool`.
fn go_sdk(hints: &[(Hint, bool)]) -> String {
    hints
        .iter()
        .filter_map(|&(h, v)| match h {
            Hint::ReadOnly | Hint::Idempotent => v.then(|| format!("{}: true", pascal(h))),
            Hint::Destructive | Hint::OpenWorld => Some(format!("{}: ptr({v})", pascal(h))),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_spells_the_hints_its_own_way() {
        let hints = [(Hint::ReadOnly, true), (Hint::OpenWorld, false)];
        let cases = [
            (
                None,
                "\"annotations\": { \"readOnlyHint\": true, \"openWorldHint\": false }",
            ),
            (
                Some(Family::TypeScript),
                "annotations: { readOnlyHint: true, openWorldHint: false }",
            ),
            (
                Some(Family::Python),
                "annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False)",
            ),
            (
                Some(Family::Go),
                "Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}",
            ),
            (
                Some(Family::McpGo),
                "mcp.WithReadOnlyHintAnnotation(true), mcp.WithOpenWorldHintAnnotation(false)",
            ),
            (
                Some(Family::Rmcp),
                "annotations(read_only_hint = true, open_world_hint = false)",
            ),
            (Some(Family::CSharp), "ReadOnly = true, OpenWorld = false"),
            (
                Some(Family::Java),
                "new McpSchema.ToolAnnotations(null, true, null, null, false, null)",
            ),
            (Some(Family::Laravel), "#[IsReadOnly] #[IsOpenWorld(false)]"),
            (
                Some(Family::Ruby),
                "annotations: { read_only_hint: true, open_world_hint: false }",
            ),
        ];
        for (family, want) in cases {
            assert_eq!(annotations(family, &hints), want);
        }
    }
}
