//! What a probe prints for a person about one listing: its warnings, the table of
//! what each tool declares (and what a client resolves where it declares nothing
//! usable) and the summary under it. Every text from the server is escaped.
//!
//! A single listing and a watch print the same; the command's `mod.rs` and `watch`
//! both call it, so it imports neither.

use std::collections::HashSet;

use anyhow::Result;
use serde_json::Value;

use super::hints::{Declared, ToolHints};
use super::session::{self, Listing};
use crate::infra::messages;
use crate::infra::out::Out;
use crate::infra::sanitize::sanitize;
use crate::report::{self, Align};
use crate::tools::hints::Hint;

/// Prints the warnings, the table and the summary of a listing, as a probe without
/// files or gate does.
pub(super) fn show(listing: &Listing, out: &mut Out) -> Result<()> {
    let tools: Vec<ToolHints> = listing.tools.iter().map(ToolHints::from_tool).collect();
    for warning in warnings(listing, &tools) {
        messages::warning(warning);
    }
    out.print(&table(&tools))?;
    out.print(&summary(listing, &tools))
}

/// Lists the shapes worth a second look; none of them fails the probe.
pub(super) fn warnings(listing: &Listing, tools: &[ToolHints]) -> Vec<String> {
    let mut out = listing.warnings.clone();
    if tools.is_empty() {
        out.push("the server lists no tools".to_string());
    }
    let mut seen = HashSet::new();
    for (index, tool) in tools.iter().enumerate() {
        let name = sanitize(&tool.name);
        let raw_name = listing.tools.get(index).and_then(|t| t.get("name"));
        if tool.name.is_empty() {
            out.push(format!("tool {} of {} has no name", index + 1, tools.len()));
        } else if !matches!(raw_name, Some(Value::String(_))) {
            out.push(format!(
                "tool {} of {} is named {name}, which is not a string",
                index + 1,
                tools.len()
            ));
        }
        if !tool.name.is_empty() && !seen.insert(tool.name.as_str()) {
            out.push(format!("tool '{name}' is listed more than once"));
        }
        if tool.is_read_only_and_destructive() {
            out.push(format!(
                "tool '{name}' is declared both read-only and destructive"
            ));
        }
        for hint in Hint::ALL {
            if let Declared::Invalid(raw) = tool.declared(hint) {
                out.push(format!(
                    "tool '{name}' declares {} as {}, not a boolean; it counts as omitted",
                    hint.name(),
                    sanitize(raw)
                ));
            }
        }
    }
    out
}

/// Returns a resolved value as a cell: `true`, `false` or `n/a`.
pub(super) fn resolved_cell(value: Option<bool>) -> &'static str {
    match value {
        Some(true) => "true",
        Some(false) => "false",
        None => "n/a",
    }
}

/// Returns the omitted hints joined with `;`, empty when none.
pub(super) fn omits_cell(tool: &ToolHints) -> String {
    tool.omits()
        .iter()
        .map(|h| h.name())
        .collect::<Vec<_>>()
        .join(";")
}

/// Renders the terminal table: what each tool declares and, where it declares nothing
/// usable, what a client resolves.
pub(super) fn table(tools: &[ToolHints]) -> String {
    let mut rows = vec![vec![
        "tool".to_string(),
        Hint::ReadOnly.name().to_string(),
        Hint::Destructive.name().to_string(),
        Hint::Idempotent.name().to_string(),
        Hint::OpenWorld.name().to_string(),
        "omits".to_string(),
    ]];
    for tool in tools {
        let mut row = vec![sanitize(&tool.name)];
        for hint in Hint::ALL {
            let declared = tool.declared(hint);
            row.push(match declared.as_bool() {
                Some(_) => declared.cell().to_string(),
                None => format!(
                    "{} -> {}",
                    declared.cell(),
                    resolved_cell(tool.resolved(hint))
                ),
            });
        }
        let omits = omits_cell(tool);
        row.push(if omits.is_empty() {
            "-".to_string()
        } else {
            omits.replace(';', ", ")
        });
        rows.push(row);
    }
    let mut out = Vec::new();
    report::write_aligned(&mut out, &rows, Align::Left).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("the cells are strings")
}

/// Renders the summary lines under the table.
pub(super) fn summary(listing: &Listing, tools: &[ToolHints]) -> String {
    let complete = tools.iter().filter(|t| t.omits().is_empty()).count();
    let nothing = tools.iter().filter(|t| t.declares_nothing()).count();
    let quoted = |text: &str| {
        if text.is_empty() {
            "(none)".to_string()
        } else {
            format!("'{}'", sanitize(text))
        }
    };
    format!(
        "\n{}: {} every meaningful hint, {} nothing\nserver {} version {}, protocol {}, {} read\nclient capabilities offered: {}\n",
        messages::count(tools.len(), "tool", "tools"),
        messages::count(complete, "declares", "declare"),
        messages::count(nothing, "declares", "declare"),
        quoted(&listing.server_name),
        quoted(&listing.server_version),
        quoted(&listing.protocol_version),
        messages::count(listing.pages, "tools/list page", "tools/list pages"),
        sanitize(session::capability_names(&listing.capabilities).replace(';', ", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing(tools: Vec<serde_json::Value>) -> Listing {
        Listing {
            server_name: "s".into(),
            server_version: "1".into(),
            protocol_version: "2025-06-18".into(),
            capabilities: session::default_capabilities(),
            pages: 1,
            tools,
            warnings: Vec::new(),
            announces_changes: false,
        }
    }

    #[test]
    fn warnings_flag_duplicates_contradictions_and_invalid_values() {
        let l = listing(vec![
            json!({ "name": "a", "annotations": { "readOnlyHint": true, "destructiveHint": true } }),
            json!({ "name": "a", "annotations": { "openWorldHint": 1 } }),
        ]);
        let tools: Vec<_> = l.tools.iter().map(ToolHints::from_tool).collect();
        let w = warnings(&l, &tools);
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("both read-only and destructive"));
        assert!(w[1].contains("more than once"));
        assert!(w[2].contains("openWorldHint as 1"));
    }

    #[test]
    fn summary_counts_complete_and_empty_tools() {
        let l = listing(vec![
            json!({ "name": "a", "annotations": { "readOnlyHint": true, "openWorldHint": false } }),
            json!({ "name": "b" }),
            json!({ "name": "c", "annotations": null }),
        ]);
        let tools: Vec<_> = l.tools.iter().map(ToolHints::from_tool).collect();
        let s = summary(&l, &tools);
        assert!(
            s.contains("3 tools: 1 declares every meaningful hint, 2 declare nothing"),
            "{s}"
        );
        assert!(s.contains("1 tools/list page read"), "{s}");
        assert!(
            s.contains("client capabilities offered: roots, sampling, elicitation"),
            "{s}"
        );
    }
}
