//! Sums a table's tool definitions into the survey summary of the Markdown report
//! and its chart: how many trees hold tools, annotated or not, and per hint the share
//! of tools that declare it, overall and by SDK family (docs/method.md, "Tools").
//!
//! A hint is declared when a definition sets it: `true`, `false` or `?` (set by an
//! expression the finder could not resolve). Only rows the finder read count; a
//! failed row, or one counted with the finder off, is in no figure.

use std::io::{self, Write};

use super::chart::{self, Chart, Series};
use crate::table::Table;
use crate::terms::Hint;
use crate::tools::{Family, ToolDef};

/// Holds the number of tools of one group and how many declare each hint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shares {
    pub tools: u64,
    /// Per hint, in the schema's order: tools that set it.
    pub declaring: [u64; 4],
}

impl Shares {
    fn add(&mut self, tool: &ToolDef) {
        self.tools += 1;
        for (n, state) in self.declaring.iter_mut().zip(&tool.hints) {
            *n += u64::from(state.is_some());
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
    /// Trees with at least one tool definition found.
    pub with_tools: u64,
    /// Trees with at least one definition that sets a hint.
    pub with_annotated: u64,
    /// Trees with definitions found, none of which sets a hint.
    pub silent: u64,
    /// Trees in which no definition was found.
    pub no_tool: u64,
    /// Definitions that set at least one hint.
    pub annotated: u64,
    /// Every definition.
    pub all: Shares,
    /// Per SDK family with at least one definition, in `Family::ALL` order.
    pub by_family: Vec<(Family, Shares)>,
}

/// Returns the survey summary of `table`; `None` when the finder read no tree.
pub fn survey(table: &Table) -> Option<Survey> {
    let mut survey = Survey::default();
    let mut families: Vec<Shares> = vec![Shares::default(); Family::ALL.len()];
    let mut is_any = false;
    for row in &table.rows {
        let Some(found) = row.outcome.as_ref().ok().and_then(|c| c.tools.as_ref()) else {
            continue;
        };
        is_any = true;
        survey.trees += 1;
        let annotated = found.tools.iter().filter(|t| t.is_annotated()).count() as u64;
        survey.annotated += annotated;
        match (found.tools.is_empty(), annotated) {
            (true, _) => survey.no_tool += 1,
            (false, 0) => {
                survey.with_tools += 1;
                survey.silent += 1;
            }
            (false, _) => {
                survey.with_tools += 1;
                survey.with_annotated += 1;
            }
        }
        for tool in &found.tools {
            survey.all.add(tool);
            let at = Family::ALL
                .iter()
                .position(|&f| f == tool.family)
                .expect("every family is in Family::ALL");
            families[at].add(tool);
        }
    }
    survey.by_family = Family::ALL
        .into_iter()
        .zip(families)
        .filter(|(_, shares)| shares.tools > 0)
        .collect();
    is_any.then_some(survey)
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
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    writeln!(w, "## Tools found in source")?;
    writeln!(w)?;
    writeln!(
        w,
        "Of {} read by the tool finder: {} with tool definitions found, {} with annotated \
         definitions, {} silent (definitions found, none sets a hint), {} with no definition \
         found. {} in all, {} annotated (setting at least one hint; `?`, a value the finder \
         could not resolve, counts as set).",
        plural(survey.trees, "tree", "trees"),
        survey.with_tools,
        survey.with_annotated,
        survey.silent,
        survey.no_tool,
        plural(survey.all.tools, "definition", "definitions"),
        survey.annotated,
    )?;
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
            write!(w, " {:.1}% ({}) |", shares.percent(i), shares.declaring[i])?;
        }
        writeln!(w)?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "Each cell is the share of the group's tool definitions that declare the hint \
         (`true`, `false` or `?`), and their number. The tools table beside this report \
         lists every definition with its path, line and hints."
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "![Share of tool definitions declaring each hint]({chart})"
    )?;
    Ok(())
}
