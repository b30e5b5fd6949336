//! The time series of a dated census: per date, how many trees were counted and
//! what share of them spell each hint, as a Markdown section and an SVG line chart
//! (docs/method.md, "Dates").
//!
//! A share is of the trees counted at that date: the rows of the date whose status
//! is `ok`, each tree once per date it was pinned at, however many dates resolved
//! to its commit. A tree "spells" a hint when its count in the hint's column is not
//! zero. This module groups rows by date and formats; it counts nothing itself.

use std::collections::BTreeMap;
use std::io::{self, Write};

use anyhow::Result;

use super::chart::{self, Chart, Series};
use crate::table::Table;

/// Holds one date of the series.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Rows of the date that were counted.
    pub counted: u64,
    /// Rows of the date that failed.
    pub failed: u64,
    /// Per hint column (in [`Trend::columns`] order): counted trees whose count is
    /// not zero.
    pub spelling: Vec<u64>,
}

/// Holds the series of a dated table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trend {
    /// The names of the columns followed: every column that spells a hint.
    pub columns: Vec<String>,
    /// By date, earliest first.
    pub points: Vec<Point>,
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
        for row in &table.rows {
            let point = by_date
                .entry(row.key.as_of.as_str())
                .or_insert_with(|| Point {
                    date: row.key.as_of.clone(),
                    counted: 0,
                    failed: 0,
                    spelling: vec![0; hints.len()],
                });
            match &row.outcome {
                Ok(c) => {
                    point.counted += 1;
                    for (n, &i) in point.spelling.iter_mut().zip(&hints) {
                        *n += u64::from(c.count.counts[i] > 0);
                    }
                }
                Err(_) => point.failed += 1,
            }
        }
        Some(Trend {
            columns: hints.iter().map(|&i| names[i].to_string()).collect(),
            points: by_date.into_values().collect(),
        })
    }

    /// Returns the chart of the shares, in percent, one line per hint column.
    pub fn chart(&self) -> Chart {
        Chart {
            title: "Share of trees counted whose source spells each hint".to_string(),
            categories: self.points.iter().map(|p| p.date.clone()).collect(),
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
        }
    }

    /// Returns the chart as SVG, byte for byte the same for the same table.
    pub fn svg(&self) -> Result<String> {
        chart::lines_svg(&self.chart())
    }

    /// Writes the Markdown section: the table of the series and the chart, which
    /// is read from `svg_name` beside the report.
    pub fn write_markdown(&self, w: &mut dyn Write, svg_name: &str) -> io::Result<()> {
        writeln!(w, "## Over time")?;
        writeln!(w)?;
        writeln!(
            w,
            "Each date stands for the commit the default branch pointed to at its end \
             (23:59:59 UTC). A share is of the trees counted at that date: those whose \
             count of the hint is not zero. A tree counts at every date it was pinned at, \
             also when two dates name one commit."
        )?;
        writeln!(w)?;
        write!(w, "| As of | Trees counted | Not counted |")?;
        for name in &self.columns {
            write!(w, " {name} |")?;
        }
        writeln!(w)?;
        write!(w, "|---|---:|---:|")?;
        for _ in &self.columns {
            write!(w, "---:|")?;
        }
        writeln!(w)?;
        for p in &self.points {
            write!(w, "| {} | {} | {} |", p.date, p.counted, p.failed)?;
            for &n in &p.spelling {
                match p.counted {
                    0 => write!(w, " - |")?,
                    _ => write!(w, " {n} ({:.1}%) |", percent(n, p.counted))?,
                }
            }
            writeln!(w)?;
        }
        writeln!(w)?;
        writeln!(
            w,
            "![Share of trees counted whose source spells each hint, by date]({svg_name})"
        )?;
        Ok(())
    }
}

/// Returns `n` of `of` in percent; 0 when `of` is 0.
fn percent(n: u64, of: u64) -> f64 {
    match of {
        0 => 0.0,
        _ => n as f64 * 100.0 / of as f64,
    }
}

/// Returns the file name of the trend chart of a table dated `date`.
pub fn svg_name(date: &str) -> String {
    format!("census-{date}-trend.svg")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::TreeCount;
    use crate::table::{CommitSource, Counted, Failure, FailureKind, Row, TreeKey};
    use crate::terms::Columns;

    fn row(as_of: &str, counts: Option<[u64; 5]>) -> Row {
        Row {
            key: TreeKey {
                repo: "o/n".into(),
                pinned: "abcd".into(),
                subfolder: String::new(),
                as_of: as_of.into(),
            },
            server: None,
            note: None,
            outcome: match counts {
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
        }
    }

    #[test]
    fn shares_are_of_the_trees_counted_at_each_date() {
        let table = Table {
            columns: Columns::default_columns(),
            date: "2026-01-01".into(),
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
            md.contains("| 2025-06-01 | 2 | 0 | 1 (50.0%) | 1 (50.0%) | 0 (0.0%) | 0 (0.0%) |\n"),
            "{md}"
        );
        assert!(
            md.contains("| 2025-12-01 | 0 | 1 | - | - | - | - |\n"),
            "{md}"
        );
        assert!(md.contains("](t.svg)"), "{md}");
        let chart = trend.chart();
        assert_eq!(chart.series[0].values, [50.0, 100.0, 0.0]);
        let svg = trend.svg().unwrap();
        assert_eq!(
            svg,
            trend.svg().unwrap(),
            "the same rows give the same bytes"
        );
        assert!(svg.contains("openWorldHint") && svg.contains("2025-09-01"));
        let undated = Table {
            rows: vec![row("", Some([1, 0, 0, 0, 0]))],
            ..table
        };
        assert!(Trend::of(&undated).is_none());
    }
}
