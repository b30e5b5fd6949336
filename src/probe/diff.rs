//! `diff`: compares two probe snapshots tool by tool and hint by hint.
//!
//! Every change in what a tool declares is listed, absent to declared and back
//! included, and marked by where it moves the value a client resolves: toward less
//! caution (`more-permissive`), toward more (`more-cautious`), or nowhere (`neutral`,
//! e.g. an absent readOnlyHint declared as its default `false`). Only a
//! `more-permissive` change fails the run, since that is the one a client could be
//! hurt by without noticing.

use std::collections::BTreeMap;

use anyhow::Result;
use serde_json::json;

use super::hints::{Declared, Hint, ToolHints};
use super::snapshot::{self, Snapshot};
use crate::cli::DiffArgs;
use crate::sanitize::sanitize;
use crate::{ExitStatus, UsageError};

/// Where a change moves the resolved value of a hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    MorePermissive,
    MoreCautious,
    Neutral,
}

impl Direction {
    fn label(self) -> &'static str {
        match self {
            Direction::MorePermissive => "more-permissive",
            Direction::MoreCautious => "more-cautious",
            Direction::Neutral => "neutral",
        }
    }
}

/// One hint of one tool that changed between the snapshots.
#[derive(Debug, PartialEq, Eq)]
pub struct Change {
    pub tool: String,
    pub hint: Hint,
    pub old: Declared,
    pub new: Declared,
    pub old_resolved: Option<bool>,
    pub new_resolved: Option<bool>,
    pub direction: Direction,
}

/// What changed between two snapshots.
#[derive(Debug, Default)]
pub struct Comparison {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changes: Vec<Change>,
}

/// Runs `diff`: prints the comparison and exits 1 when any change is more permissive.
pub fn run(args: &DiffArgs) -> Result<ExitStatus> {
    // A snapshot that cannot be read is the caller's input being wrong: status 2 keeps
    // it apart from status 1, which CI reads as "hints became more permissive".
    let load = |path| snapshot::load(path).map_err(|err| UsageError(format!("{err:#}")));
    let old = load(&args.old)?;
    let new = load(&args.new)?;
    println!("old: {}", describe(&old));
    println!("new: {}", describe(&new));
    let comparison = compare(&old, &new);
    for name in &comparison.added {
        println!("added    tool '{}'", sanitize(name));
    }
    for name in &comparison.removed {
        println!("removed  tool '{}'", sanitize(name));
    }
    let resolved = |v: Option<bool>| v.map_or("n/a".to_string(), |b| b.to_string());
    for change in &comparison.changes {
        println!(
            "changed  tool '{}' {}: {} -> {} (resolved {} -> {}) {}",
            sanitize(&change.tool),
            change.hint.name(),
            sanitize(change.old.to_string()),
            sanitize(change.new.to_string()),
            resolved(change.old_resolved),
            resolved(change.new_resolved),
            change.direction.label()
        );
    }
    let count = |d: Direction| {
        comparison
            .changes
            .iter()
            .filter(|c| c.direction == d)
            .count()
    };
    let permissive = count(Direction::MorePermissive);
    println!(
        "{} tools added, {} removed; {} hint changes: {permissive} more-permissive, {} more-cautious, {} neutral",
        comparison.added.len(),
        comparison.removed.len(),
        comparison.changes.len(),
        count(Direction::MoreCautious),
        count(Direction::Neutral),
    );
    Ok(if permissive > 0 {
        ExitStatus::Failed
    } else {
        ExitStatus::Ok
    })
}

fn describe(snapshot: &Snapshot) -> String {
    format!(
        "'{}' version '{}', protocol '{}', {} tools, dated {}",
        sanitize(&snapshot.server_name),
        sanitize(&snapshot.server_version),
        sanitize(&snapshot.protocol_version),
        snapshot.tools.len(),
        sanitize(&snapshot.date)
    )
}

/// Compares two snapshots; tools are matched by name, the first of a duplicate name wins.
pub fn compare(old: &Snapshot, new: &Snapshot) -> Comparison {
    let index = |s: &Snapshot| {
        let mut map = BTreeMap::new();
        for tool in &s.tools {
            let value = match &tool.annotations {
                Some(a) => json!({ "name": tool.name, "annotations": a }),
                None => json!({ "name": tool.name }),
            };
            map.entry(tool.name.clone())
                .or_insert_with(|| ToolHints::from_tool(&value));
        }
        map
    };
    let (old, new) = (index(old), index(new));
    let mut comparison = Comparison {
        added: new
            .keys()
            .filter(|n| !old.contains_key(*n))
            .cloned()
            .collect(),
        removed: old
            .keys()
            .filter(|n| !new.contains_key(*n))
            .cloned()
            .collect(),
        changes: Vec::new(),
    };
    for (name, before) in &old {
        let Some(after) = new.get(name) else { continue };
        for hint in Hint::ALL {
            let (was, is) = (before.declared(hint), after.declared(hint));
            if was == is {
                continue;
            }
            let (old_resolved, new_resolved) = (before.resolved(hint), after.resolved(hint));
            comparison.changes.push(Change {
                tool: name.clone(),
                hint,
                old: was.clone(),
                new: is.clone(),
                old_resolved,
                new_resolved,
                direction: direction(hint, old_resolved, new_resolved),
            });
        }
    }
    comparison
}

/// Returns where a move of the resolved value of `hint` points. A move from or to
/// n/a (the hint stops or starts being meaningful) is neutral: the readOnlyHint change
/// that caused it carries the direction.
fn direction(hint: Hint, old: Option<bool>, new: Option<bool>) -> Direction {
    match (old, new) {
        (Some(a), Some(b)) if a != b => {
            if b == hint.permissive_value() {
                Direction::MorePermissive
            } else {
                Direction::MoreCautious
            }
        }
        _ => Direction::Neutral,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::snapshot::SnapshotTool;
    use serde_json::Value;

    fn snap(tools: &[(&str, Option<Value>)]) -> Snapshot {
        Snapshot {
            server_name: "s".into(),
            server_version: "1".into(),
            protocol_version: "p".into(),
            date: "2026-09-07".into(),
            tools: tools
                .iter()
                .map(|(n, a)| SnapshotTool {
                    name: n.to_string(),
                    annotations: a.clone(),
                })
                .collect(),
        }
    }

    #[test]
    fn absent_to_permissive_value_is_more_permissive() {
        let old = snap(&[("t", None), ("gone", None)]);
        let new = snap(&[
            ("t", Some(json!({ "readOnlyHint": true }))),
            ("fresh", None),
        ]);
        let c = compare(&old, &new);
        assert_eq!(c.added, ["fresh"]);
        assert_eq!(c.removed, ["gone"]);
        assert_eq!(c.changes.len(), 1);
        assert_eq!(c.changes[0].hint, Hint::ReadOnly);
        assert_eq!(c.changes[0].direction, Direction::MorePermissive);
    }

    #[test]
    fn declaring_the_default_is_neutral_and_dropping_a_false_is_cautious() {
        let old = snap(&[(
            "t",
            Some(json!({ "destructiveHint": false, "openWorldHint": null })),
        )]);
        let new = snap(&[("t", Some(json!({ "readOnlyHint": false })))]);
        let c = compare(&old, &new);
        let found: Vec<_> = c.changes.iter().map(|c| (c.hint, c.direction)).collect();
        assert_eq!(
            found,
            [
                (Hint::ReadOnly, Direction::Neutral),
                (Hint::Destructive, Direction::MoreCautious)
            ]
        );
    }

    #[test]
    fn each_hint_has_its_permissive_direction() {
        for (hint, permissive) in [
            (Hint::ReadOnly, true),
            (Hint::Destructive, false),
            (Hint::Idempotent, true),
            (Hint::OpenWorld, false),
        ] {
            assert_eq!(
                direction(hint, Some(!permissive), Some(permissive)),
                Direction::MorePermissive
            );
            assert_eq!(
                direction(hint, Some(permissive), Some(!permissive)),
                Direction::MoreCautious
            );
            assert_eq!(direction(hint, None, Some(permissive)), Direction::Neutral);
        }
    }
}
