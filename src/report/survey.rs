//! Sums a table's tool definitions into the survey summary of the Markdown report
//! and its chart: how many trees hold tools, annotated or not, and per hint the share
//! of tools that declare it, overall and by SDK family (docs/method.md, "Tools").
//!
//! Only a tree's own tools count: definitions of kind `tool` in `source` (tests,
//! examples, copies and dynamic registration sites are in the tools table, not
//! here). A hint is declared when a definition sets it: `true`, `false` or `?` (set
//! by an expression the finder could not resolve); `unknown` is no declaration. A
//! definition is annotated when one hint is `true` or `false`, unresolved when it
//! has a `?` or `unknown` and nothing definite. Per server, a tree is one vote: all
//! of its tools annotated, some, or none. Only rows the finder read count; a failed
//! row, or one counted with the finder off, is in no figure. A dated table is
//! summed per date (see `trend`), never across dates.

use std::io::{self, Write};

use super::cells::cell;
use super::chart::{self, Chart, Series};
use crate::infra::messages::count;
use crate::table::Table;
use crate::tools::hints::Hint;
use crate::tools::{DefKind, Family, FoundTools, HintState, Role, Standing, ToolDef};

/// Holds the number of tools of one group and how many declare each hint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shares {
    pub tools: u64,
    /// Per hint, in the schema's order: tools that declare it (`true`, `false`, `?`).
    pub declaring: [u64; 4],
    /// Per hint: of those, the tools that set it to `?`.
    pub unresolved: [u64; 4],
}

impl Shares {
    fn add(&mut self, tool: &ToolDef) {
        self.tools += 1;
        for (i, state) in tool.hints.iter().enumerate() {
            self.declaring[i] += u64::from(matches!(state, Some(s) if *s != HintState::Unknown));
            self.unresolved[i] += u64::from(*state == Some(HintState::Unresolved));
        }
    }

    /// Returns the share of the group's tools declaring hint `i`, in percent; 0 for
    /// a group of no tool.
    pub fn percent(&self, i: usize) -> f64 {
        match self.tools {
            0 => 0.0,
            n => self.declaring[i] as f64 * 100.0 / n as f64,
        }
    }
}

/// Holds the survey summary of a table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Survey {
    /// Trees the finder read.
    pub trees: u64,
    /// Trees with at least one tool of their own found.
    pub with_tools: u64,
    /// Trees all of whose tools are annotated.
    pub all_annotated: u64,
    /// Trees some, not all, of whose tools are annotated.
    pub some_annotated: u64,
    /// Trees with tools, none of them annotated.
    pub none_annotated: u64,
    /// Trees with no tool found but with dynamic registration sites.
    pub dynamic_only: u64,
    /// Trees in which neither a tool nor a dynamic site was found.
    pub no_tool: u64,
    /// Tools with a hint `true` or `false`.
    pub annotated: u64,
    /// Tools with a `?` or `unknown` and nothing definite.
    pub unresolved: u64,
    /// Every tool.
    pub all: Shares,
    /// Per SDK family with at least one tool, in `Family::ALL` order.
    pub by_family: Vec<(Family, Shares)>,
    /// Definitions not counted: in tests, examples and copies, and dynamic sites.
    pub not_counted: u64,
    /// The names of the trees that register tools only dynamically, in table order.
    pub dynamic_trees: Vec<String>,
}

impl Survey {
    /// Adds one tree the finder read.
    pub fn add(&mut self, found: &FoundTools, families: &mut [Shares]) {
        self.trees += 1;
        let mut tools = 0;
        let mut annotated = 0;
        for tool in found.counted() {
            tools += 1;
            match tool.standing() {
                Standing::Annotated => annotated += 1,
                Standing::Unresolved => self.unresolved += 1,
                Standing::Silent => {}
            }
            self.all.add(tool);
            let at = Family::ALL
                .iter()
                .position(|&f| f == tool.family)
                .expect("every family is in Family::ALL");
            families[at].add(tool);
        }
        self.annotated += annotated;
        self.not_counted += found.tools.len() as u64 - tools;
        let dynamic = found
            .tools
            .iter()
            .any(|t| t.kind == DefKind::Dynamic && t.role == Role::Source);
        match (tools, annotated) {
            (0, _) if dynamic => self.dynamic_only += 1,
            (0, _) => self.no_tool += 1,
            (_, 0) => self.none_annotated += 1,
            (n, a) if n == a => self.all_annotated += 1,
            _ => self.some_annotated += 1,
        }
        self.with_tools += u64::from(tools > 0);
    }
}

/// Returns the survey summary of the rows `keep` selects (a dated table's rows of
/// one date); `None` when the finder read none of them.
pub fn survey_of(table: &Table, keep: impl Fn(&crate::table::Row) -> bool) -> Option<Survey> {
    let mut survey = Survey::default();
    let mut families: Vec<Shares> = vec![Shares::default(); Family::ALL.len()];
    for row in table.rows.iter().filter(|r| keep(r)) {
        if let Some(found) = row.outcome.as_ref().ok().and_then(|c| c.tools.as_ref()) {
            let before = survey.dynamic_only;
            survey.add(found, &mut families);
            if survey.dynamic_only > before {
                survey.dynamic_trees.push(row.tree_name());
            }
        }
    }
    survey.by_family = Family::ALL
        .into_iter()
        .zip(families)
        .filter(|(_, shares)| shares.tools > 0)
        .collect();
    (survey.trees > 0).then_some(survey)
}

/// Returns the survey summary of an undated `table`; `None` when the finder read no
/// tree, or the table is dated (its figures are per date, in "Over time").
pub fn survey(table: &Table) -> Option<Survey> {
    match table.is_dated() {
        true => None,
        false => survey_of(table, |_| true),
    }
}

/// Returns the chart of the survey: per group (all tools, then each family), the
/// share of tools declaring each hint.
pub fn shares_chart(survey: &Survey, date: &str) -> Chart {
    let groups: Vec<(&str, &Shares)> = std::iter::once(("all", &survey.all))
        .chain(survey.by_family.iter().map(|(f, s)| (f.as_str(), s)))
        .collect();
    Chart {
        title: format!("Share of tool definitions declaring each hint, {date}"),
        categories: groups
            .iter()
            .map(|(name, shares)| format!("{name} ({})", shares.tools))
            .collect(),
        series: Hint::ALL
            .iter()
            .enumerate()
            .map(|(i, hint)| Series {
                name: hint.name().to_string(),
                values: groups
                    .iter()
                    .map(|(_, s)| (s.tools > 0).then(|| s.percent(i)))
                    .collect(),
            })
            .collect(),
        y_label: "% of tool definitions".into(),
        y_max: 100.0,
        unit: "%".into(),
    }
}

/// Returns the SVG chart of the survey.
pub fn shares_svg(survey: &Survey, date: &str) -> anyhow::Result<String> {
    chart::bars_svg(&shares_chart(survey, date))
}

/// Writes the survey summary in Markdown: the trees by what was found, then per
/// hint the share of tools declaring it, overall and by SDK family, and the chart
/// beside the report (`chart`, a file name relative to the report).
pub fn write_survey<W: Write>(mut w: W, survey: &Survey, chart: &str) -> io::Result<()> {
    writeln!(w, "## Tools found in source")?;
    writeln!(w)?;
    writeln!(
        w,
        "Of {} read by the tool finder, {} define tools of their own: {} with every tool \
         annotated, {} with some, {} with none; {} register tools only dynamically (in a \
         loop or from data: how many is not known), and {} define none.",
        count(survey.trees, "tree", "trees"),
        survey.with_tools,
        survey.all_annotated,
        survey.some_annotated,
        survey.none_annotated,
        survey.dynamic_only,
        survey.no_tool,
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "{} in source in all: {} annotated (a hint set to `true` or `false`), {} unresolved \
         (a hint set to a value the finder could not read, `?`, or annotations that may or \
         may not be there, `unknown`; nothing definite), {} silent. {} in tests, examples \
         and copies, and dynamic registration sites, are listed in the tools table and \
         counted in no figure here.",
        count(survey.all.tools, "tool", "tools"),
        survey.annotated,
        survey.unresolved,
        survey.all.tools - survey.annotated - survey.unresolved,
        count(survey.not_counted, "definition", "definitions"),
    )?;
    if !survey.dynamic_trees.is_empty() {
        writeln!(w)?;
        writeln!(
            w,
            "Registers tools dynamically (no tool found, dynamic registration sites):"
        )?;
        writeln!(w)?;
        for name in &survey.dynamic_trees {
            writeln!(w, "- {}", cell(name))?;
        }
    }
    writeln!(w)?;
    write!(w, "| SDK | Tools |")?;
    for hint in Hint::ALL {
        write!(w, " {} |", hint.name())?;
    }
    writeln!(w)?;
    writeln!(w, "|---|---:|---:|---:|---:|---:|")?;
    let groups = std::iter::once(("all", &survey.all))
        .chain(survey.by_family.iter().map(|(f, s)| (f.as_str(), s)));
    for (name, shares) in groups {
        write!(w, "| {name} | {} |", shares.tools)?;
        for i in 0..Hint::ALL.len() {
            match shares.unresolved[i] {
                0 => write!(w, " {:.1}% ({}) |", shares.percent(i), shares.declaring[i])?,
                k => write!(
                    w,
                    " {:.1}% ({}; {k} ?) |",
                    shares.percent(i),
                    shares.declaring[i]
                )?,
            }
        }
        writeln!(w)?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "Each cell is the share of the group's tools that declare the hint (`true`, \
         `false` or `?`), their number, and how many of them are `?`. The tools table \
         beside this report lists every definition with its path, line, kind, role and \
         hints."
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "![Share of tool definitions declaring each hint]({chart})"
    )?;
    Ok(())
}

/// Returns the file name of the survey chart beside `census-DATE.md`.
pub fn chart_name(date: &str) -> String {
    format!("census-{date}.svg")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::terms::Columns;
    use crate::count::TreeCount;
    use crate::table::{CommitSource, Counted, Row};

    fn row(as_of: &str, tools: Vec<ToolDef>) -> Row {
        Row::for_test(
            as_of,
            Ok(Counted {
                commit: "abcd".repeat(10),
                commit_source: CommitSource::Archive,
                count: TreeCount::new(5),
                sha256: String::new(),
                tools: Some(FoundTools {
                    tools,
                    skipped_files: 0,
                }),
            }),
        )
    }

    fn tool(role: Role, kind: DefKind, hints: [Option<HintState>; 4]) -> ToolDef {
        ToolDef {
            path: b"a.ts".to_vec(),
            line: 1,
            kind,
            role,
            family: Family::TypeScript,
            name: Some("t".into()),
            name_class: crate::tools::NameClass::Unknown,
            hints,
        }
    }

    #[test]
    fn trees_vote_once_and_only_their_own_tools_count() {
        let t = Some(HintState::True);
        let q = Some(HintState::Unresolved);
        let u = Some(HintState::Unknown);
        let table = Table {
            columns: Columns::default_columns(),
            date: "2026-01-01".into(),
            rows: vec![
                // Every tool annotated; a test's tool is not one of them.
                row(
                    "",
                    vec![
                        tool(Role::Source, DefKind::Tool, [t, None, None, None]),
                        tool(Role::Test, DefKind::Tool, [None; 4]),
                    ],
                ),
                // One of two: some; the `?`-only tool is unresolved, not annotated.
                row(
                    "",
                    vec![
                        tool(Role::Source, DefKind::Tool, [t, None, None, None]),
                        tool(Role::Source, DefKind::Tool, [q, None, None, None]),
                    ],
                ),
                // Unknown only: none annotated.
                row("", vec![tool(Role::Source, DefKind::Tool, [u; 4])]),
                // A dynamic site alone.
                row("", vec![tool(Role::Source, DefKind::Dynamic, [None; 4])]),
                row("", vec![]),
            ],
            dating: Default::default(),
            packages: Default::default(),
        };
        let s = survey(&table).unwrap();
        assert_eq!(
            (
                s.trees,
                s.with_tools,
                s.all_annotated,
                s.some_annotated,
                s.none_annotated
            ),
            (5, 3, 1, 1, 1)
        );
        assert_eq!((s.dynamic_only, s.no_tool), (1, 1));
        assert_eq!((s.all.tools, s.annotated, s.unresolved), (4, 2, 2));
        assert_eq!(s.not_counted, 2);
        // `unknown` declares nothing; `?` declares.
        assert_eq!(s.all.declaring, [3, 0, 0, 0]);
        assert_eq!(s.all.unresolved, [1, 0, 0, 0]);
        assert_eq!(s.dynamic_trees, ["o/n"]);
    }

    #[test]
    fn a_dated_table_is_never_pooled_across_dates() {
        let annotated = || {
            vec![tool(
                Role::Source,
                DefKind::Tool,
                [Some(HintState::True), None, None, None],
            )]
        };
        let table = Table {
            columns: Columns::default_columns(),
            date: "2026-01-01".into(),
            rows: vec![
                row("2025-01-01", annotated()),
                row("2025-06-01", annotated()),
            ],
            dating: Default::default(),
            packages: Default::default(),
        };
        assert!(
            survey(&table).is_none(),
            "its figures are per date, in Over time"
        );
        let june = survey_of(&table, |r| r.key.as_of.as_deref() == Some("2025-06-01")).unwrap();
        assert_eq!((june.trees, june.all.tools), (1, 1));
    }
}
