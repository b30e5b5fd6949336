//! Writes the lint's findings as a SARIF 2.1.0 log (OASIS, "Static Analysis Results
//! Interchange Format Version 2.1.0"), as GitHub code scanning takes it: one run,
//! the rules in `tool.driver.rules`, each result at its file and line, its message
//! naming the tool. The text is built with `serde_json`, so whatever a name holds is
//! escaped as JSON; a path is written as a relative URI reference, percent-encoded.

use std::io::Write;

use serde_json::{json, Value};

use super::{Finding, Rule};

/// The schema the log names (the OASIS errata 01 text of 2.1.0).
const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// Holds one finding and where it is: a path (`/`-separated, relative to where the
/// command ran) and a 1-based line; neither for a tool on the wire.
#[derive(Clone, Debug)]
pub struct Located {
    pub finding: Finding,
    pub path: Option<String>,
    pub line: Option<u32>,
}

/// Returns `path` as a URI reference: every byte but the unreserved ones and `/`
/// percent-encoded (so `a b:c.ts` is `a%20b%3Ac.ts`, never a scheme).
pub fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Returns the rule's descriptor: id, name, the reason as its description, the
/// level it reports at, and what to do as its help.
fn descriptor(rule: Rule) -> Value {
    json!({
        "id": rule.id(),
        "name": rule.name(),
        "shortDescription": { "text": rule.reason() },
        "fullDescription": { "text": rule.reason() },
        "defaultConfiguration": { "level": rule.level() },
        "help": {
            "text": "Declare each hint meaningful for the tool in its annotations; each result \
                     suggests values to paste, from what the tool's name says it does \
                     (docs/scan.md, \"The lint\")."
        },
    })
}

/// Returns the SARIF log of `found`, in the order given.
pub fn log(found: &[Located]) -> Value {
    let results: Vec<Value> = found
        .iter()
        .map(|at| {
            let rule = at.finding.rule;
            let mut result = json!({
                "ruleId": rule.id(),
                "ruleIndex": Rule::ALL.iter().position(|&r| r == rule).unwrap_or_default(),
                "level": rule.level(),
                "message": {
                    "text": format!("{}. Suggested: {}", at.finding.message, at.finding.suggestion)
                },
            });
            if let Some(path) = &at.path {
                let mut physical = json!({ "artifactLocation": { "uri": uri(path) } });
                if let Some(line) = at.line.filter(|&l| l > 0) {
                    physical["region"] = json!({ "startLine": line });
                }
                result["locations"] = json!([{ "physicalLocation": physical }]);
            }
            result
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "mcp-hint-census",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": Rule::ALL.map(descriptor).to_vec(),
                }
            },
            "results": results,
        }],
    })
}

/// Writes the SARIF log of `found` to `w`.
pub fn write<W: Write>(w: W, found: &[Located]) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(w, &log(found))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_a_relative_reference_whatever_it_holds() {
        assert_eq!(uri("src/a.ts"), "src/a.ts");
        assert_eq!(uri("x.tar.gz:src/a b.ts"), "x.tar.gz%3Asrc/a%20b.ts");
        assert_eq!(uri("é\"%"), "%C3%A9%22%25");
    }

    #[test]
    fn a_result_points_at_its_rule_and_line() {
        let finding = Finding {
            rule: Rule::ReadOnlyDestructive,
            message: "tool '\"x\n' declares".into(),
            suggestion: "s".into(),
        };
        let log = log(&[Located {
            finding,
            path: Some("a.ts".into()),
            line: Some(7),
        }]);
        let result = &log["runs"][0]["results"][0];
        assert_eq!(result["ruleIndex"], 2);
        assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][2]["id"], "MHC003");
        assert_eq!(
            result["locations"][0]["physicalLocation"]["region"]["startLine"],
            7
        );
        let text = serde_json::to_string(&log).unwrap();
        assert!(text.contains(r#"tool '\"x\n' declares"#), "{text}");
    }
}
