//! `probe --source DIR`: the wire beside the server's source, tool by tool.
//!
//! Reads DIR exactly as `scan` does (`crate::scan::count_path`: the literal count of
//! `docs/method.md` and the tool finder, from one read), then matches each tool the
//! server lists with the definition of the same literal name in the source and
//! compares their hints one by one. The literal counts stay beside the wire as
//! before. It judges no rule; it says where source and wire differ, and names the
//! documented reasons they may (docs/method.md, "Tools").

use std::path::Path;

use anyhow::{Context, Result};

use super::hints::{Declared, ToolHints};
use crate::count::Matcher;
use crate::infra::sanitize::sanitize;
use crate::report::{write_aligned, Align};
use crate::tools::hints::Hint;
use crate::tools::{HintState, ToolDef};

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
    /// The tools matched by name, then those in one half only.
    pub matched: Vec<Matched>,
    /// Definitions in the source that name no tool of the wire, in source order.
    pub source_only: Vec<ToolDef>,
    /// Tools on the wire that no definition in the source names, in wire order.
    pub wire_only: Vec<String>,
    /// Wanted source files the finder did not parse because of a bound.
    pub skipped_files: u64,
}

/// One tool listed on the wire and defined in the source under the same name.
#[derive(Debug, PartialEq, Eq)]
pub struct Matched {
    pub name: String,
    pub source: ToolDef,
    /// Per hint: how the source sets it and what the wire declares.
    pub hints: [(Option<HintState>, Declared); 4],
}

/// Why one hint of a matched tool differs, or that it agrees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    Agrees,
    /// The source sets it by something the finder could not resolve (`?`).
    Unresolved,
    /// The source leaves it out and the wire declares it: an SDK filled it in.
    FilledOnTheWire,
    /// Any other difference.
    Differs,
}

/// Returns how the source's `state` and the wire's `declared` agree for one hint.
pub fn agreement(state: Option<HintState>, declared: &Declared) -> Agreement {
    match (state, declared) {
        (Some(HintState::True), Declared::True)
        | (Some(HintState::False), Declared::False)
        | (None, Declared::Absent) => Agreement::Agrees,
        (Some(HintState::Unresolved | HintState::Unknown), _) => Agreement::Unresolved,
        (None, Declared::True | Declared::False) => Agreement::FilledOnTheWire,
        _ => Agreement::Differs,
    }
}

impl Agreement {
    /// Returns the join table's cell: `agrees`, `unresolved`, `filled on the wire` or
    /// `differs`.
    pub fn name(self) -> &'static str {
        match self {
            Agreement::Agrees => "agrees",
            Agreement::Unresolved => "unresolved",
            Agreement::FilledOnTheWire => "filled on the wire",
            Agreement::Differs => "differs",
        }
    }
}

impl Matched {
    /// Returns each hint's agreement, in the schema's order.
    pub fn agreements(&self) -> [Agreement; 4] {
        self.hints.each_ref().map(|(s, d)| agreement(*s, d))
    }
}

/// Reads the source at `dir` and sets it beside `tools`.
pub fn beside(dir: &Path, tools: &[ToolHints]) -> Result<Beside> {
    let names = Hint::ALL.map(Hint::name);
    let mut terms: Vec<&str> = names.to_vec();
    terms.push("annotations");
    let matcher = Matcher::new(&terms)?;
    let counted = crate::scan::count_path(dir, &matcher, Some(crate::tools::Roles::SOURCE))
        .with_context(|| format!("reading the source '{}'", dir.display()))?;
    let counts = &counted.count.counts;
    let found = counted.tools.unwrap_or_default();
    let own = found.counted().cloned().collect();
    let (matched, source_only, wire_only) = match_by_name(own, tools);
    let wire_only = wire_only
        .into_iter()
        .map(|i| tools[i].name.clone())
        .collect();
    Ok(Beside {
        source: [counts[0], counts[1], counts[2], counts[3]],
        source_annotations: counts[4],
        files: counted.count.files_walked,
        wire: Hint::ALL.map(|h| tools.iter().filter(|t| t.is_declared(h)).count() as u64),
        tools: tools.len() as u64,
        matched,
        source_only,
        wire_only,
        skipped_files: found.skipped_files,
    })
}

/// Pairs each wire tool with the first source definition of the same literal name
/// (names compare exactly, as clients call them); returns the pairs in wire order,
/// the definitions left over in source order, and the positions in `tools` of the
/// tools left over.
pub fn match_by_name(
    defs: Vec<ToolDef>,
    tools: &[ToolHints],
) -> (Vec<Matched>, Vec<ToolDef>, Vec<usize>) {
    let mut left: Vec<Option<ToolDef>> = defs.into_iter().map(Some).collect();
    let mut matched = Vec::new();
    let mut wire_only = Vec::new();
    for (index, tool) in tools.iter().enumerate() {
        let at = left.iter().position(|d| {
            d.as_ref()
                .is_some_and(|d| d.name.as_deref() == Some(&tool.name))
        });
        match at.and_then(|i| left[i].take()) {
            Some(def) => matched.push(Matched {
                name: tool.name.clone(),
                hints: Hint::ALL.map(|h| (def.hints[h as usize], tool.declared(h).clone())),
                source: def,
            }),
            None => wire_only.push(index),
        }
    }
    (matched, left.into_iter().flatten().collect(), wire_only)
}

/// Returns one hint as the comparison prints it: the source's cell (`absent` when
/// left out) and the wire's.
fn pair_cell(state: Option<HintState>, declared: &Declared) -> String {
    let source = state.map_or("absent", HintState::as_str);
    match agreement(state, declared) {
        Agreement::Agrees => source.to_string(),
        _ => format!("{source} / {}", declared.cell()),
    }
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
    text.push_str(&render_tools(beside));
    text
}

/// Renders the tool-by-tool half: a table of the matched tools (each hint as the
/// source sets it, then `/ wire` where they differ), the tools in one half only, and
/// a verdict naming the reasons found.
fn render_tools(beside: &Beside) -> String {
    let found = beside.matched.len() + beside.source_only.len();
    let mut text = format!(
        "tools by name: {} found in the source, {} on the wire, {} in both\n",
        found,
        beside.tools,
        beside.matched.len()
    );
    if !beside.matched.is_empty() {
        let mut lines = vec![std::iter::once("tool".to_string())
            .chain(["source at".to_string()])
            .chain(Hint::ALL.map(|h| h.name().to_string()))
            .collect::<Vec<_>>()];
        for m in &beside.matched {
            let mut line = vec![
                sanitize(&m.name),
                sanitize(format!(
                    "{}:{}",
                    String::from_utf8_lossy(&m.source.path),
                    m.source.line
                )),
            ];
            line.extend(m.hints.iter().map(|(s, d)| pair_cell(*s, d)));
            lines.push(line);
        }
        let mut out = Vec::new();
        write_aligned(&mut out, &lines, Align::Left).expect("writing to a Vec cannot fail");
        text.push_str(&String::from_utf8_lossy(&out));
    }
    for def in &beside.source_only {
        text.push_str(&format!(
            "only in the source: {} at {}:{}\n",
            def.name
                .as_deref()
                .map_or("(name not a literal)".to_string(), |n| format!(
                    "'{}'",
                    sanitize(n)
                )),
            sanitize(&def.path),
            def.line
        ));
    }
    for name in &beside.wire_only {
        text.push_str(&format!("only on the wire: '{}'\n", sanitize(name)));
    }
    let agreements: Vec<Agreement> = beside.matched.iter().flat_map(|m| m.agreements()).collect();
    let has = |a: Agreement| agreements.contains(&a);
    let mut reasons = Vec::new();
    if !beside.wire_only.is_empty() {
        reasons.push(
            "a tool only on the wire may be registered at run time (a name built from data, a \
             loop over a list, a plugin) or in code the finder does not read (a family it does \
             not cover, a generated or compiled file)",
        );
    }
    if !beside.source_only.is_empty() {
        reasons.push(
            "a definition only in the source may be registered per client capability, \
             environment or configuration, or sit in code that never runs (tests, examples), \
             or have a name that is not a literal",
        );
    }
    if has(Agreement::FilledOnTheWire) {
        reasons.push(
            "a hint absent in the source but declared on the wire was filled in by the SDK: \
             mcp-go's NewTool sends all four hints for every tool, the Go SDK since 1.7 sends \
             readOnlyHint and idempotentHint once a tool has an annotations object",
        );
    }
    if has(Agreement::Unresolved) {
        reasons.push(
            "a hint shown as ? is set through a preset or an expression the finder could not \
             resolve (defined in another package, computed, or imported from outside the tree)",
        );
    }
    if beside.skipped_files > 0 {
        reasons.push("some source files were over the finder's bounds and not parsed");
    }
    let agrees = beside.source_only.is_empty()
        && beside.wire_only.is_empty()
        && agreements.iter().all(|&a| a == Agreement::Agrees);
    if agrees {
        text.push_str(
            "tools verdict: source and wire agree tool by tool: the same names, the same hints\n",
        );
    } else {
        text.push_str(&format!(
            "tools verdict: source and wire differ; {}\n",
            reasons.join("; ")
        ));
        if has(Agreement::Differs) {
            text.push_str(
                "note: a hint that differs for no reason above (true in the source, another \
                 value on the wire) is worth a look: the server may override it at run time\n",
            );
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::hints::tests::tool;
    use crate::tools::hints::{settings, Resolved};
    use serde_json::{json, Map, Value};

    fn wire(name: &str, annotations: Value) -> ToolHints {
        ToolHints::from_tool(&json!({"name": name, "annotations": annotations}))
    }

    /// Every combination of true, false and absent agrees with what `probe` reads from
    /// the same hints on the wire.
    #[test]
    fn definitions_without_a_question_mark_read_as_the_wire_does() {
        let states = [None, Some(HintState::True), Some(HintState::False)];
        for n in 0..81 {
            let hints: [Option<HintState>; 4] =
                std::array::from_fn(|i| states[n / 3usize.pow(i as u32) % 3]);
            let mut annotations = Map::new();
            for (hint, s) in Hint::ALL.iter().zip(&hints) {
                if let Some(s) = s {
                    annotations.insert(hint.name().into(), Value::Bool(*s == HintState::True));
                }
            }
            let wire = ToolHints::from_tool(&json!({"name": "t", "annotations": annotations}));
            let def = tool(hints);
            assert_eq!(settings(&def), wire.settings(), "{hints:?}");
            assert_eq!(settings(&def).omits(), wire.omits(), "{hints:?}");
            for hint in Hint::ALL {
                let expected = match wire.resolved(hint) {
                    Some(v) => Resolved::Value(v),
                    None => Resolved::NotApplicable,
                };
                assert_eq!(
                    settings(&def).resolved(hint),
                    expected,
                    "{hints:?} {hint:?}"
                );
            }
        }
    }

    #[test]
    fn tools_pair_by_name_and_each_difference_names_its_reason() {
        let mut a = tool([Some(HintState::True), None, None, Some(HintState::False)]);
        a.name = Some("read".into());
        let mut b = tool([None, None, None, Some(HintState::Unresolved)]);
        b.name = Some("write".into());
        b.line = 9;
        let mut c = tool([None; 4]);
        c.name = None;
        c.line = 20;
        let tools = [
            wire(
                "read",
                json!({"readOnlyHint": true, "openWorldHint": false}),
            ),
            wire(
                "write",
                json!({"readOnlyHint": false, "openWorldHint": true}),
            ),
            wire("dynamic", json!({})),
        ];
        let (matched, source_only, wire_only) = match_by_name(vec![a, b, c.clone()], &tools);
        assert_eq!(matched.len(), 2);
        assert_eq!(matched[0].agreements(), [Agreement::Agrees; 4]);
        assert_eq!(
            matched[1].agreements(),
            [
                Agreement::FilledOnTheWire,
                Agreement::Agrees,
                Agreement::Agrees,
                Agreement::Unresolved
            ]
        );
        assert_eq!(source_only, [c]);
        assert_eq!(wire_only, [2]);
        let wire_only = vec!["dynamic".to_string()];
        let beside = Beside {
            source: [1, 0, 0, 2],
            source_annotations: 2,
            files: 1,
            wire: [2, 0, 0, 2],
            tools: 3,
            matched,
            source_only,
            wire_only,
            skipped_files: 0,
        };
        let text = render(Path::new("src"), &beside);
        assert!(
            text.contains("tools by name: 3 found in the source, 3 on the wire, 2 in both"),
            "{text}"
        );
        assert!(text.contains("absent / false"), "{text}");
        assert!(text.contains("? / true"), "{text}");
        assert!(
            text.contains("only in the source: (name not a literal) at a.ts:20"),
            "{text}"
        );
        assert!(text.contains("only on the wire: 'dynamic'"), "{text}");
        for reason in [
            "registered at run time",
            "per client capability",
            "filled in by the SDK",
            "could not resolve",
        ] {
            assert!(text.contains(reason), "no '{reason}' in {text}");
        }
    }

    #[test]
    fn the_verdict_names_the_hints_that_differ() {
        let agree = Beside {
            source: [2, 2, 2, 2],
            source_annotations: 2,
            files: 1,
            wire: [2, 2, 2, 2],
            tools: 2,
            matched: Vec::new(),
            source_only: Vec::new(),
            wire_only: Vec::new(),
            skipped_files: 0,
        };
        let text = render(Path::new("src"), &agree);
        assert!(text.contains("source 'src': 1 files"), "{text}");
        assert!(
            text.contains("verdict: source and wire agree: each hint"),
            "{text}"
        );
        assert!(
            text.contains("tools verdict: source and wire agree"),
            "{text}"
        );
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
