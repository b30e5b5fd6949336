//! `probe --source DIR`: the wire beside a literal count of the server's source.
//!
//! Counts DIR exactly as `scan` does (`crate::scan::count_path`, the census method of
//! `docs/method.md`) and sets each hint's literal count beside the number of tools that
//! declare it on the wire, with a one-line verdict. It judges no rule; it only says
//! whether the two halves agree and why they may not.

use std::path::Path;

use anyhow::{Context, Result};

use super::hints::{Hint, ToolHints};
use crate::count::Matcher;
use crate::sanitize::sanitize;

/// What the source and the wire say, hint by hint in the schema's order.
#[derive(Debug, PartialEq, Eq)]
pub struct Beside {
    /// Literal occurrences of each hint name in the source.
    pub source: [u64; 4],
    /// Literal occurrences of `annotations` in the source.
    pub source_annotations: u64,
    /// Files read in the source.
    pub files: u64,
    /// Tools declaring each hint as a boolean on the wire.
    pub wire: [u64; 4],
    /// Tools on the wire.
    pub tools: u64,
}

/// Counts the source at `dir` and sets it beside `tools`.
pub fn beside(dir: &Path, tools: &[ToolHints]) -> Result<Beside> {
    let names = Hint::ALL.map(Hint::name);
    let mut terms: Vec<&str> = names.to_vec();
    terms.push("annotations");
    let matcher = Matcher::new(&terms)?;
    let counted = crate::scan::count_path(dir, &matcher, false)
        .with_context(|| format!("counting the source '{}'", dir.display()))?;
    let counts = &counted.count.counts;
    Ok(Beside {
        source: [counts[0], counts[1], counts[2], counts[3]],
        source_annotations: counts[4],
        files: counted.count.files_walked,
        wire: Hint::ALL.map(|h| tools.iter().filter(|t| t.is_declared(h)).count() as u64),
        tools: tools.len() as u64,
    })
}

/// Renders the comparison and its verdict for the terminal.
pub fn render(dir: &Path, beside: &Beside) -> String {
    let pairs = |values: &[u64; 4]| {
        Hint::ALL
            .iter()
            .zip(values)
            .map(|(h, n)| format!("{} {n}", h.name()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = format!(
        "\nsource '{}': {} files; literal counts: {}, annotations {}\nwire: {} tools; tools declaring: {}\n",
        sanitize(dir.display().to_string()),
        beside.files,
        pairs(&beside.source),
        beside.source_annotations,
        beside.tools,
        pairs(&beside.wire),
    );
    let differ: Vec<String> = Hint::ALL
        .iter()
        .enumerate()
        .filter(|&(i, _)| beside.source[i] != beside.wire[i])
        .map(|(i, h)| {
            format!(
                "{} {} in the source, {} on the wire",
                h.name(),
                beside.source[i],
                beside.wire[i]
            )
        })
        .collect();
    if differ.is_empty() {
        text.push_str(
            "verdict: source and wire agree: each hint name is spelled in the source as often as tools declare it on the wire\n",
        );
    } else {
        text.push_str(&format!(
            "verdict: source and wire differ ({}); a literal count need not match the wire: mcp-go's NewTool sends all four hints for every tool, the Go SDK since 1.7 sends readOnlyHint and idempotentHint once a tool has an annotations object, hints may come from generated code or configuration, and a literal may sit in tests, docs or code that never runs\n",
            differ.join("; ")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_names_the_hints_that_differ() {
        let agree = Beside {
            source: [2, 2, 2, 2],
            source_annotations: 2,
            files: 1,
            wire: [2, 2, 2, 2],
            tools: 2,
        };
        let text = render(Path::new("src"), &agree);
        assert!(text.contains("verdict: source and wire agree"), "{text}");
        let differ = Beside {
            source: [0, 0, 0, 0],
            wire: [3, 3, 3, 3],
            ..agree
        };
        let text = render(Path::new("src"), &differ);
        assert!(
            text.contains("verdict: source and wire differ (readOnlyHint 0 in the source, 3 on the wire; destructiveHint"),
            "{text}"
        );
        assert!(text.contains("mcp-go's NewTool"), "{text}");
    }
}
