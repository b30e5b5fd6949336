//! The README and `docs/*.md` against the binary they describe: every
//! `mcp-hint-census SUBCOMMAND ... --flag` they name in code (a fenced block or a code
//! span) names a flag that the subcommand's `--help` lists, every relative link leads to
//! a file and heading that exist, and the README links to every page of `docs/`.
//!
//! A synopsis may go on over indented lines that open with `[` or `(`, and an example
//! over lines ending in `\`. A line `NAME: [--flag ...]` under a synopsis defines the
//! options every command of that block writing `[NAME]` takes. A command ends at `|`,
//! `&&`, `||` or `;` outside brackets, at a `#` comment, and at a lone `--` (what follows
//! is the server's command line, not ours).

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{run, show};

/// The binary's name as the docs write it.
const BIN: &str = "mcp-hint-census";

/// Returns the repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Returns `README.md` and every `docs/*.md`, relative to the root, in name order.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root().join("docs"))
        .expect("reading docs/")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| {
            path.strip_prefix(root())
                .expect("under the root")
                .to_path_buf()
        })
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// One line of code a doc holds: its 1-based line, its text, and the fenced block it
/// sits in, counted from 0 (`None`: a code span of the prose, a line of its own).
struct CodeLine {
    line: usize,
    text: String,
    block: Option<usize>,
}

/// Returns the code of a Markdown text: each fenced block's lines, and each code span
/// of the prose (a span may cross a line end; it is reported at the line it opens on).
fn code_of(text: &str) -> Vec<CodeLine> {
    let mut code = Vec::new();
    let mut is_fence = false;
    let mut blocks = 0;
    let mut prose: Vec<(usize, &str)> = Vec::new();
    let flush = |prose: &mut Vec<(usize, &str)>, code: &mut Vec<CodeLine>| {
        for (line, span) in spans(prose) {
            code.push(CodeLine {
                line,
                text: span,
                block: None,
            });
        }
        prose.clear();
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            flush(&mut prose, &mut code);
            blocks += usize::from(is_fence);
            is_fence = !is_fence;
        } else if is_fence {
            code.push(CodeLine {
                line: i + 1,
                text: line.to_string(),
                block: Some(blocks),
            });
        } else if line.trim().is_empty() {
            flush(&mut prose, &mut code);
        } else {
            prose.push((i + 1, line));
        }
    }
    flush(&mut prose, &mut code);
    code
}

/// Returns the code spans of one paragraph, each with the line it opens on.
fn spans(paragraph: &[(usize, &str)]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for &(line, text) in paragraph {
        for (k, piece) in text.split('`').enumerate() {
            if k > 0 {
                open = match open.take() {
                    Some(span) => {
                        found.push(span);
                        None
                    }
                    None => Some((line, String::new())),
                };
            }
            if let Some((_, span)) = open.as_mut() {
                span.push_str(piece);
            }
        }
        if let Some((_, span)) = open.as_mut() {
            span.push(' ');
        }
    }
    found
}

/// Returns the code lines with their continuations joined: an indented line opening
/// with `[` or `(`, or any line after one ending in `\`, goes on the line before.
fn joined(code: Vec<CodeLine>) -> Vec<CodeLine> {
    let mut out: Vec<CodeLine> = Vec::new();
    for next in code {
        let goes_on = next.block.is_some()
            && out.last().is_some_and(|last| {
                last.block == next.block
                    && (last.text.trim_end().ends_with('\\')
                        || (next.text.starts_with(' ')
                            && next.text.trim_start().starts_with(['[', '('])))
            });
        match out.last_mut() {
            Some(last) if goes_on => {
                let text = last.text.trim_end().trim_end_matches('\\').to_string();
                last.text = format!("{text} {}", next.text.trim());
            }
            _ => out.push(next),
        }
    }
    out
}

/// One command a doc names: where, the words before its flags, and its flags.
#[derive(Debug)]
struct Named {
    line: usize,
    words: Vec<String>,
    flags: Vec<(usize, String)>,
    /// The `[NAME]` placeholders it writes, for a `NAME:` line of its block.
    groups: Vec<String>,
}

/// A line `NAME: [--flag ...]`: the options every command of its block writing
/// `[NAME]` takes, each with its line.
struct Group {
    name: String,
    flags: Vec<(usize, String)>,
}

/// Returns the `--flag` a token spells, if any: `--require-hints=tools` is
/// `--require-hints`, `[--jobs` is `--jobs`.
fn flag_of(token: &str) -> Option<String> {
    let token = token.trim_start_matches(['[', '(', '"', '\'']);
    let rest = token.strip_prefix("--")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => Some(format!("--{name}")),
        _ => None,
    }
}

/// Returns the commands one line of code names, and the `NAME:` group it defines.
fn commands_in(line: &CodeLine) -> (Vec<Named>, Option<Group>) {
    let tokens: Vec<&str> = line.text.split_whitespace().collect();
    let mut named = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i].trim_start_matches(['"', '\'', '(']) != BIN {
            i += 1;
            continue;
        }
        let mut command = Named {
            line: line.line,
            words: Vec::new(),
            flags: Vec::new(),
            groups: Vec::new(),
        };
        let mut depth = 0i32;
        i += 1;
        while i < tokens.len() {
            let token = tokens[i];
            let bare = token.trim_start_matches(['[', '(']);
            if depth == 0 && (["|", "&&", "||", ";"].contains(&token) || token.starts_with('#')) {
                break;
            }
            if bare == "--" {
                break;
            }
            if let Some(flag) = flag_of(token) {
                command.flags.push((line.line, flag));
            } else if command.flags.is_empty() && depth == 0 && !token.starts_with(['[', '(']) {
                command.words.push(token.to_string());
            }
            if let Some(name) = token.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
                if name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                    command.groups.push(name.to_string());
                }
            }
            depth += token.matches(['[', '(']).count() as i32;
            depth -= token.matches([']', ')']).count() as i32;
            depth = depth.max(0);
            i += 1;
        }
        named.push(command);
    }
    let group = tokens.first().and_then(|first| {
        let name = first.strip_suffix(':')?;
        let is_name = !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_');
        is_name.then(|| {
            let flags = tokens[1..]
                .iter()
                .filter_map(|t| flag_of(t))
                .map(|f| (line.line, f));
            Group {
                name: name.to_string(),
                flags: flags.collect(),
            }
        })
    });
    (named, group)
}

/// Returns every command a doc names, with the flags of its block's `NAME:` groups.
fn named_in(text: &str) -> Vec<Named> {
    let mut all = Vec::new();
    let mut block: Vec<Named> = Vec::new();
    let mut current = None;
    for line in joined(code_of(text)) {
        // A new block, or a span: the groups of the block before are done.
        if line.block.is_none() || line.block != current {
            all.append(&mut block);
        }
        current = line.block;
        let (named, group) = commands_in(&line);
        if let Some(group) = group {
            for command in block.iter_mut().filter(|c| c.groups.contains(&group.name)) {
                command.flags.extend(group.flags.iter().cloned());
            }
        }
        block.extend(named);
    }
    all.append(&mut block);
    all
}

/// What `--help` says of one command: its subcommands and its long flags.
#[derive(Default)]
struct Help {
    commands: BTreeSet<String>,
    flags: BTreeSet<String>,
}

/// Reads the help text of `mcp-hint-census WORDS --help`.
fn read_help(words: &[String]) -> Help {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut args: Vec<&str> = words.iter().map(String::as_str).collect();
    args.push("--help");
    let out = run(dir.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{BIN} {}\n{}",
        args.join(" "),
        show(&out)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut parsed = Help::default();
    let mut section = "";
    for line in text.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            section = line;
            continue;
        }
        if section == "Commands:" {
            if let Some(name) = line.strip_prefix("  ").and_then(|l| l.split(' ').next()) {
                if !name.is_empty() && !line.starts_with("   ") {
                    parsed.commands.insert(name.to_string());
                }
            }
        }
        let option = line.trim_start();
        if option.starts_with('-') {
            let signature = option.split("  ").next().unwrap_or("");
            parsed
                .flags
                .extend(signature.split([' ', ',']).filter_map(flag_of));
        }
    }
    parsed
}

/// Returns the problems of one doc: each flag its commands name that the command's
/// `--help` does not list, as `FILE:LINE: ...`; and how many flags it checked.
fn check_flags(
    file: &Path,
    text: &str,
    helps: &mut HashMap<Vec<String>, Help>,
) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut checked = 0;
    for command in named_in(text) {
        let mut path: Vec<String> = Vec::new();
        for word in &command.words {
            let known = helps
                .entry(path.clone())
                .or_insert_with(|| read_help(&path));
            if known.commands.contains(word) {
                path.push(word.clone());
            } else {
                if path.is_empty() && word.chars().all(|c| c.is_ascii_lowercase()) {
                    problems.push(format!(
                        "{}:{}: '{BIN} {word}' is no subcommand",
                        file.display(),
                        command.line
                    ));
                }
                break;
            }
        }
        if path.is_empty() && !command.words.is_empty() {
            continue; // `mcp-hint-census ARGS`: a placeholder, not a command line
        }
        let known = helps
            .entry(path.clone())
            .or_insert_with(|| read_help(&path));
        for (line, flag) in &command.flags {
            checked += 1;
            if !known.flags.contains(flag) {
                problems.push(format!(
                    "{}:{line}: '{BIN} {}' has no {flag} (see '{BIN} {} --help')",
                    file.display(),
                    path.join(" "),
                    path.join(" ")
                ));
            }
        }
    }
    (problems, checked)
}

#[test]
fn every_flag_the_docs_name_is_in_its_subcommands_help() {
    let mut helps = HashMap::new();
    let mut problems = Vec::new();
    let mut checked = HashMap::new();
    for file in doc_files() {
        let text = fs::read_to_string(root().join(&file)).expect("reading a doc");
        let (found, count) = check_flags(&file, &text, &mut helps);
        problems.extend(found);
        checked.insert(file, count);
    }
    assert!(
        problems.is_empty(),
        "flags the docs name that do not exist:\n{}",
        problems.join("\n")
    );
    // The extraction itself: the README's examples and each command's page are read.
    for (file, least) in [
        ("README.md", 20),
        ("docs/census.md", 40),
        ("docs/scan.md", 15),
        ("docs/probe.md", 20),
        ("docs/surveys.md", 10),
    ] {
        let got = checked[Path::new(file)];
        assert!(
            got >= least,
            "{file}: {got} flags checked, expected at least {least}"
        );
    }
}

#[test]
fn a_flag_no_subcommand_has_is_named_with_its_file_and_line() {
    let text = "Intro.\n\n```sh\nmcp-hint-census census --corpus big.toml \\\n    --no-such-flag\n```\n\n\
                Inline: `mcp-hint-census scan --files --bogus .`, and\n`mcp-hint-census probe --json -- node --json`.\n\n\
                ```\nmcp-hint-census corpus list LIST --out FILE [COMMON]\n\
                COMMON: [--date YYYY-MM-DD] [--not-common N]\n```\n\n\
                `mcp-hint-census scna --files`\n";
    let mut helps = HashMap::new();
    let (problems, checked) = check_flags(Path::new("x.md"), text, &mut helps);
    assert_eq!(
        problems,
        [
            "x.md:4: 'mcp-hint-census census' has no --no-such-flag (see 'mcp-hint-census census --help')",
            "x.md:8: 'mcp-hint-census scan' has no --bogus (see 'mcp-hint-census scan --help')",
            "x.md:9: 'mcp-hint-census probe' has no --json (see 'mcp-hint-census probe --help')",
            "x.md:13: 'mcp-hint-census corpus list' has no --not-common (see 'mcp-hint-census corpus list --help')",
            "x.md:16: 'mcp-hint-census scna' is no subcommand",
        ]
    );
    // census: --corpus, --no-such-flag; scan: --files, --bogus; probe: --json (the
    // server's own --json after `--` is not ours); corpus list: --out, --date, --not-common.
    assert_eq!(checked, 8);
}

/// Returns the anchors GitHub gives the headings of a Markdown text: lower case,
/// punctuation dropped, spaces to hyphens, a repeated heading suffixed `-1`, `-2`, ...
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    let mut is_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            is_fence = !is_fence;
            continue;
        }
        let Some(title) = (!is_fence)
            .then(|| line.trim_start_matches('#'))
            .filter(|rest| rest.len() < line.len() && rest.starts_with(' '))
        else {
            continue;
        };
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

/// Returns the targets of the Markdown links `[text](target)` in a text's prose, each
/// with its line.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut is_fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            is_fence = !is_fence;
            continue;
        }
        if is_fence {
            continue;
        }
        // Code spans hold no links.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(k, _)| k % 2 == 0)
            .map(|(_, piece)| piece)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push((i + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_docs_leads_somewhere() {
    let mut problems = Vec::new();
    let mut count = 0;
    for file in doc_files() {
        let text = fs::read_to_string(root().join(&file)).expect("reading a doc");
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            count += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let dest = match path {
                "" => root().join(&file),
                _ => root().join(&file).parent().expect("a folder").join(path),
            };
            if !dest.exists() {
                problems.push(format!(
                    "{}:{line}: '{target}': no such file",
                    file.display()
                ));
            } else if !anchor.is_empty() {
                let there = fs::read_to_string(&dest).expect("reading a linked doc");
                if !anchors(&there).contains(anchor) {
                    problems.push(format!(
                        "{}:{line}: '{target}': no such heading",
                        file.display()
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "links that lead nowhere:\n{}",
        problems.join("\n")
    );
    assert!(count >= 30, "only {count} relative links found");
    assert!(
        anchors("## Adoption over time: `--at`, `--since`\n## A\n## A\n").is_superset(
            &["adoption-over-time---at---since", "a", "a-1"]
                .map(String::from)
                .into()
        )
    );
}

#[test]
fn the_readme_links_to_every_page_of_docs() {
    let readme = fs::read_to_string(root().join("README.md")).expect("reading README.md");
    let linked: BTreeSet<String> = links(&readme)
        .into_iter()
        .map(|(_, target)| target.split('#').next().unwrap_or("").to_string())
        .collect();
    let missing: Vec<String> = doc_files()
        .into_iter()
        .skip(1)
        .map(|path| path.display().to_string())
        .filter(|path| !linked.contains(path))
        .collect();
    assert!(
        missing.is_empty(),
        "docs pages the README does not link to: {missing:?}"
    );
}
