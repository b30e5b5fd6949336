//! Writes the lint's findings as a SARIF 2.1.0 log (OASIS, "Static Analysis Results
//! Interchange Format Version 2.1.0"), as GitHub code scanning takes it and the SARIF
//! SDK's validator accepts it: one run per scanned path, the rules in
//! `tool.driver.rules`, each result at its file and line, its message naming the tool.
//!
//! Every path is a relative URI reference against the base `%SRCROOT%`, which the run
//! declares in `originalUriBaseIds`: a directory (the git work tree's top, or the
//! scanned directory), or an archive's root, the archive named in the run's
//! properties. Which base a scanned path has is the caller's business (`scan`); this
//! module only writes it. A result's `partialFingerprints` hold a key of the tool's
//! own, built from the rule, the tool's name and the file but not the line, so that
//! code scanning follows an alert across commits that move it. The text is built
//! with `serde_json`, so whatever a name holds is escaped as JSON.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::{Finding, Rule};

/// The schema the log names (the OASIS errata 01 text of 2.1.0).
const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The name of the base every path of a run is relative to.
pub const SRCROOT: &str = "SRCROOT";

/// The key of the tool's own fingerprint in `partialFingerprints`; its version
/// changes only with what the fingerprint is built from.
pub const FINGERPRINT: &str = "mcpHintCensus/v1";

/// What every `automationDetails.id` starts with; the Action's upload names the same
/// category (`action.yml`).
pub const CATEGORY: &str = "mcp-hint-census/";

/// Where the documentation of this version lives: the crate's own files as
/// published, `docs/scan.md` holding the lint's section. An absolute URL, as SARIF
/// wants `informationUri` and `helpUri` to be.
const DOCS: &str = concat!(
    "https://docs.rs/crate/mcp-hint-census/",
    env!("CARGO_PKG_VERSION"),
    "/source/"
);

/// The page the rules are documented in, as built into the binary: a rule's
/// `helpUri` names the line of its row in the lint's table.
const SCAN_DOC: &str = include_str!("../../docs/scan.md");

/// Holds one finding and where it is: the tool's name (`None` when it is not a
/// literal), a path relative to the run's `%SRCROOT%` (`/`-separated) and a 1-based
/// line; neither for a tool on the wire.
#[derive(Clone, Debug)]
pub struct Located {
    pub finding: Finding,
    pub name: Option<String>,
    pub path: Option<String>,
    pub line: Option<u32>,
}

/// What `%SRCROOT%` stands for in a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Root {
    /// A directory, absolute.
    Dir(PathBuf),
    /// The root of an archive, named as it was given.
    Archive(String),
}

/// Holds one scanned path's run: its base, the path itself relative to it
/// (`/`-separated, empty for the base itself), why it could not be read when it
/// could not, and its findings in the order found (a file's in line order).
#[derive(Clone, Debug)]
pub struct Run {
    pub root: Root,
    pub scanned: String,
    pub failure: Option<String>,
    pub found: Vec<Located>,
}

/// Returns `path` as a URI reference: every byte but the unreserved ones and `/`
/// percent-encoded (so `a b:c.ts` is `a%20b%3Ac.ts`, never a scheme).
pub fn uri(path: &str) -> String {
    encode(path.as_bytes())
}

fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Returns a directory as an absolute `file:` URI ending in `/`, as a base must.
fn dir_uri(dir: &std::path::Path) -> String {
    let mut path = encode(dir.as_os_str().as_encoded_bytes());
    if !path.ends_with('/') {
        path.push('/');
    }
    format!("file://{path}")
}

/// Returns the address of the rule's row in the lint's table of `docs/scan.md`
/// (a line anchor of the published file), or of the file when the row is not there.
pub fn help_uri(rule: Rule) -> String {
    let row = format!("| `{}` |", rule.id());
    match SCAN_DOC.lines().position(|l| l.starts_with(&row)) {
        Some(i) => format!("{DOCS}docs/scan.md#L{}", i + 1),
        None => format!("{DOCS}docs/scan.md"),
    }
}

/// Returns `text` as a sentence: its first letter upper case, a full stop at its end.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// Returns the rule's descriptor: id, name, the reason as its description, the
/// level it reports at, where it is documented, and what to do as its help.
fn descriptor(rule: Rule) -> Value {
    let help = "Declare each hint meaningful for the tool in its annotations; each result \
                suggests values to paste, from what the tool's name says it does \
                (docs/scan.md, \"The lint\").";
    json!({
        "id": rule.id(),
        "name": rule.name(),
        "shortDescription": { "text": sentence(rule.reason()) },
        "fullDescription": { "text": sentence(rule.reason()) },
        "defaultConfiguration": { "level": rule.level() },
        "helpUri": help_uri(rule),
        "help": { "text": help },
    })
}

/// Returns the fingerprint of the `nth` finding (from 0) of one rule for one tool
/// name in one file: the SHA-256 of the four, hex.
fn fingerprint(rule: Rule, name: Option<&str>, path: &str, nth: usize) -> String {
    let mut hash = Sha256::new();
    for part in [rule.id(), name.map_or("\u{1}", |n| n), path] {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hash.update(nth.to_string().as_bytes());
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Returns the `automationDetails.id` of a run of `scanned`: the category, then the
/// path and a `/`, so that code scanning reads the whole id as the category.
pub fn automation_id(scanned: &str) -> String {
    match scanned.trim_matches('/') {
        "" => CATEGORY.to_string(),
        path => format!("{CATEGORY}{path}/"),
    }
}

/// Returns one run of the log, named `id`.
fn run(at: &Run, id: &str) -> Value {
    let mut seen: HashMap<(Rule, Option<&str>, Option<&str>), usize> = HashMap::new();
    let results: Vec<Value> = at
        .found
        .iter()
        .map(|found| {
            let rule = found.finding.rule;
            let text = sentence(&format!(
                "{}. Suggested: {}",
                found.finding.message, found.finding.suggestion
            ));
            let mut result = json!({
                "ruleId": rule.id(),
                "ruleIndex": Rule::ALL.iter().position(|&r| r == rule).unwrap_or_default(),
                "level": rule.level(),
                "message": { "text": text },
            });
            let nth = seen
                .entry((rule, found.name.as_deref(), found.path.as_deref()))
                .or_default();
            result["partialFingerprints"] = json!({
                FINGERPRINT: fingerprint(
                    rule,
                    found.name.as_deref(),
                    found.path.as_deref().unwrap_or_default(),
                    *nth,
                ),
            });
            *nth += 1;
            if let Some(path) = &found.path {
                let mut physical =
                    json!({ "artifactLocation": { "uri": uri(path), "uriBaseId": SRCROOT } });
                if let Some(line) = found.line.filter(|&l| l > 0) {
                    physical["region"] = json!({ "startLine": line });
                }
                result["locations"] = json!([{ "physicalLocation": physical }]);
            }
            result
        })
        .collect();
    let base = match &at.root {
        Root::Dir(dir) => json!({ "uri": dir_uri(dir) }),
        Root::Archive(name) => json!({
            "description": { "text": format!("The root of the archive '{name}'.") }
        }),
    };
    let mut invocation = json!({ "executionSuccessful": at.failure.is_none() });
    if let Some(why) = &at.failure {
        invocation["toolExecutionNotifications"] = json!([{
            "level": "error",
            "message": { "text": sentence(why) },
        }]);
    }
    let mut run = json!({
        "tool": {
            "driver": {
                "name": "mcp-hint-census",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": format!("{DOCS}README.md"),
                "rules": Rule::ALL.map(descriptor).to_vec(),
            }
        },
        "automationDetails": { "id": id },
        "originalUriBaseIds": { SRCROOT: base },
        "invocations": [invocation],
        "results": results,
    });
    if let Root::Archive(name) = &at.root {
        run["properties"] = json!({ "archive": name });
    }
    run
}

/// Returns the SARIF log of `runs`, in the order given. Code scanning takes one run
/// per category in a log: a run whose id an earlier run has (two directories in no
/// work tree are each their own base) gets its place among the runs, from 1, after it.
pub fn log(runs: &[Run]) -> Value {
    let mut used = std::collections::HashSet::new();
    let runs: Vec<Value> = runs
        .iter()
        .enumerate()
        .map(|(i, at)| {
            let mut id = automation_id(&at.scanned);
            if !used.insert(id.clone()) {
                id = format!("{id}{}/", i + 1);
                used.insert(id.clone());
            }
            run(at, &id)
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": runs,
    })
}

/// Writes the SARIF log of `runs` to `w`.
pub fn write<W: Write>(w: W, runs: &[Run]) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(w, &log(runs))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn located(name: &str, path: &str, line: u32) -> Located {
        Located {
            finding: Finding {
                rule: Rule::DeclaresNothing,
                message: format!("tool '{name}' declares no hint"),
                suggestion: "annotations: { readOnlyHint: true }".into(),
            },
            name: Some(name.into()),
            path: Some(path.into()),
            line: Some(line),
        }
    }

    fn one_run(found: Vec<Located>) -> Value {
        log(&[Run {
            root: Root::Dir(PathBuf::from("/src/a b")),
            scanned: "pkg".into(),
            failure: None,
            found,
        }])
    }

    #[test]
    fn a_path_is_a_relative_reference_whatever_it_holds() {
        assert_eq!(uri("src/a.ts"), "src/a.ts");
        assert_eq!(uri("x.tar.gz:src/a b.ts"), "x.tar.gz%3Asrc/a%20b.ts");
        assert_eq!(uri("é\"%"), "%C3%A9%22%25");
        assert_eq!(dir_uri(std::path::Path::new("/a b/c")), "file:///a%20b/c/");
    }

    #[test]
    fn a_result_points_at_its_rule_and_line_against_the_base() {
        let finding = Finding {
            rule: Rule::ReadOnlyDestructive,
            message: "tool '\"x\n' declares".into(),
            suggestion: "s".into(),
        };
        let log = one_run(vec![Located {
            finding,
            name: Some("\"x\n".into()),
            path: Some("a.ts".into()),
            line: Some(7),
        }]);
        let run = &log["runs"][0];
        let result = &run["results"][0];
        assert_eq!(result["ruleIndex"], 2);
        assert_eq!(run["tool"]["driver"]["rules"][2]["id"], "MHC003");
        let place = &result["locations"][0]["physicalLocation"];
        assert_eq!(place["region"]["startLine"], 7);
        assert_eq!(place["artifactLocation"]["uriBaseId"], "SRCROOT");
        assert_eq!(
            run["originalUriBaseIds"]["SRCROOT"]["uri"],
            "file:///src/a%20b/"
        );
        assert_eq!(run["automationDetails"]["id"], "mcp-hint-census/pkg/");
        assert_eq!(
            result["message"]["text"],
            "Tool '\"x\n' declares. Suggested: s."
        );
        let text = serde_json::to_string(&log).unwrap();
        assert!(text.contains(r#"Tool '\"x\n' declares"#), "{text}");
    }

    #[test]
    fn fingerprints_ignore_the_line_and_tell_one_name_twice_in_a_file_apart() {
        let prints = |found: Vec<Located>| -> Vec<String> {
            one_run(found)["runs"][0]["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    r["partialFingerprints"][FINGERPRINT]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect()
        };
        let before = prints(vec![
            located("a", "x.ts", 3),
            located("a", "x.ts", 9),
            located("b", "x.ts", 12),
            located("a", "y.ts", 3),
        ]);
        let after = prints(vec![
            located("a", "x.ts", 30),
            located("a", "x.ts", 90),
            located("b", "x.ts", 120),
            located("a", "y.ts", 4),
        ]);
        assert_eq!(before, after);
        let distinct: std::collections::BTreeSet<&String> = before.iter().collect();
        assert_eq!(distinct.len(), 4, "{before:?}");
        assert!(before.iter().all(|p| p.len() == 64));
    }

    #[test]
    fn each_rule_is_documented_at_its_own_row() {
        for rule in Rule::ALL {
            let uri = help_uri(rule);
            let line: usize = uri.rsplit_once("#L").unwrap().1.parse().unwrap();
            let row = SCAN_DOC.lines().nth(line - 1).unwrap();
            assert!(row.starts_with(&format!("| `{}` |", rule.id())), "{uri}");
            assert!(uri.starts_with("https://"), "{uri}");
        }
        assert_eq!(automation_id(""), "mcp-hint-census/");
        assert_eq!(automation_id("a/b"), "mcp-hint-census/a/b/");
    }

    #[test]
    fn two_paths_at_one_base_are_two_categories() {
        let dir = |d: &str| Run {
            root: Root::Dir(PathBuf::from(d)),
            scanned: String::new(),
            failure: None,
            found: Vec::new(),
        };
        let log = log(&[dir("/a"), dir("/b"), dir("/c")]);
        let ids: Vec<&str> = log["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["automationDetails"]["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            [
                "mcp-hint-census/",
                "mcp-hint-census/2/",
                "mcp-hint-census/3/"
            ]
        );
    }

    #[test]
    fn an_archive_is_named_and_a_failure_said() {
        let log = log(&[Run {
            root: Root::Archive("dist/x.tar.gz".into()),
            scanned: "dist/x.tar.gz".into(),
            failure: Some("not a tar archive".into()),
            found: Vec::new(),
        }]);
        let run = &log["runs"][0];
        assert_eq!(run["properties"]["archive"], "dist/x.tar.gz");
        assert!(run["originalUriBaseIds"]["SRCROOT"].get("uri").is_none());
        assert_eq!(run["invocations"][0]["executionSuccessful"], false);
        assert_eq!(
            run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"],
            "Not a tar archive."
        );
    }
}
