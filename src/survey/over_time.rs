//! The survey's "Over time": what ships at every version the listing holds, by the
//! month each version was published, and each server as its newest version stood
//! at each month's end; and the repositories the survey counted, each pinned at
//! past dates (docs/method.md, "The registry survey").
//!
//! It reads the listing's records (every version, each with its `publishedAt`), the
//! census of a corpus of what ships built with `--all-versions`, joined by package
//! and version, and the census of a dated corpus of the repositories. It writes the
//! section's tables and returns its chart; it counts nothing itself and reads no
//! archive.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use anyhow::Result;

use crate::corpus::registry::Entry;
use crate::infra::date;
use crate::report::chart::{self, Chart, Series, XAxis};
use crate::tools::hints::Hint;

use crate::report::thousands;

use super::figures::{share, table};

/// Holds what the census says of one package version.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Version {
    /// Which of the four hint names its bytes spell, in [`Hint::ALL`] order.
    pub spelled: [bool; 4],
    /// Its tools and those declaring a hint, when the finder ran.
    pub tools: Option<(u64, u64)>,
}

impl Version {
    /// Adds what a family member of the package spells and defines.
    pub fn add(&mut self, member: &Version) {
        for (is, &also) in self.spelled.iter_mut().zip(&member.spelled) {
            *is |= also;
        }
        if let Some((tools, annotated)) = member.tools {
            let (t, a) = self.tools.get_or_insert((0, 0));
            *t += tools;
            *a += annotated;
        }
    }
}

/// Holds one month's figures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Month {
    /// The listing's records published that month.
    published: u64,
    /// Of those, the ones whose package version was counted.
    counted: u64,
    /// Of those, the ones spelling any hint name, and each one.
    spelling: u64,
    each: [u64; 4],
    tools: u64,
    annotated: u64,
    /// The servers with a counted version published by the month's end, and of
    /// those the ones whose newest such version spells a hint name.
    servers: u64,
    servers_spelling: u64,
}

/// Returns the package a record's figures come from: its first npm or PyPI package,
/// as `REGISTRY:NAME` folded as the index compares names, and the version named.
fn package_of(entry: &Entry) -> Option<(String, String)> {
    let package = entry
        .packages
        .iter()
        .find(|p| matches!(p.registry_type.as_str(), "npm" | "pypi"))?;
    let version = package.version.as_deref().map(str::trim)?;
    if version.is_empty() || version == "latest" {
        return None;
    }
    Some((
        fold(&format!(
            "{}:{}",
            package.registry_type,
            package.identifier.trim()
        )),
        version.to_string(),
    ))
}

/// Returns a `REGISTRY:NAME` as the indexes compare names: PyPI's normalized (PEP
/// 503: case, and runs of `-`, `_`, `.` as one `-`), npm's as given.
pub fn fold(key: &str) -> String {
    match key.strip_prefix("pypi:") {
        Some(name) => {
            let mut out = String::from("pypi:");
            let mut is_run = false;
            for c in name.chars() {
                if matches!(c, '-' | '_' | '.') {
                    if !is_run {
                        out.push('-');
                    }
                    is_run = true;
                } else {
                    out.push(c.to_ascii_lowercase());
                    is_run = false;
                }
            }
            out
        }
        None => key.to_string(),
    }
}

/// Returns the last day of `month` (`YYYY-MM`).
fn month_end(month: &str) -> String {
    let (year, m) = month.split_once('-').unwrap_or_default();
    let (year, m) = (year.parse().unwrap_or(1970), m.parse().unwrap_or(1));
    format!("{month}-{:02}", date::days_in_month(year, m))
}

/// Returns the figures of each month a record of `records` was published in,
/// oldest first; `counted` holds the census's versions by folded package and
/// version. A record with no day, no npm or PyPI package, or no version named is
/// left out of every month.
fn months(
    records: &[&Entry],
    counted: &BTreeMap<(String, String), Version>,
) -> Vec<(String, Month)> {
    let dated: Vec<(&str, &Entry, Option<&Version>)> = records
        .iter()
        .filter_map(|e| {
            let day = e.published.as_deref()?;
            let key = package_of(e)?;
            Some((day, *e, counted.get(&key)))
        })
        .collect();
    let names: BTreeSet<String> = dated.iter().map(|(day, ..)| day[..7].to_string()).collect();
    let mut out = Vec::new();
    for month in names {
        let mut figures = Month::default();
        for (_, _, version) in dated.iter().filter(|(day, ..)| day.starts_with(&month)) {
            figures.published += 1;
            let Some(v) = version else { continue };
            figures.counted += 1;
            figures.spelling += u64::from(v.spelled.contains(&true));
            for (n, &is) in figures.each.iter_mut().zip(&v.spelled) {
                *n += u64::from(is);
            }
            if let Some((tools, annotated)) = v.tools {
                figures.tools += tools;
                figures.annotated += annotated;
            }
        }
        // Each server's newest counted version by the month's end: the latest day,
        // and on one day the record listed last.
        let end = month_end(&month);
        let mut newest: BTreeMap<&str, (&str, &Version)> = BTreeMap::new();
        for (day, entry, version) in &dated {
            if let (Some(v), true) = (version, *day <= end.as_str()) {
                let slot = newest.entry(entry.name.as_str()).or_insert((day, v));
                if *day >= slot.0 {
                    *slot = (day, v);
                }
            }
        }
        figures.servers = newest.len() as u64;
        figures.servers_spelling = newest
            .values()
            .filter(|(_, v)| v.spelled.contains(&true))
            .count() as u64;
        out.push((month, figures));
    }
    out
}

/// Writes what ships over time and returns its chart: one row per month of
/// publication of `records` (every version the listing holds), from the census of
/// every version `counted`; nothing when no record was counted.
fn shipped(
    text: &mut String,
    records: &[&Entry],
    counted: &BTreeMap<(String, String), Version>,
) -> Option<Chart> {
    let months = months(records, counted);
    if months.is_empty() {
        return None;
    }
    text.push_str(
        "**What ships**, at every version of the listing that names an npm or PyPI package \
         version, by the month its version was published (`publishedAt`, UTC): each \
         version counted as its artifact stands on the index, pinned by digest. \
         *Versions* are the records published that month and those counted; the shares \
         are of the versions counted (spelling a hint name, and each name), and of \
         their tools (declaring a hint). *Servers* are the servers with a counted \
         version by the month's end, each as its newest such version stands.\n\n",
    );
    let mut lines = vec![vec![
        "month".to_string(),
        "versions".to_string(),
        "counted".to_string(),
        "spelling a hint".to_string(),
        "tools".to_string(),
        "declaring a hint".to_string(),
    ]];
    lines[0].extend(Hint::ALL.iter().map(|h| format!("`{}`", h.name())));
    lines[0].extend(["servers".to_string(), "servers spelling a hint".to_string()]);
    for (month, m) in &months {
        let mut line = vec![
            month.clone(),
            thousands(m.published),
            thousands(m.counted),
            share(m.spelling, m.counted),
            thousands(m.tools),
            share(m.annotated, m.tools),
        ];
        line.extend(m.each.iter().map(|&n| share(n, m.counted)));
        line.extend([thousands(m.servers), share(m.servers_spelling, m.servers)]);
        lines.push(line);
    }
    table(text, &lines);
    text.push_str(
        "Limits: the cohort is the listing's servers looked back (a server that left the \
         registry before the listing was saved is not in it); a month's versions are \
         those published then, not those in use; a version whose package the index here \
         does not serve is not counted, never a zero, and the skipped list beside the \
         corpus says why. Shares of versions are per package version; a server \
         publishing often weighs more in its month than one publishing once, which the \
         servers' columns do not.\n\n",
    );
    let percent = |n: u64, of: u64| (of > 0).then(|| n as f64 * 100.0 / of as f64);
    let chart = Chart {
        title: "What ships, by month of publication".into(),
        categories: months.iter().map(|(month, _)| month_end(month)).collect(),
        series: vec![
            Series {
                name: "versions spelling a hint name".into(),
                values: months
                    .iter()
                    .map(|(_, m)| percent(m.spelling, m.counted))
                    .collect(),
            },
            Series {
                name: "servers at the month's end spelling one".into(),
                values: months
                    .iter()
                    .map(|(_, m)| percent(m.servers_spelling, m.servers))
                    .collect(),
            },
            Series {
                name: "tools declaring a hint".into(),
                values: months
                    .iter()
                    .map(|(_, m)| percent(m.annotated, m.tools))
                    .collect(),
            },
        ],
        y_label: "%".into(),
        y_max: 100.0,
        unit: "%".into(),
    };
    Some(chart)
}

/// Holds one dated tree of the repositories' census: its date and what it counted,
/// `None` for a tree that failed.
pub type DatedTree = (String, Option<Version>);

/// Writes the repositories over time and returns its chart: one row per date of
/// `trees` (the census of the repositories pinned at past dates), `not_yet` the
/// trees at each date whose repository had no commit yet; nothing when none.
fn repositories(
    text: &mut String,
    trees: &[DatedTree],
    not_yet: &BTreeMap<String, u64>,
) -> Option<Chart> {
    let dates: BTreeSet<&str> = trees
        .iter()
        .map(|(d, _)| d.as_str())
        .chain(not_yet.keys().map(String::as_str))
        .collect();
    if dates.is_empty() {
        return None;
    }
    text.push_str(
        "**The repositories**, each pinned at the end of each date along its default \
         branch's first-parent history, counted with the finder. The figures are per \
         tree (a repository shared by several entries counts once), where the rest of \
         the report counts per entry; a tree whose repository had no commit yet at a \
         date is *not yet*, never a zero, and one that could not be read is *failed*.\n\n",
    );
    let mut lines = vec![vec![
        "date".to_string(),
        "trees counted".to_string(),
        "not yet".to_string(),
        "failed".to_string(),
        "spelling a hint".to_string(),
        "tools".to_string(),
        "declaring a hint".to_string(),
    ]];
    lines[0].extend(Hint::ALL.iter().map(|h| format!("`{}`", h.name())));
    let mut points = Vec::new();
    for date in &dates {
        let at: Vec<&Option<Version>> = trees
            .iter()
            .filter(|(d, _)| d == date)
            .map(|(_, v)| v)
            .collect();
        let counted: Vec<&Version> = at.iter().filter_map(|v| v.as_ref()).collect();
        let n = counted.len() as u64;
        let spelling = counted.iter().filter(|v| v.spelled.contains(&true)).count() as u64;
        let (tools, annotated) = counted
            .iter()
            .filter_map(|v| v.tools)
            .fold((0, 0), |(t, a), (tools, annotated)| {
                (t + tools, a + annotated)
            });
        let mut line = vec![
            date.to_string(),
            thousands(n),
            thousands(not_yet.get(*date).copied().unwrap_or(0)),
            thousands(at.len() as u64 - n),
            share(spelling, n),
            thousands(tools),
            share(annotated, tools),
        ];
        line.extend(
            (0..4).map(|h| share(counted.iter().filter(|v| v.spelled[h]).count() as u64, n)),
        );
        lines.push(line);
        points.push((spelling, n, annotated, tools));
    }
    table(text, &lines);
    let percent = |n: u64, of: u64| (of > 0).then(|| n as f64 * 100.0 / of as f64);
    Some(Chart {
        title: "The repositories, at each date".into(),
        categories: dates.iter().map(|d| d.to_string()).collect(),
        series: vec![
            Series {
                name: "trees spelling a hint name".into(),
                values: points.iter().map(|&(s, n, _, _)| percent(s, n)).collect(),
            },
            Series {
                name: "tools declaring a hint".into(),
                values: points.iter().map(|&(_, _, a, t)| percent(a, t)).collect(),
            },
        ],
        y_label: "%".into(),
        y_max: 100.0,
        unit: "%".into(),
    })
}

/// Writes "Over time" and returns its chart, one panel per half it has: what ships
/// from `records` and `counted` (when given), the repositories from `dated` (when
/// given); `svg_name` is the chart's file name. Nothing when neither has a figure.
pub fn section(
    text: &mut String,
    records: &[&Entry],
    counted: Option<&BTreeMap<(String, String), Version>>,
    dated: Option<(&[DatedTree], &BTreeMap<String, u64>)>,
    svg_name: &str,
) -> Result<Option<String>> {
    let mut part = String::new();
    let mut charts = Vec::new();
    if let Some(chart) = counted.and_then(|c| shipped(&mut part, records, c)) {
        charts.push(chart);
    }
    if let Some(chart) = dated.and_then(|(trees, not_yet)| repositories(&mut part, trees, not_yet))
    {
        charts.push(chart);
    }
    if charts.is_empty() {
        return Ok(None);
    }
    text.push_str("## Over time\n\n");
    text.push_str(&part);
    let _ = writeln!(text, "![Over time]({svg_name})\n");
    chart::lines_svg(&charts, XAxis::Days).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pypi_names_fold_as_the_index_compares_them() {
        assert_eq!(fold("pypi:Mcp_Server..X"), "pypi:mcp-server-x");
        assert_eq!(fold("npm:@Acme/x_y"), "npm:@Acme/x_y");
    }

    #[test]
    fn a_month_ends_on_its_last_day() {
        assert_eq!(month_end("2024-02"), "2024-02-29");
        assert_eq!(month_end("2025-09"), "2025-09-30");
    }
}
