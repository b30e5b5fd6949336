//! The lint on what a server answers (docs/scan.md, "The lint"): the rules `scan`
//! applies to a definition, applied to each tool of a `tools/list` answer, with no
//! line to place them at; each tool's name class for the wire table; and "What
//! silence costs" over the servers of a wire survey.

use std::fmt::Write as _;

use super::hints::ToolHints;
use crate::infra::sanitize::sanitize;
use crate::lint::{self, Finding, Subject};
use crate::report::silence::{write_group, Silence, Tally};
use crate::tools::hints::Hint;
use crate::tools::NameClass;

/// Returns what the tool's name (else its title) says it does.
pub fn name_class(tool: &ToolHints) -> NameClass {
    NameClass::of(Some(&tool.name), tool.title.as_deref())
}

/// Returns the lint's findings for one tool on the wire, suggestions spelt as JSON.
pub fn check(tool: &ToolHints) -> Vec<Finding> {
    lint::check(&Subject {
        name: Some(&tool.name),
        class: name_class(tool),
        settings: tool.settings(),
        family: None,
    })
}

/// Returns the lines the probe prints under its summary: one per finding, with its
/// rule id and suggestion, escaped for a terminal; empty when there is none.
pub fn lines(tools: &[ToolHints]) -> String {
    let mut out = String::new();
    for tool in tools {
        for finding in check(tool) {
            let _ = writeln!(
                out,
                "lint {}: {} (suggested: {})",
                finding.rule.id(),
                sanitize(&finding.message),
                sanitize(&finding.suggestion)
            );
        }
    }
    out
}

/// Returns the figures of one server's tools by name class.
pub fn tally(tools: &[ToolHints]) -> Tally {
    let mut tally = Tally::default();
    for tool in tools {
        let read_only = tool.declared(Hint::ReadOnly).as_bool();
        tally.add(name_class(tool), tool.declares_nothing(), read_only);
    }
    tally
}

/// Returns "What silence costs" for a wire survey's report, from each server that
/// listed (its name and tools); empty when none listed a tool.
pub fn silence_markdown(servers: &[(String, Vec<ToolHints>)]) -> String {
    silence_of(
        servers
            .iter()
            .filter(|(_, t)| !t.is_empty())
            .map(|(name, tools)| (name.clone(), tally(tools)))
            .collect(),
    )
}

/// Returns "What silence costs" from each server's name and the figures of its
/// tools (servers with a tool only); empty when there is none. A merge of shards
/// reads the figures back from the wire table.
pub fn silence_of(servers: Vec<(String, Tally)>) -> String {
    let mut silence = Silence::default();
    for (name, tally) in servers {
        silence.pooled.merge(&tally);
        silence.trees.push((sanitize(name), tally));
    }
    if silence.trees.is_empty() {
        return String::new();
    }
    let mut out = Vec::new();
    out.extend_from_slice(
        b"\n## What silence costs\n\nA client that follows the schema's defaults treats a tool \
          that declares no hint as not read-only, destructive and open-world. The tools each \
          server listed, by what their names (else their titles) say they do (docs/method.md, \
          \"Name classes\"):\n\n",
    );
    write_group(&mut out, &silence).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("the report is text")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_wire_tool_is_linted_by_its_name_or_title() {
        let silent = ToolHints::from_tool(&json!({ "name": "list_files" }));
        let got = check(&silent);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].rule.id(), "MHC001");
        assert!(got[0]
            .suggestion
            .starts_with("\"annotations\": { \"readOnlyHint\": true, \"openWorldHint\": true }"));
        let titled = ToolHints::from_tool(&json!({
            "name": "",
            "title": "Delete a file",
            "annotations": { "readOnlyHint": true, "openWorldHint": false }
        }));
        assert_eq!(name_class(&titled), NameClass::Destructive);
        let ids: Vec<&str> = check(&titled).iter().map(|f| f.rule.id()).collect();
        assert_eq!(ids, ["MHC002"]);
        let text = lines(&[silent, titled]);
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.contains("tool (no name) is declared"), "{text}");
    }
}
