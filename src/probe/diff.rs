//! `diff`: compares two probe snapshots tool by tool and hint by hint.
//!
//! Every change in what a tool declares is listed, absent to declared and back
//! included, and marked by where it moves the value a client resolves: toward less
//! caution (`more-permissive`), toward more (`more-cautious`), or nowhere (`neutral`,
//! e.g. an absent readOnlyHint declared as its default `false`). Only a
//! `more-permissive` change fails the run, since that is the one a client could be
//! hurt by without noticing.
//!
//! A name listed more than once is shown, and each of its listings is compared: the
//! k-th listing in one snapshot against the k-th in the other, or against the other's
//! last when it has fewer, since a client may act on any of them. Title changes (the
//! tool's `title`, else `annotations.title`) are listed too, and fail nothing.

use std::collections::BTreeMap;

use anyhow::Result;

use super::hints::{Declared, ToolHints};
use super::session::capability_names;
use super::snapshot::{self, Snapshot};
use crate::cli::DiffArgs;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages::{self, count};
use crate::infra::out::Out;
use crate::infra::sanitize::sanitize;
use crate::tools::hints::Hint;

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
    /// The tool's name and, for a name listed more than once, which listing.
    pub tool: String,
    pub hint: Hint,
    pub old: Declared,
    pub new: Declared,
    pub old_resolved: Option<bool>,
    pub new_resolved: Option<bool>,
    pub direction: Direction,
}

/// A tool whose title changed; `None` is no title.
#[derive(Debug, PartialEq, Eq)]
pub struct TitleChange {
    pub tool: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// A name listed more than once in a snapshot.
#[derive(Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// `old` or `new`.
    pub side: &'static str,
    pub name: String,
    pub times: usize,
}

/// What changed between two snapshots.
#[derive(Debug, Default)]
pub struct Comparison {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub duplicates: Vec<Duplicate>,
    pub titles: Vec<TitleChange>,
    pub changes: Vec<Change>,
}

/// Runs `diff`: prints the comparison and exits 1 when any change is more permissive.
pub fn run(args: &DiffArgs) -> Result<ExitStatus> {
    // A snapshot that cannot be read is the caller's input being wrong: status 2 keeps
    // it apart from status 1, which CI reads as "hints became more permissive".
    let load = |path| snapshot::load(path).map_err(|err| UsageError(format!("{err:#}")));
    let old = load(&args.old)?;
    let new = load(&args.new)?;
    let mut out = Out::new();
    out.line(&format!("old: {}", describe(&old)))?;
    out.line(&format!("new: {}", describe(&new)))?;
    if old.server_name != new.server_name {
        messages::warning(format!(
            "the snapshots are of two different servers, '{}' and '{}'",
            sanitize(&old.server_name),
            sanitize(&new.server_name)
        ));
    }
    if let (Some(a), Some(b)) = (&old.capabilities, &new.capabilities) {
        if a != b {
            messages::warning(format!(
                "the snapshots were taken offering different client capabilities ({} and {}); a server may list other tools for that alone",
                sanitize(capability_names(a)),
                sanitize(capability_names(b))
            ));
        }
    }
    let comparison = compare(&old, &new);
    let permissive = print(&comparison, &mut out)?;
    Ok(if permissive > 0 {
        ExitStatus::Failed
    } else {
        ExitStatus::Ok
    })
}

impl Comparison {
    /// Tells whether nothing a client reads changed: no tool added or removed, no title
    /// and no hint changed (a name listed twice on both sides is no change).
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.titles.is_empty()
            && self.changes.is_empty()
    }
}

/// Prints a comparison as `diff` does, a line per duplicate, added or removed tool,
/// title change and hint change, then a summary line; returns how many hint changes
/// are more permissive. `probe --watch` prints each change of a server's list with it.
pub fn print(comparison: &Comparison, out: &mut Out) -> Result<usize> {
    for duplicate in &comparison.duplicates {
        out.line(&format!(
            "duplicate tool '{}' listed {} times in the {} snapshot",
            sanitize(&duplicate.name),
            duplicate.times,
            duplicate.side
        ))?;
    }
    for name in &comparison.added {
        out.line(&format!("added    tool '{}'", sanitize(name)))?;
    }
    for name in &comparison.removed {
        out.line(&format!("removed  tool '{}'", sanitize(name)))?;
    }
    let title = |t: &Option<String>| match t {
        Some(t) => format!("'{}'", sanitize(t)),
        None => "absent".to_string(),
    };
    for change in &comparison.titles {
        out.line(&format!(
            "changed  tool {} title: {} -> {}",
            change.tool,
            title(&change.old),
            title(&change.new)
        ))?;
    }
    let resolved = |v: Option<bool>| v.map_or("n/a".to_string(), |b| b.to_string());
    for change in &comparison.changes {
        out.line(&format!(
            "changed  tool {} {}: {} -> {} (resolved {} -> {}) {}",
            change.tool,
            change.hint.name(),
            sanitize(change.old.to_string()),
            sanitize(change.new.to_string()),
            resolved(change.old_resolved),
            resolved(change.new_resolved),
            change.direction.label()
        ))?;
    }
    let by = |d: Direction| {
        comparison
            .changes
            .iter()
            .filter(|c| c.direction == d)
            .count()
    };
    let permissive = by(Direction::MorePermissive);
    let titles = if comparison.titles.is_empty() {
        String::new()
    } else {
        format!(
            "; {}",
            count(comparison.titles.len(), "title change", "title changes")
        )
    };
    out.line(&format!(
        "{} added, {} removed; {}: {permissive} more-permissive, {} more-cautious, {} neutral{titles}",
        count(comparison.added.len(), "tool", "tools"),
        comparison.removed.len(),
        count(comparison.changes.len(), "hint change", "hint changes"),
        by(Direction::MoreCautious),
        by(Direction::Neutral),
    ))?;
    Ok(permissive)
}

fn describe(snapshot: &Snapshot) -> String {
    format!(
        "'{}' version '{}', protocol '{}', {}, dated {}",
        sanitize(&snapshot.server_name),
        sanitize(&snapshot.server_version),
        sanitize(&snapshot.protocol_version),
        count(snapshot.tools.len(), "tool", "tools"),
        sanitize(&snapshot.date)
    )
}

/// Compares two snapshots; tools are matched by name, listing by listing.
pub fn compare(old: &Snapshot, new: &Snapshot) -> Comparison {
    let index = |s: &Snapshot| {
        let mut map: BTreeMap<String, Vec<ToolHints>> = BTreeMap::new();
        for tool in &s.tools {
            map.entry(tool.name.clone())
                .or_default()
                .push(ToolHints::from_tool(&tool.entry));
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
        ..Comparison::default()
    };
    for (side, map) in [("old", &old), ("new", &new)] {
        for (name, listings) in map {
            if listings.len() > 1 {
                comparison.duplicates.push(Duplicate {
                    side,
                    name: name.clone(),
                    times: listings.len(),
                });
            }
        }
    }
    for (name, before_all) in &old {
        let Some(after_all) = new.get(name) else {
            continue;
        };
        let pairs = before_all.len().max(after_all.len());
        for k in 0..pairs {
            let before = &before_all[k.min(before_all.len() - 1)];
            let after = &after_all[k.min(after_all.len() - 1)];
            let tool = if pairs > 1 {
                format!("'{}' (listing {} of {pairs})", sanitize(name), k + 1)
            } else {
                format!("'{}'", sanitize(name))
            };
            if before.title != after.title {
                comparison.titles.push(TitleChange {
                    tool: tool.clone(),
                    old: before.title.clone(),
                    new: after.title.clone(),
                });
            }
            for hint in Hint::ALL {
                let (was, is) = (before.declared(hint), after.declared(hint));
                if was == is {
                    continue;
                }
                let (old_resolved, new_resolved) = (before.resolved(hint), after.resolved(hint));
                comparison.changes.push(Change {
                    tool: tool.clone(),
                    hint,
                    old: was.clone(),
                    new: is.clone(),
                    old_resolved,
                    new_resolved,
                    direction: direction(hint, old_resolved, new_resolved),
                });
            }
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
    use serde_json::{json, Value};

    fn snap(tools: &[(&str, Option<Value>)]) -> Snapshot {
        Snapshot {
            server_name: "s".into(),
            server_version: "1".into(),
            protocol_version: "p".into(),
            capabilities: None,
            date: "2026-09-07".into(),
            tools: tools
                .iter()
                .map(|(n, a)| SnapshotTool {
                    name: n.to_string(),
                    entry: match a {
                        Some(a) => json!({ "name": n, "annotations": a }),
                        None => json!({ "name": n }),
                    },
                })
                .collect(),
        }
    }

    #[test]
    fn every_listing_of_a_duplicate_is_compared() {
        let old = snap(&[("t", Some(json!({ "readOnlyHint": false })))]);
        let new = snap(&[
            ("t", Some(json!({ "readOnlyHint": false }))),
            ("t", Some(json!({ "readOnlyHint": true }))),
        ]);
        let c = compare(&old, &new);
        assert_eq!(
            c.duplicates,
            [Duplicate {
                side: "new",
                name: "t".into(),
                times: 2
            }]
        );
        assert_eq!(c.changes.len(), 1);
        assert_eq!(c.changes[0].tool, "'t' (listing 2 of 2)");
        assert_eq!(c.changes[0].direction, Direction::MorePermissive);
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
