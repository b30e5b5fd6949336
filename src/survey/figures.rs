//! The registry survey's figures past the outcomes: each hint per SDK family in both
//! source halves and per registry on the wire, how the entries spread by the share
//! of their tools that declare a hint (a chart), "What silence costs" across the
//! registry, the wire joined to both source halves, the repository against what
//! ships, and how the run went.
//!
//! Everything here is summed from tables other commands wrote, read back; the
//! sections are functions of those bytes alone (docs/method.md, "The registry
//! survey").

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::infra::date;
use crate::infra::error::UsageError;
use crate::infra::sanitize::sanitize;
use crate::probe::hints::ToolHints;
use crate::report::chart::{self, Chart, Series};
use crate::report::silence::{self, Silence, Tally};
use crate::report::survey::{survey_of, Shares};
use crate::report::thousands;
use crate::table::Table;
use crate::tools::hints::Hint;
use crate::tools::{DefKind, HintState, Role};

use super::join::{self, Census, WireServer};
use super::outcome;

/// The buckets an entry falls in by its tools, in the chart's order.
const BUCKETS: [&str; 4] = [
    "no tool found",
    "no tool declares a hint",
    "some tools declare one",
    "every tool declares one",
];

/// Returns `n` of `of` as `n (x.y%)`, or `0` of nothing.
pub(super) fn share(n: u64, of: u64) -> String {
    match of {
        0 => "0".to_string(),
        _ => format!("{} ({:.1}%)", thousands(n), n as f64 * 100.0 / of as f64),
    }
}

/// Writes `lines` (a header, then rows) as a Markdown table into `text`.
pub(super) fn table(text: &mut String, lines: &[Vec<String>]) {
    let mut bytes = Vec::new();
    silence::write_table(&mut bytes, lines).expect("writing to a Vec cannot fail");
    text.push_str(&String::from_utf8_lossy(&bytes));
    text.push('\n');
}

/// Returns a row of the per-hint table: the half, the group, its tools, and per hint
/// the share declaring it.
fn hint_line(half: &str, group: &str, shares: &Shares) -> Vec<String> {
    let mut line = vec![half.to_string(), group.to_string(), thousands(shares.tools)];
    line.extend((0..Hint::ALL.len()).map(|i| share(shares.declaring[i], shares.tools)));
    line
}

/// Returns the shares of the wire's tools declaring each hint, per package registry
/// of the servers that listed (`npm`, `pypi`, `remote` for an endpoint); where some
/// listed with placeholders, of those run as given and of those; then all.
fn wire_shares(wire: &[WireServer]) -> Vec<(String, Shares)> {
    let listed: Vec<&WireServer> = wire
        .iter()
        .filter(|s| outcome::is_listed(s.outcome()))
        .collect();
    let mut by_registry: BTreeMap<&str, Shares> = BTreeMap::new();
    let (mut given, mut filled, mut all) =
        (Shares::default(), Shares::default(), Shares::default());
    for server in &listed {
        let registry = match server.package_registry() {
            "" => "remote",
            registry => registry,
        };
        let how = match server.outcome() == PLACEHOLDERS {
            true => &mut filled,
            false => &mut given,
        };
        for shares in [by_registry.entry(registry).or_default(), how, &mut all] {
            for tool in server.tools() {
                shares.tools += 1;
                for (i, &hint) in Hint::ALL.iter().enumerate() {
                    shares.declaring[i] += u64::from(tool.is_declared(hint));
                }
            }
        }
    }
    let mut out: Vec<(String, Shares)> = by_registry
        .into_iter()
        .map(|(registry, shares)| (registry.to_string(), shares))
        .collect();
    if listed.iter().any(|s| s.outcome() == PLACEHOLDERS) {
        out.push(("as given".to_string(), given));
        out.push(("with placeholders".to_string(), filled));
    }
    if !listed.is_empty() {
        out.push(("all".to_string(), all));
    }
    out
}

/// The outcome of a server that listed with placeholders.
const PLACEHOLDERS: &str = "listed with placeholders";

/// Writes "Each hint": per half, the share of tools declaring each hint, by SDK
/// family in the source and by registry on the wire.
pub fn each_hint(text: &mut String, shipped: &Table, repos: Option<&Table>, wire: &[WireServer]) {
    let mut header = vec!["half".to_string(), "group".into(), "tools".into()];
    header.extend(Hint::ALL.iter().map(|h| h.name().to_string()));
    let mut lines = vec![header];
    for (half, table) in [("what ships", Some(shipped)), ("repository", repos)] {
        let Some(survey) = table.and_then(|t| survey_of(t, |_| true)) else {
            continue;
        };
        lines.push(hint_line(half, "all", &survey.all));
        for (family, shares) in &survey.by_family {
            lines.push(hint_line(half, family.as_str(), shares));
        }
    }
    for (registry, shares) in wire_shares(wire) {
        lines.push(hint_line("wire", &registry, &shares));
    }
    text.push_str("## Each hint\n\n");
    text.push_str(
        "The share of tools that declare each hint: in the source by the SDK family of \
         the definition (a tree's own tools, as the finder reads them; `true`, `false` or \
         an unreadable value `?`; each tree once, however many entries share it, where the \
         headline counts per entry), on the wire by the registry of the package that was \
         run (`true` or `false` in the tool's `annotations`).\n\n",
    );
    table(text, &lines);
}

/// Holds one entry's tools and those declaring a hint, in one half.
pub type Adoption = Option<(u64, u64)>;

/// Returns the bucket of an entry's tools.
fn bucket(tools: u64, annotated: u64) -> usize {
    match (tools, annotated) {
        (0, _) => 0,
        (_, 0) => 1,
        (t, a) if a < t => 2,
        _ => 3,
    }
}

/// Writes "Per entry" and returns its chart: the entries of each half by the share
/// of their tools that declare a hint, as a share of the entries counted in that
/// half. `halves` holds each half's name and its counted entries' adoption.
pub fn per_entry(
    text: &mut String,
    halves: &[(&str, Vec<Adoption>)],
    date: &str,
) -> Result<String> {
    let mut counts: Vec<(&str, [u64; 4], u64)> = Vec::new();
    for (half, entries) in halves {
        let mut n = [0u64; 4];
        let mut of = 0;
        for (tools, annotated) in entries.iter().flatten() {
            n[bucket(*tools, *annotated)] += 1;
            of += 1;
        }
        if of > 0 {
            counts.push((half, n, of));
        }
    }
    let chart = Chart {
        title: format!("Registry entries by how many of their tools declare a hint, {date}"),
        categories: BUCKETS.iter().map(|b| b.to_string()).collect(),
        series: counts
            .iter()
            .map(|(half, n, of)| Series {
                name: format!("{half} ({of} entries)"),
                values: n
                    .iter()
                    .map(|&k| Some(k as f64 * 100.0 / *of as f64))
                    .collect(),
            })
            .collect(),
        y_label: "% of the entries counted in the half".into(),
        y_max: 100.0,
        unit: "%".into(),
    };
    let mut lines = vec![std::iter::once("half".to_string())
        .chain(std::iter::once("entries".to_string()))
        .chain(BUCKETS.iter().map(|b| b.to_string()))
        .collect::<Vec<_>>()];
    for (half, n, of) in &counts {
        let mut line = vec![half.to_string(), thousands(*of)];
        line.extend(n.iter().map(|&k| share(k, *of)));
        lines.push(line);
    }
    text.push_str("## Per entry\n\n");
    text.push_str(
        "Each entry counted in a half, by how many of its tools declare at least one hint \
         (`true` or `false`): a server is one vote, whatever its number of tools.\n\n",
    );
    table(text, &lines);
    let name = format!("survey-{date}.svg");
    let _ = writeln!(
        text,
        "![Registry entries by how many of their tools declare a hint]({name})\n"
    );
    chart::bars_svg(&chart)
}

/// Writes one half's "What silence costs": the class table, the exposed tools and
/// the precision of names where authors declared.
fn silence_half(text: &mut String, half: &str, tally: &Tally, with_tools: &str) {
    let _ = writeln!(text, "**{half}** ({with_tools}):\n");
    table(text, &tally.table());
    let _ = writeln!(text, "{}\n\n{}\n", tally.exposed(), tally.precision());
}

/// Writes "What silence costs" across the registry, pooled per half.
pub fn silence_section(
    text: &mut String,
    shipped: &Table,
    repos: Option<&Table>,
    wire: &[WireServer],
) {
    text.push_str("## What silence costs\n\n");
    text.push_str(
        "A client that follows the schema's defaults treats a tool that declares no hint \
         as not read-only, destructive and open-world. The tools of each half, pooled, by \
         what their names say they do (docs/method.md, \"Name classes\"): in the source a \
         tree's own tools, on the wire each server's list.\n\n",
    );
    for (half, table) in [("What ships", Some(shipped)), ("The repository", repos)] {
        if let Some(s) = table.and_then(|t| Silence::of(&t.rows)) {
            let trees = format!("{} trees with tools of their own", s.trees.len());
            silence_half(text, half, &s.pooled, &trees);
        }
    }
    let listed: Vec<&[ToolHints]> = wire
        .iter()
        .filter(|s| outcome::is_listed(s.outcome()) && !s.tools().is_empty())
        .map(WireServer::tools)
        .collect();
    if !listed.is_empty() {
        let mut pooled = Tally::default();
        for tools in &listed {
            pooled.merge(&crate::probe::lint::tally(tools));
        }
        let servers = format!("{} servers that listed tools", listed.len());
        silence_half(text, "On the wire", &pooled, &servers);
    }
}

/// Writes "The wire beside the source": the wire joined to each source half given.
pub fn joins(
    text: &mut String,
    sources: &[(&str, &Path)],
    wires: &[(String, Vec<WireServer>)],
) -> Result<()> {
    text.push_str("## The wire beside the source\n\n");
    text.push_str(
        "Each server that listed, joined to its row of a source census (a package to the \
         package of the same name and version, a repository by registry name) and tool by \
         tool by name, as `join` joins them. A tool only on the wire is one the finder \
         did not see in that source; why, by what the finder saw there.\n\n",
    );
    let mut lines = vec![[
        "source",
        "servers joined",
        "wire tools",
        "found in the source",
        "hints compared",
        "agreeing",
        "unresolved in the source",
        "absent in the source, declared on the wire",
        "differing",
    ]
    .map(str::to_string)
    .to_vec()];
    let mut causes: Vec<(&str, join::Figures)> = Vec::new();
    for (half, path) in sources {
        let census = Census::read(path)?;
        let mut f = join::Figures::default();
        for (wire_date, wire) in wires {
            f.add(&join::figures(
                &census,
                &join::join(&census, wire.clone(), wire_date),
            ));
        }
        let hints = f.agrees + f.unresolved + f.filled + f.differs;
        lines.push(vec![
            half.to_string(),
            thousands(f.servers),
            thousands(f.wire),
            share(f.both, f.wire),
            thousands(hints),
            share(f.agrees, hints),
            share(f.unresolved, hints),
            share(f.filled, hints),
            share(f.differs, hints),
        ]);
        causes.push((half, f));
    }
    table(text, &lines);
    let mut lines = vec![std::iter::once("source".to_string())
        .chain(std::iter::once("only on the wire".to_string()))
        .chain(join::CAUSES.iter().map(|c| c.to_string()))
        .collect::<Vec<_>>()];
    for (half, f) in &causes {
        let only: u64 = f.wire_only.iter().sum();
        let mut line = vec![half.to_string(), thousands(only)];
        line.extend(f.wire_only.iter().map(|&n| share(n, only)));
        lines.push(line);
    }
    text.push_str("Tools only on the wire, by what the finder saw in the joined source:\n\n");
    table(text, &lines);
    Ok(())
}

/// Holds a server's own tools in one source half: name → the four hints.
type ToolsOf = BTreeMap<String, [Option<HintState>; 4]>;

/// Returns each server's own tools in `table` (kind `tool`, role `source`), by the
/// server names of its rows (a package several entries name counts for each).
fn tools_by_server(table: &Table) -> BTreeMap<String, ToolsOf> {
    let mut out: BTreeMap<String, ToolsOf> = BTreeMap::new();
    for row in &table.rows {
        let Some(found) = row.outcome.as_ref().ok().and_then(|c| c.tools.as_ref()) else {
            continue;
        };
        for server in row.server.as_deref().unwrap_or_default().split(' ') {
            let tools = out.entry(server.to_string()).or_default();
            for def in found
                .tools
                .iter()
                .filter(|t| t.kind == DefKind::Tool && t.role == Role::Source)
            {
                if let Some(name) = &def.name {
                    tools.entry(name.clone()).or_insert(def.hints);
                }
            }
        }
    }
    out
}

/// Writes "The repository beside what ships": for each entry counted in both halves
/// with tools in both, its tools matched by name, and whether their hints are the
/// same in the repository at the release tag as in the package.
pub fn repository_beside_shipped(text: &mut String, shipped: &Table, repos: &Table) {
    let shipped = tools_by_server(shipped);
    let repos = tools_by_server(repos);
    let (mut entries, mut both, mut same, mut differ, mut only_shipped, mut only_repo) =
        (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    let mut differing: Vec<String> = Vec::new();
    for (server, in_package) in &shipped {
        let Some(in_repo) = repos.get(server) else {
            continue;
        };
        if in_package.is_empty() && in_repo.is_empty() {
            continue;
        }
        entries += 1;
        let mut entry_differs = 0;
        for (name, hints) in in_package {
            match in_repo.get(name) {
                Some(r) if r == hints => {
                    both += 1;
                    same += 1;
                }
                Some(_) => {
                    both += 1;
                    differ += 1;
                    entry_differs += 1;
                }
                None => only_shipped += 1,
            }
        }
        only_repo += in_repo
            .keys()
            .filter(|n| !in_package.contains_key(*n))
            .count() as u64;
        if entry_differs > 0 {
            differing.push(format!("{} ({entry_differs})", sanitize(server)));
        }
    }
    text.push_str("## The repository beside what ships\n\n");
    let _ = writeln!(
        text,
        "Of the entries counted in both source halves with a tool in either, {entries}: \
         {} tools by the same name in the package and in the repository at the release \
         tag, of which {} have the same four hints and {} other hints; {} tools only in \
         the package, {} only in the repository (a tag that is not the release, a \
         build step, or a name the finder reads in one and not the other).{}\n",
        thousands(both),
        share(same, both),
        share(differ, both),
        thousands(only_shipped),
        thousands(only_repo),
        match differing.is_empty() {
            true => String::new(),
            false => format!(
                " Entries whose hints differ (tools): {}.",
                crate::report::markdown_cell(&differing.join(", "))
            ),
        }
    );
}

/// Holds one line of the run log: a step, a moment and the disk the survey used then.
struct Sample {
    step: String,
    seconds: u64,
    disk: u64,
}

/// Reads the run log a recipe writes while the survey runs: `step,unix_seconds,
/// disk_bytes`, one line at each step's start and end and while it runs.
fn read_run_log(path: &Path) -> Result<Vec<Sample>> {
    let name = sanitize(path.display().to_string());
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| UsageError(format!("reading '{name}': {e}")))?;
    let mut samples = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let at = || format!("'{name}' line {}", i + 2);
        let record = record.with_context(at)?;
        let number = |k: usize| -> Result<u64> {
            let cell = record.get(k).unwrap_or_default();
            cell.parse().map_err(|_| {
                UsageError(format!(
                    "{}: '{}' is not a whole number",
                    at(),
                    sanitize(cell)
                ))
                .into()
            })
        };
        samples.push(Sample {
            step: record.get(0).unwrap_or_default().to_string(),
            seconds: number(1)?,
            disk: number(2)?,
        });
    }
    Ok(samples)
}

/// Returns `bytes` in MiB or GiB, one decimal.
fn size(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    match bytes as f64 / MIB {
        m if m >= 1024.0 => format!("{:.1} GiB", m / 1024.0),
        m => format!("{m:.1} MiB"),
    }
}

/// Returns seconds as `1 h 02 min`, `3 min 05 s` or `12 s`.
fn duration(seconds: u64) -> String {
    match seconds {
        s if s >= 3600 => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{} min {:02} s", s / 60, s % 60),
        s => format!("{s} s"),
    }
}

/// Holds one step of a run log: its name, the UTC day it began, its wall time and the
/// most disk held while it ran.
#[derive(Debug, PartialEq)]
struct Step {
    name: String,
    day: String,
    seconds: u64,
    peak: u64,
}

/// Returns the log's steps in the order they began. A step is a span of consecutive
/// samples with its name; a name that comes again later (a half run again alone, on
/// another day) adds that span's time to the step, so that no gap between runs is
/// counted as work.
fn steps(samples: &[Sample]) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for span in samples.chunk_by(|a, b| a.step == b.step) {
        let name = &span[0].step;
        let first = span.iter().map(|s| s.seconds).min().unwrap_or_default();
        let last = span.iter().map(|s| s.seconds).max().unwrap_or_default();
        let peak = span.iter().map(|s| s.disk).max().unwrap_or_default();
        match steps.iter_mut().find(|s| s.name == *name) {
            Some(step) => {
                step.seconds += last - first;
                step.peak = step.peak.max(peak);
            }
            None => steps.push(Step {
                name: name.clone(),
                day: date::from_unix(first as i64),
                seconds: last - first,
                peak,
            }),
        }
    }
    steps
}

/// Writes "How it was run": per step of the run log, in the order steps began, the
/// day it began, its wall time (its spans' last moments less their first) and the
/// most disk the survey held during it; then the whole run's, the sum of its steps,
/// which the recipe runs one after another.
pub fn run_section(text: &mut String, log: &Path, run_on: Option<&str>) -> Result<()> {
    let steps = steps(&read_run_log(log)?);
    text.push_str("## How it was run\n\n");
    if let Some(on) = run_on {
        let _ = writeln!(text, "On {}.\n", crate::report::markdown_cell(on));
    }
    let mut lines = vec![["step", "began", "wall time", "most disk held"]
        .map(str::to_string)
        .to_vec()];
    for step in &steps {
        lines.push(vec![
            step.name.clone(),
            step.day.clone(),
            duration(step.seconds),
            size(step.peak),
        ]);
    }
    if !steps.is_empty() {
        let mut days: Vec<&str> = steps.iter().map(|s| s.day.as_str()).collect();
        days.dedup();
        lines.push(vec![
            "the whole run".into(),
            days.join(", "),
            duration(steps.iter().map(|s| s.seconds).sum()),
            size(steps.iter().map(|s| s.peak).max().unwrap_or_default()),
        ]);
    }
    table(text, &lines);
    text.push_str(
        "Disk is what the survey's folder and its caches held (downloads, installs, \
         archives), sampled while each step ran; the listing and any local mirrors of \
         the repositories are its input and not counted. A step's day is UTC.\n\n",
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_falls_in_one_bucket_by_its_tools() {
        assert_eq!(bucket(0, 0), 0);
        assert_eq!(bucket(3, 0), 1);
        assert_eq!(bucket(3, 1), 2);
        assert_eq!(bucket(3, 3), 3);
    }

    #[test]
    fn a_step_run_again_on_another_day_adds_its_time_not_the_gap() {
        let at = |step: &str, seconds: u64, disk: u64| Sample {
            step: step.into(),
            seconds,
            disk,
        };
        let day = 86_400 * 20_426; // 2025-12-04
        let log = [
            at("pin", day, 1),
            at("pin", day + 14, 5),
            at("join", day + 14, 5),
            at("join", day + 16, 7),
            at("probe", day + 86_400, 2),
            at("probe", day + 86_400 + 960, 900),
            at("join", day + 86_400 + 960, 900),
            at("join", day + 86_400 + 963, 3),
        ];
        let steps = steps(&log);
        let got: Vec<_> = steps
            .iter()
            .map(|s| (s.name.as_str(), s.day.as_str(), s.seconds, s.peak))
            .collect();
        assert_eq!(
            got,
            [
                ("pin", "2025-12-04", 14, 5),
                ("join", "2025-12-04", 5, 900),
                ("probe", "2025-12-05", 960, 900),
            ]
        );
    }

    #[test]
    fn durations_and_sizes_read_as_a_person_writes_them() {
        assert_eq!(duration(12), "12 s");
        assert_eq!(duration(185), "3 min 05 s");
        assert_eq!(duration(3720), "1 h 02 min");
        assert_eq!(size(3 * 1024 * 1024 / 2), "1.5 MiB");
        assert_eq!(size(5 * 1024 * 1024 * 1024), "5.0 GiB");
    }
}
