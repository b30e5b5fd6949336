//! Formats "What silence costs": the tools that declare nothing, by what their names
//! say they do (docs/method.md, "Name classes"), beside what the tools that do declare
//! set `readOnlyHint` to, so that the class's precision is measured where authors
//! declared rather than assumed. Pooled and per tree (a dated table per date, never
//! across dates), for the census report, `scan --tools` and the wire survey.
//!
//! Only a tree's own tools count (kind `tool`, role `source`), as in every tools
//! figure, from the tools table's rows alone: the name class, the hints. A tool
//! "declares nothing" when it sets none of the four hints (`?` and `unknown` are
//! set). This module sums and formats; it classes nothing itself.

use std::io::{self, Write};

use super::cells::{cell, thousands};
use crate::table::{Row, Table};
use crate::tools::hints::Hint;
use crate::tools::{DefKind, HintState, NameClass, Role, Standing};

/// Holds the figures of one name class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassCount {
    pub tools: u64,
    /// Tools that set none of the four hints.
    pub silent: u64,
    /// Tools whose readOnlyHint is `true`.
    pub read_only: u64,
    /// Tools whose readOnlyHint is `false`.
    pub not_read_only: u64,
}

/// Holds the figures of a group of tools, per class in [`NameClass::ALL`] order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally(pub [ClassCount; 4]);

impl Tally {
    /// Adds one tool: its class, whether it declares nothing, and its readOnlyHint
    /// when `true` or `false`.
    pub fn add(&mut self, class: NameClass, is_silent: bool, read_only: Option<bool>) {
        let at = &mut self.0[class as usize];
        at.tools += 1;
        at.silent += u64::from(is_silent);
        at.read_only += u64::from(read_only == Some(true));
        at.not_read_only += u64::from(read_only == Some(false));
    }

    /// Adds every tool of a tree's own (kind `tool`, role `source`) in `row`.
    fn add_row(&mut self, row: &Row) {
        for tool in super::tools::row_tools(row)
            .iter()
            .filter(|t| t.kind == DefKind::Tool && t.role == Role::Source)
        {
            let read_only = match tool.hints[Hint::ReadOnly as usize] {
                Some(HintState::True) => Some(true),
                Some(HintState::False) => Some(false),
                _ => None,
            };
            self.add(
                tool.name_class,
                tool.standing() == Standing::Silent,
                read_only,
            );
        }
    }

    /// Adds another group's figures to this one's.
    pub fn merge(&mut self, other: &Tally) {
        for (sum, c) in self.0.iter_mut().zip(other.0) {
            sum.tools += c.tools;
            sum.silent += c.silent;
            sum.read_only += c.read_only;
            sum.not_read_only += c.not_read_only;
        }
    }

    fn total(&self, field: fn(&ClassCount) -> u64) -> u64 {
        self.0.iter().map(field).sum()
    }

    /// Returns the tools that declare nothing.
    pub fn silent(&self) -> u64 {
        self.total(|c| c.silent)
    }

    /// Returns the tools of a write or destructive name declared readOnlyHint true.
    pub fn contradicted(&self) -> u64 {
        self.0[NameClass::Write as usize].read_only
            + self.0[NameClass::Destructive as usize].read_only
    }

    /// Returns the rows of the class table: the class, its tools, those that declare
    /// nothing, those declaring readOnlyHint true and false.
    pub fn table(&self) -> Vec<Vec<String>> {
        let mut lines = vec![[
            "name reads as",
            "tools",
            "declare nothing",
            "readOnlyHint true",
            "readOnlyHint false",
        ]
        .map(str::to_string)
        .to_vec()];
        for class in NameClass::ALL {
            let c = &self.0[class as usize];
            lines.push(vec![
                class.as_str().to_string(),
                thousands(c.tools),
                thousands(c.silent),
                thousands(c.read_only),
                thousands(c.not_read_only),
            ]);
        }
        lines
    }

    /// Returns the sentence on the exposed population: the tools that declare
    /// nothing and, of those, the read names.
    pub fn exposed(&self) -> String {
        let silent = self.silent();
        let read = self.0[NameClass::Read as usize].silent;
        format!(
            "{} of {} {} nothing, and every client following the schema treats {} as not \
             read-only, destructive and open-world; {} of them {} read {}.",
            thousands(silent),
            thousands(self.total(|c| c.tools)),
            if silent == 1 { "declares" } else { "declare" },
            if silent == 1 { "it" } else { "them" },
            thousands(read),
            if read == 1 { "has a" } else { "have" },
            if read == 1 { "name" } else { "names" },
        )
    }

    /// Returns the measured precision of each class where authors declared
    /// readOnlyHint: for read names the share declaring it `true`, for write and
    /// destructive names the share declaring it `false`, each with its counts; `-`
    /// where no tool of the class declared it.
    pub fn precision(&self) -> String {
        let parts: Vec<String> = [NameClass::Read, NameClass::Write, NameClass::Destructive]
            .into_iter()
            .map(|class| {
                let c = &self.0[class as usize];
                let (agree, word) = match class {
                    NameClass::Read => (c.read_only, "true"),
                    _ => (c.not_read_only, "false"),
                };
                let declared = c.read_only + c.not_read_only;
                match declared {
                    0 => format!("{} names: - (none declares readOnlyHint)", class.as_str()),
                    n => format!(
                        "{} names: {} declare readOnlyHint {word} ({} of {})",
                        class.as_str(),
                        percent(agree, n),
                        thousands(agree),
                        thousands(n)
                    ),
                }
            })
            .collect();
        format!(
            "Where authors declared readOnlyHint, the name agreed with them: {}.",
            parts.join("; ")
        )
    }
}

/// Returns `n` of `of` in percent with one decimal.
fn percent(n: u64, of: u64) -> String {
    format!("{:.1}%", n as f64 * 100.0 / of as f64)
}

/// Holds "What silence costs" for a group of rows: pooled, and per tree with tools.
#[derive(Clone, Debug, Default)]
pub struct Silence {
    pub pooled: Tally,
    /// The trees with at least one tool of their own, in table order.
    pub trees: Vec<(String, Tally)>,
}

impl Silence {
    /// Returns the figures of the rows `keep` selects that the finder read; `None`
    /// when no tree has a tool of its own.
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a Row>) -> Option<Silence> {
        let mut out = Silence::default();
        for row in rows {
            let mut tally = Tally::default();
            tally.add_row(row);
            if tally.total(|c| c.tools) == 0 {
                continue;
            }
            out.pooled.merge(&tally);
            out.trees.push((row.tree_name(), tally));
        }
        (!out.trees.is_empty()).then_some(out)
    }

    /// Returns the per-tree table: each tree's tools, those declaring nothing by
    /// class, and the write or destructive names declared read-only.
    pub fn tree_table(&self) -> Vec<Vec<String>> {
        let mut lines = vec![[
            "tree",
            "tools",
            "declare nothing",
            "of them read names",
            "write names",
            "destructive names",
            "unknown names",
            "write or destructive names declared read-only",
        ]
        .map(str::to_string)
        .to_vec()];
        for (tree, tally) in &self.trees {
            let mut line = vec![
                tree.clone(),
                thousands(tally.total(|c| c.tools)),
                thousands(tally.silent()),
            ];
            line.extend(NameClass::ALL.map(|c| thousands(tally.0[c as usize].silent)));
            line.push(thousands(tally.contradicted()));
            lines.push(line);
        }
        lines
    }
}

/// Writes `lines` (a header, then rows) as a Markdown table, the first column
/// left-aligned and the others right-aligned.
pub fn write_table(w: &mut dyn Write, lines: &[Vec<String>]) -> io::Result<()> {
    for (i, line) in lines.iter().enumerate() {
        let cells: Vec<String> = line.iter().map(|c| cell(c)).collect();
        writeln!(w, "| {} |", cells.join(" | "))?;
        if i == 0 {
            let rule: Vec<&str> = (0..line.len())
                .map(|j| if j == 0 { "---" } else { "---:" })
                .collect();
            writeln!(w, "|{}|", rule.join("|"))?;
        }
    }
    Ok(())
}

/// Writes one group's figures in Markdown: the class table, the exposed population,
/// the precision, and the table per tree.
pub fn write_group(w: &mut dyn Write, silence: &Silence) -> io::Result<()> {
    write_table(w, &silence.pooled.table())?;
    writeln!(w)?;
    writeln!(w, "{}", silence.pooled.exposed())?;
    writeln!(w)?;
    writeln!(w, "{}", silence.pooled.precision())?;
    writeln!(w)?;
    writeln!(
        w,
        "By tree (tools that declare nothing, by what their names say):"
    )?;
    writeln!(w)?;
    write_table(w, &silence.tree_table())
}

/// The paragraph that opens the section.
const INTRO: &str = "A client that follows the schema's defaults treats a tool that declares \
    no hint as not read-only, destructive and open-world, so every silent read-only tool is \
    one it should refuse or confirm. A literal count cannot tell a silent read-only tool from \
    a silent destructive one; a tool's name can, as a hint about a hint (`get_or_create_user` \
    reads as `read` and writes): the name class (docs/method.md, \"Name classes\") of the \
    trees' own tools (in source), from the tools table, each tree's as every tools figure \
    counts them (a subfolder tree and its whole repository each count the tools they hold).";

/// Writes "What silence costs" for the census report: pooled for an undated table,
/// per date for a dated one. Nothing when no tree has a tool of its own.
pub fn write_markdown<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    let w: &mut dyn Write = &mut w;
    let mut dates: Vec<Option<&str>> = table.rows.iter().map(|r| r.key.as_of.as_deref()).collect();
    dates.sort();
    dates.dedup();
    let groups: Vec<(Option<&str>, Silence)> = dates
        .into_iter()
        .filter_map(|date| {
            Silence::of(table.rows.iter().filter(|r| r.key.as_of.as_deref() == date))
                .map(|s| (date, s))
        })
        .collect();
    if groups.is_empty() {
        return Ok(());
    }
    writeln!(w)?;
    writeln!(w, "## What silence costs")?;
    writeln!(w)?;
    writeln!(w, "{INTRO}")?;
    for (date, silence) in &groups {
        writeln!(w)?;
        if let Some(date) = date {
            writeln!(w, "### {date}")?;
            writeln!(w)?;
        }
        write_group(w, silence)?;
    }
    Ok(())
}

/// Prints the pooled figures of `table` for a terminal (`scan --tools`): the class
/// table, the exposed population and the precision.
pub fn print<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    let Some(silence) = Silence::of(&table.rows) else {
        return Ok(());
    };
    writeln!(w)?;
    writeln!(
        w,
        "what silence costs (the tools in source, by what their names say):"
    )?;
    super::terminal::write_aligned(
        &mut w,
        &silence.pooled.table(),
        super::terminal::Align::LeftThenRight(1),
    )?;
    writeln!(w, "{}", silence.pooled.exposed())?;
    writeln!(w, "{}", silence.pooled.precision())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::fixtures::counted;
    use crate::table::TreeKey;
    use crate::tools::hints::tests::tool;

    /// Returns a counted row of `repo` as of `as_of` whose tools are `names`, each
    /// with no hint but the first, declared read-only.
    fn row(repo: &str, as_of: Option<&str>, names: &[&str]) -> Row {
        let tools = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut def = tool([None; 4]);
                def.name = Some(name.to_string());
                def.name_class = NameClass::of(Some(name), None);
                if i == 0 {
                    def.hints[0] = Some(HintState::True);
                }
                def
            })
            .collect();
        let key = TreeKey {
            repo: repo.into(),
            pinned: Some("abcd".into()),
            subfolder: None,
            as_of: as_of.map(str::to_string),
        };
        counted(key, tools)
    }

    #[test]
    fn a_dated_table_is_summed_per_date_never_across_dates() {
        let table = Table {
            columns: crate::count::terms::Columns::default_columns(),
            date: "2026-01-01".into(),
            rows: vec![
                row("o/a", Some("2025-01-01"), &["get_a", "delete_b"]),
                row("o/a", Some("2025-06-01"), &["get_a", "delete_b", "list_c"]),
                row("o/b", Some("2025-06-01"), &["create_d"]),
            ],
            dating: Default::default(),
            packages: Default::default(),
        };
        let mut md = Vec::new();
        write_markdown(&mut md, &table).unwrap();
        let md = String::from_utf8(md).unwrap();
        let first = md.find("### 2025-01-01").expect("the first date");
        let second = md.find("### 2025-06-01").expect("the second date");
        assert!(first < second, "{md}");
        let (early, late) = (&md[first..second], &md[second..]);
        assert!(early.contains("| read | 1 | 0 | 1 | 0 |"), "{early}");
        assert!(early.contains("| destructive | 1 | 1 | 0 | 0 |"), "{early}");
        assert!(late.contains("| read | 2 | 1 | 1 | 0 |"), "{late}");
        assert!(late.contains("| write | 1 | 0 | 1 | 0 |"), "{late}");
        assert!(
            late.contains("| o/b as of 2025-06-01 | 1 | 0 | 0 | 0 | 0 | 0 | 1 |"),
            "{late}"
        );
        assert!(late.contains("2 of 4 declare nothing"), "{late}");
        assert_eq!(md.matches("## What silence costs").count(), 1);
    }

    #[test]
    fn the_figures_add_up_by_class_and_the_precision_is_of_the_declared() {
        let mut tally = Tally::default();
        tally.add(NameClass::Read, true, None);
        tally.add(NameClass::Read, false, Some(true));
        tally.add(NameClass::Read, false, Some(true));
        tally.add(NameClass::Read, false, Some(false));
        tally.add(NameClass::Write, false, Some(true));
        tally.add(NameClass::Unknown, true, None);
        assert_eq!(tally.silent(), 2);
        assert_eq!(tally.contradicted(), 1);
        assert_eq!(
            tally.precision(),
            "Where authors declared readOnlyHint, the name agreed with them: read names: 66.7% \
             declare readOnlyHint true (2 of 3); write names: 0.0% declare readOnlyHint false \
             (0 of 1); destructive names: - (none declares readOnlyHint)."
        );
        assert!(
            tally.exposed().starts_with("2 of 6 declare nothing"),
            "{}",
            tally.exposed()
        );
        assert!(
            tally.exposed().ends_with("1 of them has a read name."),
            "{}",
            tally.exposed()
        );
        assert_eq!(tally.table()[1], ["read", "4", "1", "2", "1"]);
    }
}
