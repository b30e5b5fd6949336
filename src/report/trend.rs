//! The time series of a dated census: per date, how many trees were counted and
//! what share of them spell each hint, and, of the tool definitions the finder found
//! in them, the share declaring each hint; as a Markdown section and an SVG line
//! chart (docs/method.md, "Dates").
//!
//! A tree share is of the trees counted at that date: the rows of the date whose
//! status is `ok`, each tree once per date it was pinned at, however many dates
//! resolved to its commit. A tree "spells" a hint when its count in the hint's
//! column is not zero. A tool share is of the definitions found in the counted trees
//! the finder read at that date; a tree it did not read (failed, or counted with the
//! finder off) and a file it did not parse (over a bound) add nothing to either side
//! of it, and a date with no definition has no share, never 0%. This module groups
//! rows by date and formats; it counts nothing itself.

use std::collections::BTreeMap;
use std::io::{self, Write};

use anyhow::Result;

use super::cells::cell;
use super::chart::{self, Chart, Series, XAxis};
use super::survey::{Shares, Survey};
use crate::infra::date;
use crate::table::{NotYet, Table};
use crate::tools::hints::Hint;
use crate::tools::Family;

/// Holds one date of the series.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Rows of the date that were counted.
    pub counted: u64,
    /// Rows of the date that failed.
    pub failed: u64,
    /// Trees of the corpus at the date whose repository had no commit yet: no row.
    pub not_yet: u64,
    /// Per hint column (in [`Trend::columns`] order): counted trees whose count is
    /// not zero.
    pub spelling: Vec<u64>,
    /// The tool definitions found in the date's counted trees.
    pub tools: ToolPoint,
}

/// Holds the tool definitions of one date: those of the counted trees the finder
/// read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolPoint {
    /// Counted trees the finder read (a tree counted with it off is not).
    pub trees: u64,
    /// Files of those trees the finder would have read but did not parse, because of
    /// a bound: what they define is unknown, and in no other figure.
    pub files_not_parsed: u64,
    /// The trees' own tools found (kind `tool`, role `source`).
    pub tools: u64,
    /// Tools with a hint `true` or `false`.
    pub annotated: u64,
    /// Per hint, in the schema's order: tools that declare it, `true`, `false` or `?`.
    pub declaring: [u64; 4],
    /// Per hint: of those, the tools that set it to `?`.
    pub unresolved: [u64; 4],
    /// Trees with tools: every tool annotated, some, none.
    pub servers: [u64; 3],
}

/// Holds the series of a dated table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trend {
    /// The names of the columns followed: every column that spells a hint.
    pub columns: Vec<String>,
    /// By date, earliest first.
    pub points: Vec<Point>,
    /// True when the finder read a tree at some date; the tools part of the section
    /// and chart is drawn only then.
    pub has_tools: bool,
    /// The trees that had no commit yet at some date, with those dates and the time
    /// of the first commit: by tree, in the corpus's sorted order.
    pub not_yet: Vec<NotYetTree>,
}

/// Holds a tree of the corpus and the dates before its repository's first commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotYetTree {
    /// `owner/name`, with `:subfolder` when only a subfolder is counted.
    pub name: String,
    /// Earliest first.
    pub dates: Vec<String>,
    /// The first commit's committer time, Unix seconds.
    pub first_commit: i64,
}

impl Trend {
    /// Returns the series of `table`, or `None` when its rows carry no date.
    pub fn of(table: &Table) -> Option<Trend> {
        if !table.is_dated() {
            return None;
        }
        let hints = table.columns.hint_columns();
        let names: Vec<&str> = table.columns.names().collect();
        let mut by_date: BTreeMap<&str, Point> = BTreeMap::new();
        let point_at = |date: &str| Point {
            date: date.to_string(),
            counted: 0,
            failed: 0,
            not_yet: 0,
            spelling: vec![0; hints.len()],
            tools: ToolPoint::default(),
        };
        for gap in &table.dating.not_yet {
            by_date
                .entry(gap.as_of.as_str())
                .or_insert_with(|| point_at(&gap.as_of))
                .not_yet += 1;
        }
        for row in &table.rows {
            let point = by_date
                .entry(row.key.as_of.as_deref().unwrap_or_default())
                .or_insert_with(|| point_at(row.key.as_of.as_deref().unwrap_or_default()));
            match &row.outcome {
                Ok(c) => {
                    point.counted += 1;
                    for (n, &i) in point.spelling.iter_mut().zip(&hints) {
                        *n += u64::from(c.count.counts[i] > 0);
                    }
                    if let Some(found) = &c.tools {
                        let mut one = Survey::default();
                        one.add(found, &mut [Shares::default(); Family::ALL.len()]);
                        let at = &mut point.tools;
                        at.trees += 1;
                        at.files_not_parsed += found.skipped_files;
                        at.tools += one.all.tools;
                        at.annotated += one.annotated;
                        for i in 0..Hint::ALL.len() {
                            at.declaring[i] += one.all.declaring[i];
                            at.unresolved[i] += one.all.unresolved[i];
                        }
                        at.servers[0] += one.all_annotated;
                        at.servers[1] += one.some_annotated;
                        at.servers[2] += one.none_annotated;
                    }
                }
                Err(_) => point.failed += 1,
            }
        }
        let points: Vec<Point> = by_date.into_values().collect();
        Some(Trend {
            columns: hints.iter().map(|&i| names[i].to_string()).collect(),
            has_tools: points.iter().any(|p| p.tools.trees > 0),
            points,
            not_yet: not_yet_trees(&table.dating.not_yet),
        })
    }

    /// Returns the charts of the shares, in percent, one line per hint: of the trees
    /// counted, per hint column; then, when the finder read some tree, of the tool
    /// definitions found. A date with nothing to share has no point.
    pub fn charts(&self) -> Vec<Chart> {
        let categories: Vec<String> = self.points.iter().map(|p| p.date.clone()).collect();
        let mut charts = vec![Chart {
            title: "Share of trees counted whose source spells each hint".to_string(),
            categories: categories.clone(),
            series: self
                .columns
                .iter()
                .enumerate()
                .map(|(j, name)| Series {
                    name: name.clone(),
                    values: self
                        .points
                        .iter()
                        .map(|p| percent(p.spelling[j], p.counted))
                        .collect(),
                })
                .collect(),
            y_label: "% of trees counted".to_string(),
            y_max: 100.0,
            unit: "%".to_string(),
        }];
        if self.has_tools {
            charts.push(Chart {
                title: "Share of tool definitions found that declare each hint".to_string(),
                categories,
                series: Hint::ALL
                    .iter()
                    .enumerate()
                    .map(|(i, hint)| Series {
                        name: hint.name().to_string(),
                        values: self
                            .points
                            .iter()
                            .map(|p| percent(p.tools.declaring[i], p.tools.tools))
                            .collect(),
                    })
                    .collect(),
                y_label: "% of tool definitions".to_string(),
                y_max: 100.0,
                unit: "%".to_string(),
            });
        }
        charts
    }

    /// Returns the charts as one SVG, a panel each, byte for byte the same for the
    /// same table.
    pub fn svg(&self) -> Result<String> {
        chart::lines_svg(&self.charts(), XAxis::Days)
    }

    /// Writes the Markdown section: the table of the series, the table of the tool
    /// definitions when the finder read some tree, and the chart, which is read from
    /// `svg_name` beside the report.
    pub fn write_markdown(&self, w: &mut dyn Write, svg_name: &str) -> io::Result<()> {
        writeln!(w, "## Over time")?;
        writeln!(w)?;
        writeln!(
            w,
            "Each date stands for the commit the default branch pointed to at its end \
             (23:59:59 UTC). A tree is pinned at a date when its repository had a commit \
             by then, and counted when its archive was read; a repository with no commit \
             yet has no tree at that date (no commit yet). A share is of the trees counted \
             at that date: those whose count of the hint is not zero. A tree counts at \
             every date it was pinned at, also when two dates name one commit."
        )?;
        writeln!(w)?;
        write!(w, "| As of | Pinned | Counted | Failed | No commit yet |")?;
        for name in &self.columns {
            write!(w, " {name} |")?;
        }
        writeln!(w)?;
        write!(w, "|---|---:|---:|---:|---:|")?;
        for _ in &self.columns {
            write!(w, "---:|")?;
        }
        writeln!(w)?;
        for p in &self.points {
            write!(
                w,
                "| {} | {} | {} | {} | {} |",
                p.date,
                p.counted + p.failed,
                p.counted,
                p.failed,
                p.not_yet
            )?;
            for &n in &p.spelling {
                write!(w, " {} |", share(n, p.counted, 0))?;
            }
            writeln!(w)?;
        }
        self.write_gaps(w)?;
        if self.has_tools {
            writeln!(w)?;
            self.write_tools_markdown(w)?;
        }
        writeln!(w)?;
        let alt = match self.has_tools {
            true => {
                "Share of trees counted whose source spells each hint, and of tool \
                 definitions found that declare each hint, by date"
            }
            false => "Share of trees counted whose source spells each hint, by date",
        };
        writeln!(w, "![{alt}]({svg_name})")?;
        Ok(())
    }

    /// Writes the trees that had no commit yet, with their first commit's time, and
    /// the dates where nothing was counted, with why.
    fn write_gaps(&self, w: &mut dyn Write) -> io::Result<()> {
        if !self.not_yet.is_empty() {
            writeln!(w)?;
            writeln!(
                w,
                "No commit yet, by tree: the dates by whose end its repository's default \
                 branch had no commit, and when its first commit came."
            )?;
            writeln!(w)?;
            for tree in &self.not_yet {
                writeln!(
                    w,
                    "- **{}**: {}; first commit {} UTC",
                    cell(&tree.name),
                    tree.dates.join(", "),
                    date::utc_time(tree.first_commit)
                )?;
            }
        }
        let empty: Vec<String> = self
            .points
            .iter()
            .filter(|p| p.counted == 0)
            .map(|p| {
                // A date is in the series for a row or a tree with no commit yet.
                let why = match p.failed {
                    0 => "no repository had a commit yet".to_string(),
                    n => format!("{n} pinned, none counted"),
                };
                format!("{} ({why})", p.date)
            })
            .collect();
        if !empty.is_empty() {
            writeln!(w)?;
            writeln!(
                w,
                "Nothing to count at {}: no share (`-`), and a gap in the chart.",
                empty.join(", ")
            )?;
        }
        Ok(())
    }

    /// Writes the table of the tool definitions per date.
    fn write_tools_markdown(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(
            w,
            "Of the trees' own tools found at each date (in source; tests, examples, \
             copies and dynamic registration sites are not counted), the share annotated \
             (a hint `true` or `false`) and, per hint, the share that declare it: set to \
             `true`, `false` or `?` (a value the finder could not resolve; how many are \
             `?` follows the share). Per server, the trees with tools whose every tool is \
             annotated, some, or none. Only the trees the finder read count (trees read): \
             a tree not counted, or counted with the finder off, is in no figure of this \
             table, and the files it did not parse (over a bound, the rows' \
             `tools_skipped`) are in neither the tools nor the shares, since what they \
             define is unknown. A date with no tool found has no share (`-`). Each date \
             is summed on its own, never pooled with another."
        )?;
        writeln!(w)?;
        write!(
            w,
            "| As of | Trees read | Files not parsed | Tools | Annotated | Servers: all / some / none |"
        )?;
        for hint in Hint::ALL {
            write!(w, " {} |", hint.name())?;
        }
        writeln!(w)?;
        writeln!(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")?;
        for p in &self.points {
            let t = &p.tools;
            write!(
                w,
                "| {} | {} | {} | {} | {} | {} / {} / {} |",
                p.date,
                t.trees,
                t.files_not_parsed,
                t.tools,
                share(t.annotated, t.tools, 0),
                t.servers[0],
                t.servers[1],
                t.servers[2]
            )?;
            for i in 0..Hint::ALL.len() {
                write!(w, " {} |", share(t.declaring[i], t.tools, t.unresolved[i]))?;
            }
            writeln!(w)?;
        }
        Ok(())
    }
}

/// Returns the trees of `gaps` (sorted by tree, then date), each with its dates.
fn not_yet_trees(gaps: &[NotYet]) -> Vec<NotYetTree> {
    let mut out: Vec<NotYetTree> = Vec::new();
    let mut last: Option<(&str, &str)> = None;
    for gap in gaps {
        let tree = (gap.repo.as_str(), gap.subfolder.as_str());
        match out.last_mut() {
            Some(at) if last == Some(tree) => at.dates.push(gap.as_of.clone()),
            _ => out.push(NotYetTree {
                name: match gap.subfolder.is_empty() {
                    true => gap.repo.clone(),
                    false => format!("{}:{}", gap.repo, gap.subfolder),
                },
                dates: vec![gap.as_of.clone()],
                first_commit: gap.first_commit,
            }),
        }
        last = Some(tree);
    }
    out
}

/// Returns a share's cell: `n (x.x%)` of `of`, with `; k ?` when `k` of the `n`
/// are `?`; `-` when `of` is 0.
fn share(n: u64, of: u64, unresolved: u64) -> String {
    match (percent(n, of), unresolved) {
        (None, _) => "-".to_string(),
        (Some(p), 0) => format!("{n} ({p:.1}%)"),
        (Some(p), k) => format!("{n} ({p:.1}%; {k} ?)"),
    }
}

/// Returns `n` of `of` in percent; `None` when `of` is 0.
fn percent(n: u64, of: u64) -> Option<f64> {
    (of > 0).then(|| n as f64 * 100.0 / of as f64)
}

/// Returns the file name of the trend chart of a table dated `date`.
pub fn svg_name(date: &str) -> String {
    format!("census-{date}-trend.svg")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::terms::Columns;
    use crate::count::TreeCount;
    use crate::infra::error::FailureKind;
    use crate::table::{CommitSource, Counted, Failure, Row};
    use crate::tools::{DefKind, Family, FoundTools, HintState, Role, ToolDef};

    fn row(as_of: &str, counts: Option<[u64; 5]>) -> Row {
        Row::for_test(
            as_of,
            match counts {
                Some(counts) => Ok(Counted {
                    commit: "abcd".into(),
                    commit_source: CommitSource::Pinned,
                    count: TreeCount {
                        files_walked: 1,
                        bytes_read: 1,
                        counts: counts.to_vec(),
                        files: Default::default(),
                    },
                    sha256: String::new(),
                    tools: None,
                }),
                None => Err(Failure::new(FailureKind::Other, "gone")),
            },
        )
    }

    #[test]
    fn shares_are_of_the_trees_counted_at_each_date() {
        let table = Table {
            columns: Columns::default_columns(),
            date: "2026-01-01".into(),
            dating: Default::default(),
            packages: Default::default(),
            rows: vec![
                row("2025-09-01", Some([3, 0, 0, 1, 9])),
                row("2025-06-01", Some([1, 0, 0, 0, 9])),
                row("2025-06-01", Some([0, 2, 0, 0, 0])),
                row("2025-09-01", None),
                row("2025-12-01", None),
            ],
        };
        let trend = Trend::of(&table).unwrap();
        assert_eq!(
            trend.columns,
            [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint"
            ]
        );
        let got: Vec<(&str, u64, u64, &[u64])> = trend
            .points
            .iter()
            .map(|p| (p.date.as_str(), p.counted, p.failed, p.spelling.as_slice()))
            .collect();
        assert_eq!(
            got,
            [
                ("2025-06-01", 2, 0, &[1, 1, 0, 0][..]),
                ("2025-09-01", 1, 1, &[1, 0, 0, 1][..]),
                ("2025-12-01", 0, 1, &[0, 0, 0, 0][..]),
            ]
        );
        let mut md = Vec::new();
        trend.write_markdown(&mut md, "t.svg").unwrap();
        let md = String::from_utf8(md).unwrap();
        assert!(
            md.contains(
                "| 2025-06-01 | 2 | 2 | 0 | 0 | 1 (50.0%) | 1 (50.0%) | 0 (0.0%) | 0 (0.0%) |\n"
            ),
            "{md}"
        );
        assert!(
            md.contains("| 2025-12-01 | 1 | 0 | 1 | 0 | - | - | - | - |\n"),
            "{md}"
        );
        assert!(md.contains("](t.svg)"), "{md}");
        assert!(!trend.has_tools, "the finder read no tree");
        assert!(!md.contains("Trees read"), "{md}");
        let charts = trend.charts();
        assert_eq!(charts.len(), 1);
        // A date where nothing was counted has no share, not 0%.
        assert_eq!(charts[0].series[0].values, [Some(50.0), Some(100.0), None]);
        let svg = trend.svg().unwrap();
        assert_eq!(
            svg,
            trend.svg().unwrap(),
            "the same rows give the same bytes"
        );
        // 2025-06-01 to 12-01 are under month ticks.
        assert!(
            svg.contains("openWorldHint") && svg.contains("\n2025-09\n"),
            "{svg}"
        );
        let undated = Table {
            rows: vec![row("", Some([1, 0, 0, 0, 0]))],
            ..table
        };
        assert!(Trend::of(&undated).is_none());
    }

    #[test]
    fn dates_before_a_repository_existed_are_reported_not_dropped() {
        let gap = |repo: &str, subfolder: &str, as_of: &str, first_commit| NotYet {
            repo: repo.into(),
            subfolder: subfolder.into(),
            as_of: as_of.into(),
            first_commit,
        };
        // 1731974400 is 2024-11-19T00:00:00Z; 1749974400 is 2025-06-15T08:00:00Z.
        let table = Table {
            columns: Columns::default_columns(),
            date: "2026-01-01".into(),
            rows: vec![
                row("2024-11-19", None),
                row("2025-06-01", Some([1, 0, 0, 0, 1])),
                row("2025-07-01", Some([0, 0, 0, 0, 1])),
                row("2025-07-01", Some([2, 0, 0, 0, 1])),
            ],
            dating: crate::table::Dating {
                not_yet: vec![
                    gap("a/one", "", "2024-11-18", 1_731_974_400),
                    gap("b/two", "srv|x", "2024-11-18", 1_749_974_400),
                    gap("b/two", "srv|x", "2024-11-19", 1_749_974_400),
                    gap("b/two", "srv|x", "2025-06-01", 1_749_974_400),
                ],
                committed: Default::default(),
            },
            packages: Default::default(),
        };
        let trend = Trend::of(&table).unwrap();
        let got: Vec<(&str, u64, u64, u64)> = trend
            .points
            .iter()
            .map(|p| (p.date.as_str(), p.counted, p.failed, p.not_yet))
            .collect();
        assert_eq!(
            got,
            [
                ("2024-11-18", 0, 0, 2),
                ("2024-11-19", 0, 1, 1),
                ("2025-06-01", 1, 0, 1),
                ("2025-07-01", 2, 0, 0),
            ]
        );
        let mut md = Vec::new();
        trend.write_markdown(&mut md, "t.svg").unwrap();
        let md = String::from_utf8(md).unwrap();
        for line in [
            "| As of | Pinned | Counted | Failed | No commit yet | readOnlyHint |",
            "| 2024-11-18 | 0 | 0 | 0 | 2 | - | - | - | - |\n",
            "| 2024-11-19 | 1 | 0 | 1 | 1 | - | - | - | - |\n",
            "| 2025-06-01 | 1 | 1 | 0 | 1 | 1 (100.0%) | 0 (0.0%) | 0 (0.0%) | 0 (0.0%) |\n",
            "| 2025-07-01 | 2 | 2 | 0 | 0 | 1 (50.0%) | 0 (0.0%) | 0 (0.0%) | 0 (0.0%) |\n",
            "\n- **a/one**: 2024-11-18; first commit 2024-11-19 00:00:00 UTC\n",
            "\n- **b/two:srv\\|x**: 2024-11-18, 2024-11-19, 2025-06-01; first commit \
             2025-06-15 08:00:00 UTC\n",
            "\nNothing to count at 2024-11-18 (no repository had a commit yet), 2024-11-19 \
             (1 pinned, none counted): no share (`-`), and a gap in the chart.\n",
        ] {
            assert!(md.contains(line), "no '{line}' in:\n{md}");
        }
        // Both dates with nothing counted are gaps in the chart, not points at 0%.
        let charts = trend.charts();
        assert_eq!(
            charts[0].series[0].values,
            [None, None, Some(100.0), Some(50.0)]
        );
        assert_eq!(trend.svg().unwrap().matches("<circle").count(), 2 * 4);
    }

    /// Returns a counted row of `as_of` whose finder found `tools` (hints as the
    /// tools table spells them) and skipped `skipped` files.
    fn with_tools(as_of: &str, tools: &[[&str; 4]], skipped: u64) -> Row {
        let mut row = row(as_of, Some([1, 0, 0, 0, 1]));
        let cell = |c: &str| match c {
            "true" => Some(HintState::True),
            "false" => Some(HintState::False),
            "?" => Some(HintState::Unresolved),
            _ => None,
        };
        if let Ok(counted) = &mut row.outcome {
            counted.tools = Some(FoundTools {
                tools: tools
                    .iter()
                    .enumerate()
                    .map(|(i, hints)| ToolDef {
                        path: b"a.ts".to_vec(),
                        line: i as u32 + 1,
                        kind: DefKind::Tool,
                        role: Role::Source,
                        family: Family::TypeScript,
                        name: Some(format!("t{i}")),
                        name_class: crate::tools::NameClass::Unknown,
                        hints: hints.map(cell),
                    })
                    .collect(),
                skipped_files: skipped,
            });
        }
        row
    }

    #[test]
    fn tool_shares_are_of_the_definitions_found_where_the_finder_read() {
        let table = Table {
            columns: Columns::default_columns(),
            date: "2026-01-01".into(),
            dating: Default::default(),
            packages: Default::default(),
            rows: vec![
                with_tools(
                    "2025-06-01",
                    &[["true", "", "", "false"], ["", "", "", ""]],
                    0,
                ),
                with_tools("2025-06-01", &[["?", "true", "", ""]], 2),
                // Counted with the finder off: in the tree shares, not the tool shares.
                row("2025-06-01", Some([1, 1, 1, 1, 1])),
                // Read, and no definition found: no share at this date.
                with_tools("2025-09-01", &[], 0),
                row("2025-09-01", None),
                with_tools("2025-12-01", &[["false", "false", "false", "false"]], 0),
            ],
        };
        let trend = Trend::of(&table).unwrap();
        assert!(trend.has_tools);
        let june = &trend.points[0].tools;
        assert_eq!(
            june,
            &ToolPoint {
                trees: 2,
                files_not_parsed: 2,
                tools: 3,
                annotated: 2,
                declaring: [2, 1, 0, 1],
                unresolved: [1, 0, 0, 0],
                // The first tree: one of two tools annotated; the second: its one.
                servers: [1, 1, 0],
            }
        );
        assert_eq!(trend.points[0].counted, 3);
        assert_eq!(trend.points[1].tools.trees, 1);
        assert_eq!(trend.points[1].tools.tools, 0);

        let mut md = Vec::new();
        trend.write_markdown(&mut md, "t.svg").unwrap();
        let md = String::from_utf8(md).unwrap();
        for line in [
            "| As of | Trees read | Files not parsed | Tools | Annotated | Servers: all / some / \
             none | readOnlyHint | destructiveHint | idempotentHint | openWorldHint |\n",
            "| 2025-06-01 | 2 | 2 | 3 | 2 (66.7%) | 1 / 1 / 0 | 2 (66.7%; 1 ?) | 1 (33.3%) | \
             0 (0.0%) | 1 (33.3%) |\n",
            "| 2025-09-01 | 1 | 0 | 0 | - | 0 / 0 / 0 | - | - | - | - |\n",
            "| 2025-12-01 | 1 | 0 | 1 | 1 (100.0%) | 1 / 0 / 0 | 1 (100.0%) | 1 (100.0%) | \
             1 (100.0%) | 1 (100.0%) |\n",
        ] {
            assert!(md.contains(line), "no '{line}' in:\n{md}");
        }
        let charts = trend.charts();
        assert_eq!(charts.len(), 2);
        let third = 100.0 / 3.0;
        let got: Vec<&[Option<f64>]> = charts[1]
            .series
            .iter()
            .map(|s| s.values.as_slice())
            .collect();
        assert_eq!(
            got,
            [
                &[Some(2.0 * third), None, Some(100.0)][..],
                &[Some(third), None, Some(100.0)][..],
                &[Some(0.0), None, Some(100.0)][..],
                &[Some(third), None, Some(100.0)][..],
            ]
        );
        let svg = trend.svg().unwrap();
        assert_eq!(svg, trend.svg().unwrap());
        assert!(svg.contains("Share of tool definitions found that declare each hint"));
    }
}
