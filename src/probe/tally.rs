//! The figures `wire-DATE.md` opens with: how many servers ended in each outcome,
//! and the share listed of those that could be run, per registry (npm, PyPI,
//! remote, and servers given as a command). It counts the rows `servers` hands it
//! and formats them; it probes nothing (docs/probe.md, "Many servers, one table").

use std::fmt::Write as _;

/// The columns, in order: where a server comes from.
const SOURCES: [&str; 4] = ["npm", "PyPI", "remote", "command"];

/// Holds one server as the tally reads it.
pub struct Row<'a> {
    /// One of [`SOURCES`].
    pub source: &'static str,
    /// Its `outcome` cell.
    pub outcome: &'a str,
    /// Whether it could be run: it needed no configuration or authorization.
    pub could_run: bool,
    pub is_listed: bool,
}

/// Returns the source column of a server: its package's registry, `remote` for a
/// URL, `command` for a command line.
pub fn source(registry: Option<&str>, is_url: bool) -> &'static str {
    match (registry, is_url) {
        (Some("npm"), _) => "npm",
        (Some(_), _) => "PyPI",
        (None, true) => "remote",
        (None, false) => "command",
    }
}

/// Renders the section: a table of outcomes (in the order of `outcomes`, those that
/// occur) by source, a total column, and the share listed of those that could run.
pub fn section(rows: &[Row], outcomes: &[&str]) -> String {
    let used: Vec<&str> = SOURCES
        .iter()
        .copied()
        .filter(|s| rows.iter().any(|r| r.source == *s))
        .collect();
    let mut text = String::from("## Outcomes\n\n| outcome |");
    for source in &used {
        let _ = write!(text, " {source} |");
    }
    text.push_str(" all |\n|---|");
    text.push_str(&"---:|".repeat(used.len() + 1));
    text.push('\n');
    let count = |source: Option<&str>, keep: &dyn Fn(&Row) -> bool| {
        rows.iter()
            .filter(|r| source.is_none_or(|s| r.source == s) && keep(r))
            .count()
    };
    for outcome in outcomes {
        let is = |r: &Row| r.outcome == *outcome;
        if count(None, &is) == 0 {
            continue;
        }
        let _ = write!(text, "| {outcome} |");
        for source in &used {
            let _ = write!(text, " {} |", count(Some(source), &is));
        }
        let _ = writeln!(text, " {} |", count(None, &is));
    }
    text.push_str("| **listed, of those that could run** |");
    for source in used.iter().map(|s| Some(*s)).chain([None]) {
        let could = count(source, &|r| r.could_run);
        let listed = count(source, &|r| r.could_run && r.is_listed);
        let _ = write!(text, " {} |", share(listed, could));
    }
    text.push_str(
        "\n\nCould run: every server but those needing configuration or authorization.\n\n",
    );
    text
}

/// Returns `K of N (P%)`, the percentage rounded to a whole; `-` when N is 0.
fn share(part: usize, whole: usize) -> String {
    match whole {
        0 => "-".to_string(),
        _ => format!("{part} of {whole} ({}%)", (part * 100 + whole / 2) / whole),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(source: &'static str, outcome: &'static str) -> Row<'static> {
        Row {
            source,
            outcome,
            could_run: outcome != "needs configuration",
            is_listed: outcome == "listed",
        }
    }

    #[test]
    fn outcomes_are_counted_per_source_with_the_share_listed_of_those_that_could_run() {
        let rows = [
            row("npm", "listed"),
            row("npm", "exited"),
            row("PyPI", "listed"),
            row("PyPI", "needs configuration"),
            row("PyPI", "no python"),
            row("PyPI", "listed"),
        ];
        let order = [
            "listed",
            "needs configuration",
            "install failed",
            "no python",
            "exited",
        ];
        assert_eq!(
            section(&rows, &order),
            "## Outcomes\n\n\
             | outcome | npm | PyPI | all |\n|---|---:|---:|---:|\n\
             | listed | 1 | 2 | 3 |\n\
             | needs configuration | 0 | 1 | 1 |\n\
             | no python | 0 | 1 | 1 |\n\
             | exited | 1 | 0 | 1 |\n\
             | **listed, of those that could run** | 1 of 2 (50%) | 2 of 3 (67%) | 3 of 5 (60%) |\n\n\
             Could run: every server but those needing configuration or authorization.\n\n"
        );
        assert_eq!(share(0, 0), "-");
        assert_eq!(source(Some("pypi"), false), "PyPI");
        assert_eq!(source(None, true), "remote");
    }
}
