//! Writes the census report in Markdown: the table, the method, notes, the trees
//! worth a second look or not counted, each archive's sha256, and the method's limits.

use std::io::{self, Write};

use super::cells::{cell, short, thousands};
use crate::infra::messages::{count, noun};
use crate::table::{CommitSource, Row, Table};

/// Writes the census report in Markdown: the table, the method, the date, each
/// archive's sha256 and the method's limits.
pub fn write_markdown<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    let w = &mut w;
    write_counts(w, table)?;
    write_method(w, table)?;
    if let Some(summary) = super::survey::survey(table) {
        writeln!(w)?;
        super::survey::write_survey(&mut *w, &summary, &super::survey::chart_name(&table.date))?;
    }
    if let Some(trend) = super::trend::Trend::of(table) {
        writeln!(w)?;
        trend.write_markdown(&mut *w, &super::trend::svg_name(&table.date))?;
    }
    super::silence::write_markdown(&mut *w, table)?;
    write_notes(w, table)?;
    write_second_look(w, table)?;
    write_before_controls(w, table)?;
    write_not_counted(w, table)?;
    write_archives(w, table)?;
    write_limits(w, table)
}

/// Writes the title and the table of counts, a row per tree (a failed tree's
/// cells empty).
fn write_counts<W: Write>(w: &mut W, table: &Table) -> io::Result<()> {
    writeln!(w, "# MCP tool-annotation hint census, {}", table.date)?;
    writeln!(w)?;
    write!(w, "| Source tree | Commit | Files walked |")?;
    for name in table.columns.names() {
        write!(w, " {} |", cell(name))?;
    }
    writeln!(w)?;
    write!(w, "|---|---|---:|")?;
    for _ in table.columns.names() {
        write!(w, "---:|")?;
    }
    writeln!(w)?;
    for row in &table.rows {
        match &row.outcome {
            Ok(c) => {
                write!(
                    w,
                    "| {} | {} | {} |",
                    cell(&row.tree_name()),
                    short(&c.commit),
                    thousands(c.count.files_walked)
                )?;
                for &n in &c.count.counts {
                    write!(w, " {} |", thousands(n))?;
                }
            }
            Err(_) => {
                write!(
                    w,
                    "| {} | {} | error |",
                    cell(&row.tree_name()),
                    cell(row.key.pinned_cell())
                )?;
                for _ in table.columns.names() {
                    write!(w, " |")?;
                }
            }
        }
        writeln!(w)?;
    }
    writeln!(w)?;
    Ok(())
}

/// Writes the paragraph on the method: the date, what is read and how a count is
/// made.
fn write_method<W: Write>(w: &mut W, table: &Table) -> io::Result<()> {
    let controls = table
        .columns
        .controls()
        .into_iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>();
    writeln!(
        w,
        "All rows counted {}. Each tree is the archive of a repository at a pinned commit, \
         read as a stream without extracting it. Every regular file is read, at any depth \
         and whatever its name, size or content. A count is the number of non-overlapping \
         occurrences of the name in the file's bytes, ASCII letters compared \
         case-insensitively and every other byte exactly, summed over the files. The \
         control{} {} {} counted the same way, to show that the files were read. The \
         commit is the full id the archive names in its pax header.",
        table.date,
        noun(controls.len(), "", "s"),
        controls.join(", "),
        noun(controls.len(), "is", "are"),
    )?;
    Ok(())
}

/// Writes the notes the corpus gives its trees, when any does.
fn write_notes<W: Write>(w: &mut W, table: &Table) -> io::Result<()> {
    let notes: Vec<&Row> = table.rows.iter().filter(|r| r.note.is_some()).collect();
    if !notes.is_empty() {
        writeln!(w)?;
        writeln!(w, "## Notes")?;
        writeln!(w)?;
        for row in notes {
            writeln!(
                w,
                "- **{}**: {}",
                cell(&row.tree_name()),
                cell(row.note.as_deref().unwrap_or_default())
            )?;
        }
    }
    Ok(())
}

/// Writes the trees that held files but read zero on every column.
fn write_second_look<W: Write>(w: &mut W, table: &Table) -> io::Result<()> {
    let silent: Vec<&Row> = table.silent_rows().collect();
    if !silent.is_empty() {
        writeln!(w)?;
        writeln!(w, "## Worth a second look")?;
        writeln!(w)?;
        for row in silent {
            writeln!(
                w,
                "- **{}** held files but read zero on every term and every control: check \
                 that the archive is the tree you meant.",
                cell(&row.tree_name())
            )?;
        }
    }
    Ok(())
}

/// Writes how many trees read zero at a commit before the controls existed.
fn write_before_controls<W: Write>(w: &mut W, table: &Table) -> io::Result<()> {
    let controls = table.columns.controls();
    let before = table.before_controls_rows().count() as u64;
    if let (true, Some(since)) = (before > 0, table.columns.controls_since()) {
        writeln!(w)?;
        writeln!(w, "## Zero before the controls existed")?;
        writeln!(w)?;
        writeln!(
            w,
            "{} read zero on every term and every control at a commit before {since}, the \
             specification version that named the control{}: {} could not hold {}, so \
             {} not worth a second look.",
            count(before, "tree", "trees"),
            noun(controls.len(), "", "s"),
            noun(before, "it", "they"),
            noun(controls.len(), "it", "them"),
            noun(before, "it is", "they are"),
        )?;
    }
    Ok(())
}

/// Writes the trees that could not be counted, and why.
fn write_not_counted<W: Write>(w: &mut W, table: &Table) -> io::Result<()> {
    let failed: Vec<(&Row, &String)> = table.failed_rows().collect();
    if !failed.is_empty() {
        writeln!(w)?;
        writeln!(w, "## Trees not counted")?;
        writeln!(w)?;
        for (row, why) in failed {
            writeln!(
                w,
                "- **{}** at `{}`: {}",
                cell(&row.tree_name()),
                cell(row.key.pinned_cell()),
                cell(why)
            )?;
        }
    }
    Ok(())
}

/// Writes each counted archive's commit and sha256, once: a tree of a dated corpus
/// whose commit stands at several dates is one line naming each date.
fn write_archives<W: Write>(w: &mut W, table: &Table) -> io::Result<()> {
    writeln!(w)?;
    writeln!(w, "## Archives")?;
    writeln!(w)?;
    // Each archive, in the table's order: the tree's name, its dates, the commit,
    // the note on the commit's source and the sha256.
    let mut lines: Vec<(String, Vec<&str>, &str, &str, &str)> = Vec::new();
    let mut at: std::collections::HashMap<(&str, Option<&str>, &str, &str), usize> =
        std::collections::HashMap::new();
    for row in &table.rows {
        let Ok(c) = &row.outcome else {
            continue;
        };
        let from_pin = if c.commit_source == CommitSource::Pinned {
            " (commit from the pin: the archive names none)"
        } else {
            ""
        };
        let sha = if c.sha256.is_empty() { "-" } else { &c.sha256 };
        let key = (
            row.key.repo.as_str(),
            row.key.subfolder.as_deref(),
            c.commit.as_str(),
            sha,
        );
        let date = row.key.as_of.as_deref();
        match (date, at.get(&key)) {
            (Some(date), Some(&i)) => lines[i].1.push(date),
            _ => {
                at.insert(key, lines.len());
                let dates = date.into_iter().collect();
                lines.push((row.undated_name(), dates, &c.commit, from_pin, sha));
            }
        }
    }
    for (name, dates, commit, from_pin, sha) in lines {
        let dates = match dates.is_empty() {
            true => String::new(),
            false => format!(" as of {}", dates.join(", ")),
        };
        writeln!(
            w,
            "- {}{} `{}`{}: sha256 `{}`",
            cell(&name),
            cell(&dates),
            commit,
            from_pin,
            sha
        )?;
    }
    Ok(())
}

/// Writes the method's limits, numbered as one list with those of a profile and
/// of dates when the table has them.
fn write_limits<W: Write>(w: &mut W, table: &Table) -> io::Result<()> {
    writeln!(w)?;
    w.write_all(LIMITS.as_bytes())?;
    // The extra limits are numbered on from the last of LIMITS, so that the raw
    // Markdown reads as one list.
    let mut number = LIMITS_COUNT;
    if table.columns.has_profile() {
        number += 1;
        write!(w, "{number}. {PROFILE_LIMITS}")?;
    }
    if table.is_dated() {
        number += 1;
        write!(w, "{number}. {HISTORY_LIMITS}")?;
    }
    Ok(())
}

/// How many items [`LIMITS`] numbers.
const LIMITS_COUNT: usize = 6;

/// What a spelling profile can and cannot see, carried by every report that has
/// profile columns (docs/method.md, "Spelling profiles"); its number follows the
/// limits before it.
pub const PROFILE_LIMITS: &str = "\
**A profile sees spellings, not declarations.** A `_sdk` column sums the spellings \
the SDKs make authors write (`read_only_hint`, `ReadOnly = true`, `.read_only(`, the \
camelCase name), each under its own case rule; the literal columns keep their meaning. \
Positional constructors (Java, Kotlin, PHP) name no hint and stay invisible to any \
count, and a spelling can appear in unrelated code (a C# `ReadOnly = true` of some \
other attribute).
";

/// What a dated pin cannot tell, carried by every dated report (docs/method.md,
/// "Dates"); its number follows the limits before it.
pub const HISTORY_LIMITS: &str = "\
**History is read as it is now.** A date's commit is found in the default branch's \
first-parent history as the repository serves it today, by committer date: a branch \
that was force-pushed answers what its history says now, not what it held then, and a \
commit whose clock was wrong is placed by that clock. A repository created, renamed or \
deleted after a date is pinned as it is now or not at all, and the list of \
repositories is today's, not the date's.
";

/// The method's limits, carried by every report (docs/method.md, "Limits").
pub const LIMITS: &str = "\
## What these counts cannot tell

1. **Literals, not tools.** A count is of the field name wherever it appears: \
declarations, comments, docs, tests, copies of the schema. A preset that sets all four \
fields once and is imported by many tools counts once. In the published census, one \
tree reads 6 in every column while its presets annotate about fifteen tools, a \
two-and-a-half-fold undercount of annotated tools.
2. **A zero is about the tree, not the wire.** It says the literals are absent from \
that tree at that commit. A framework can attach annotations at registration or \
serialization, and some SDKs spell the fields differently (Rust SDKs use \
`read_only_hint`; the C# SDK uses `ReadOnly`, `Destructive`, `Idempotent`, \
`OpenWorld`), so a zero does not say that `tools/list` omits them.
3. **Source is not a deployment.** No running server is checked by a census. What a \
server actually declares is read with `mcp-hint-census probe`.
4. **Counts move with every commit.** A row names a commit, never a branch; rerun with \
the same pins to compare.
5. **An archive is what `git archive` writes, not the commit's tree.** Files marked \
`export-ignore` are absent and `export-subst` files rewritten, as the forge applies the \
repository's attributes: of 96 real repositories, 6 archives differ from their commit, 3 \
of them in hint counts. `mcp-hint-census scan --git` reads the commit's own tree.
6. **Absent is not false.** The census cannot tell a tool that omitted a hint from one \
that declared it false; only the wire can.
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::terms::{self, Columns};
    use crate::infra::error::FailureKind;
    use crate::table::{Failure, TreeKey};

    /// Returns the numbers that open the report's list items (`N. **...`), in order.
    fn item_numbers(md: &str) -> Vec<u32> {
        md.lines()
            .filter_map(|line| line.split_once(". **"))
            .filter_map(|(number, _)| number.parse().ok())
            .collect()
    }

    fn report(columns: Columns, as_of: &str) -> String {
        let table = Table {
            columns,
            date: "2026-01-01".into(),
            rows: vec![Row::for_test(
                as_of,
                Err(Failure::new(FailureKind::Other, "gone")),
            )],
            dating: Default::default(),
            packages: Default::default(),
        };
        let mut md = Vec::new();
        write_markdown(&mut md, &table).unwrap();
        String::from_utf8(md).unwrap()
    }

    /// Returns a counted row of `repo` as of `as_of` with one file and all zeros.
    fn zero(repo: &str, as_of: &str, width: usize) -> Row {
        Row {
            key: TreeKey {
                repo: repo.into(),
                pinned: Some("abcd".into()),
                subfolder: None,
                as_of: crate::table::non_empty(as_of.to_string()),
            },
            server: None,
            note: None,
            outcome: Ok(crate::table::Counted {
                commit: "abcd".into(),
                commit_source: crate::table::CommitSource::Pinned,
                count: crate::count::TreeCount {
                    files_walked: 1,
                    bytes_read: 1,
                    counts: vec![0; width],
                    files: Default::default(),
                },
                sha256: String::new(),
                tools: None,
            }),
        }
    }

    #[test]
    fn a_commit_before_the_spec_named_the_control_is_no_false_alarm() {
        let flagged = |controls: &[&str]| -> (Vec<String>, String) {
            let columns = Columns::new(&terms::DEFAULT_TERMS, controls).unwrap();
            let width = columns.len();
            let rows = vec![
                zero("o/early", "2025-01-01", width),
                zero("o/dormant", "2025-06-01", width),
                zero("o/recent", "2025-06-01", width),
                zero("o/that-day", "2025-03-26", width),
                zero("o/eve", "2025-03-26", width),
            ];
            // 1738368000 is 2025-02-01T00:00:00Z, 1743465600 2025-04-01T00:00:00Z,
            // 1742947199 2025-03-25T23:59:59Z (Python's datetime).
            let committed = [
                ("o/dormant", 1_738_368_000),
                ("o/recent", 1_743_465_600),
                ("o/eve", 1_742_947_199),
            ];
            let dating = crate::table::Dating {
                not_yet: Vec::new(),
                committed: committed
                    .iter()
                    .map(|(repo, t)| {
                        (
                            rows.iter()
                                .find(|r| r.key.repo == *repo)
                                .unwrap()
                                .key
                                .clone(),
                            *t,
                        )
                    })
                    .collect(),
            };
            let table = Table {
                columns,
                date: "2026-01-01".into(),
                rows,
                dating,
                packages: Default::default(),
            };
            let names = table.silent_rows().map(|r| r.key.repo.clone()).collect();
            let mut md = Vec::new();
            write_markdown(&mut md, &table).unwrap();
            (names, String::from_utf8(md).unwrap())
        };
        let (names, md) = flagged(&["annotations"]);
        assert_eq!(names, ["o/recent", "o/that-day"], "{md}");
        assert!(
            md.contains("- **o/recent as of 2025-06-01** held files"),
            "{md}"
        );
        assert!(!md.contains("**o/early as of"), "{md}");
        assert!(
            md.contains(
                "\n3 trees read zero on every term and every control at a commit before \
                 2025-03-26, the specification version that named the control: they could not \
                 hold it, so they are not worth a second look.\n"
            ),
            "{md}"
        );
        // The default word, spelt another way, is the same term.
        assert_eq!(flagged(&["Annotations"]).0, ["o/recent", "o/that-day"]);
        // A control of the user's own could be in any commit: today's rule.
        let all = ["o/early", "o/dormant", "o/recent", "o/that-day", "o/eve"];
        for controls in [&["import"][..], &["annotations", "import"], &[]] {
            let (names, md) = flagged(controls);
            assert_eq!(names, all, "{controls:?}");
            assert!(!md.contains("before the controls existed"), "{md}");
        }
    }

    #[test]
    fn an_archive_at_several_dates_is_listed_once_with_each_date() {
        let columns = Columns::default_columns();
        let width = columns.len();
        let mut moved = zero("o/a", "2025-03-01", width);
        if let Ok(c) = &mut moved.outcome {
            c.commit = "ef01".into();
        }
        let table = Table {
            columns,
            date: "2026-01-01".into(),
            rows: vec![
                zero("o/a", "2025-01-01", width),
                zero("o/b", "2025-01-01", width),
                zero("o/a", "2025-02-01", width),
                moved,
            ],
            dating: Default::default(),
            packages: Default::default(),
        };
        let mut md = Vec::new();
        write_archives(&mut md, &table).unwrap();
        let from_pin = "(commit from the pin: the archive names none): sha256 `-`";
        assert_eq!(
            String::from_utf8(md).unwrap(),
            format!(
                "\n## Archives\n\n\
                 - o/a as of 2025-01-01, 2025-02-01 `abcd` {from_pin}\n\
                 - o/b as of 2025-01-01 `abcd` {from_pin}\n\
                 - o/a as of 2025-03-01 `ef01` {from_pin}\n"
            )
        );
    }

    #[test]
    fn the_limits_are_numbered_once_each_with_a_profile_and_dates() {
        let profile = terms::load_profile("sdk").unwrap();
        let with_profile = Columns::default_columns().with_profile(profile).unwrap();
        let md = report(with_profile.clone(), "2025-06-01");
        assert_eq!(item_numbers(&md), [1, 2, 3, 4, 5, 6, 7, 8], "{md}");
        assert!(md.contains("\n7. **A profile sees spellings"), "{md}");
        assert!(md.contains("\n8. **History is read as it is now."), "{md}");
        let md = report(with_profile, "");
        assert_eq!(item_numbers(&md), [1, 2, 3, 4, 5, 6, 7], "{md}");
        let md = report(Columns::default_columns(), "2025-06-01");
        assert_eq!(item_numbers(&md), [1, 2, 3, 4, 5, 6, 7], "{md}");
        assert!(md.contains("\n7. **History is read as it is now."), "{md}");
        let md = report(Columns::default_columns(), "");
        assert_eq!(item_numbers(&md), [1, 2, 3, 4, 5, 6], "{md}");
    }
}
