//! The GitHub Action (`action.yml` and `action/run.sh`, docs/scan.md, "In CI: the
//! GitHub Action") run outside GitHub, the way the runner would run its check step: the
//! step's `run:` line under `bash --noprofile --norc -eo pipefail`, with the `env:`
//! the step declares filled from the test's inputs and the inputs' defaults, and
//! with GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_ACTION_PATH and RUNNER_TEMP set.
//!
//! Oracles: a naive counter over the bytes the test wrote (scan), snapshots worked
//! out by hand (diff), the official Python SDK's listing of the pinned memory server
//! (probe), a CommonMark reading of the code fences (the summary's Markdown), sha2
//! over the built-from files (the cache key), and PyYAML's reading of action.yml when
//! it is installed.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tempfile::TempDir;

use crate::common::{naive, spec_findings, ts_server, ToolSpec, TERMS};
use crate::support::{memory_server, peers, python_with_mcp, require};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn action_text() -> String {
    fs::read_to_string(repo().join("action.yml")).expect("action.yml is readable")
}

fn script_text() -> String {
    fs::read_to_string(repo().join("action/run.sh")).expect("action/run.sh is readable")
}

// ---------------------------------------------------------------------------
// Reading action.yml

/// Parses the YAML subset action.yml is written in: block mappings and sequences
/// of mappings, plain and quoted scalars, `|` and `>` block scalars (optionally
/// `-`), comments. Panics, naming the line, on anything else.
fn parse_yaml(text: &str) -> Value {
    let mut yaml = Yaml {
        lines: text.lines().map(str::to_string).collect(),
        pos: 0,
    };
    let value = yaml.node(0);
    yaml.skip();
    assert_eq!(
        yaml.pos,
        yaml.lines.len(),
        "line {}: not read",
        yaml.pos + 1
    );
    value
}

struct Yaml {
    lines: Vec<String>,
    pos: usize,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

impl Yaml {
    fn skip(&mut self) {
        while let Some(line) = self.lines.get(self.pos) {
            let text = line.trim();
            if !text.is_empty() && !text.starts_with('#') {
                break;
            }
            self.pos += 1;
        }
    }

    fn peek_indent(&mut self) -> Option<usize> {
        self.skip();
        self.lines.get(self.pos).map(|l| indent(l))
    }

    fn is_item(&self, at: usize) -> bool {
        self.lines[self.pos][at..].starts_with("- ")
    }

    fn node(&mut self, at: usize) -> Value {
        if self.is_item(at) {
            self.seq(at)
        } else {
            self.map(at)
        }
    }

    fn seq(&mut self, at: usize) -> Value {
        let mut items = Vec::new();
        while self.peek_indent() == Some(at) && self.is_item(at) {
            // "- key: value" opens a mapping two columns in.
            self.lines[self.pos].replace_range(at..at + 2, "  ");
            items.push(self.map(at + 2));
        }
        Value::Array(items)
    }

    fn map(&mut self, at: usize) -> Value {
        let mut map = serde_json::Map::new();
        while self.peek_indent() == Some(at) && !self.is_item(at) {
            let number = self.pos + 1;
            let line = self.lines[self.pos].clone();
            let body = &line[at..];
            let (key, rest) = match body.find(": ") {
                Some(i) => (&body[..i], body[i + 2..].trim()),
                None => (
                    body.trim_end()
                        .strip_suffix(':')
                        .unwrap_or_else(|| panic!("line {number}: no key in {body:?}")),
                    "",
                ),
            };
            self.pos += 1;
            let value = if rest.is_empty() || rest.starts_with('#') {
                match self.peek_indent() {
                    Some(inner) if inner > at => self.node(inner),
                    _ => Value::Null,
                }
            } else if rest.starts_with('|') || rest.starts_with('>') {
                self.block(at, rest)
            } else {
                scalar(rest, number)
            };
            assert!(
                map.insert(key.to_string(), value).is_none(),
                "line {number}: key {key:?} twice"
            );
        }
        if let Some(next) = self.peek_indent() {
            assert!(next <= at, "line {}: unexpected indentation", self.pos + 1);
        }
        Value::Object(map)
    }

    fn block(&mut self, at: usize, header: &str) -> Value {
        let folded = header.starts_with('>');
        let strip = header.trim_end().ends_with('-');
        let mut raw = Vec::new();
        while let Some(line) = self.lines.get(self.pos) {
            if !line.trim().is_empty() && indent(line) <= at {
                break;
            }
            raw.push(line.clone());
            self.pos += 1;
        }
        while raw.last().is_some_and(|l| l.trim().is_empty()) {
            raw.pop();
        }
        let inner = raw.first().map_or(0, |l| indent(l));
        let lines: Vec<&str> = raw
            .iter()
            .map(|l| if l.trim().is_empty() { "" } else { &l[inner..] })
            .collect();
        let mut text = if folded {
            let mut out = String::new();
            let mut blank = 0;
            for line in &lines {
                assert!(!line.starts_with(' '), "a more-indented folded line");
                if line.is_empty() {
                    blank += 1;
                    continue;
                }
                if !out.is_empty() {
                    out.push_str(&if blank > 0 {
                        "\n".repeat(blank)
                    } else {
                        " ".into()
                    });
                }
                out.push_str(line);
                blank = 0;
            }
            out
        } else {
            lines.join("\n")
        };
        if !strip && !text.is_empty() {
            text.push('\n');
        }
        Value::String(text)
    }
}

fn scalar(text: &str, number: usize) -> Value {
    for quote in ['"', '\''] {
        if let Some(rest) = text.strip_prefix(quote) {
            let end = rest
                .find(quote)
                .unwrap_or_else(|| panic!("line {number}: unclosed quote"));
            let after = rest[end + 1..].trim();
            assert!(
                after.is_empty() || after.starts_with('#'),
                "line {number}: text after a quoted scalar (an escape this reader does not take?)"
            );
            assert!(!rest[..end].contains('\\'), "line {number}: an escape");
            return Value::String(rest[..end].to_string());
        }
    }
    let plain = match text.find(" #") {
        Some(i) => text[..i].trim_end(),
        None => text,
    };
    match plain {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" | "~" => Value::Null,
        _ => match plain.parse::<i64>() {
            Ok(n) => json!(n),
            Err(_) => Value::String(plain.to_string()),
        },
    }
}

/// The parts of action.yml the runner reads for the check step.
struct Action {
    doc: Value,
    /// Input name to its default ("" when none).
    defaults: BTreeMap<String, String>,
    /// The check step's environment: variable to its expression.
    env: BTreeMap<String, String>,
    /// The check step's script.
    run: String,
}

fn action() -> Action {
    let doc = parse_yaml(&action_text());
    let defaults = doc["inputs"]
        .as_object()
        .expect("an inputs mapping")
        .iter()
        .map(|(name, spec)| {
            let default = match &spec["default"] {
                Value::Null => String::new(),
                Value::String(s) => s.clone(),
                other => panic!("input '{name}': a default that is not a string: {other}"),
            };
            (name.clone(), default)
        })
        .collect();
    let check = check_step(&doc);
    let env = check["env"]
        .as_object()
        .expect("the check step has an env mapping")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("a string").to_string()))
        .collect();
    let run = check["run"]
        .as_str()
        .expect("the check step runs a script")
        .to_string();
    Action {
        doc,
        defaults,
        env,
        run,
    }
}

fn steps(doc: &Value) -> &Vec<Value> {
    doc["runs"]["steps"].as_array().expect("runs.steps")
}

fn check_step(doc: &Value) -> &Value {
    steps(doc)
        .iter()
        .find(|s| s["id"] == "check")
        .expect("a step with id 'check'")
}

/// Returns the input named by an expression of the form `${{ inputs.NAME }}`.
fn input_of(expr: &str) -> Option<&str> {
    expr.strip_prefix("${{ inputs.")?.strip_suffix(" }}")
}

/// Returns every `inputs.NAME` an expression in `value` refers to.
fn inputs_referred(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => {
            for (i, _) in s.match_indices("inputs.") {
                let name: String = s[i + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                    .collect();
                out.push(name);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| inputs_referred(v, out)),
        Value::Object(map) => map.values().for_each(|v| inputs_referred(v, out)),
        _ => {}
    }
}

/// Returns the INPUT_* variables a script reads.
fn input_variables(script: &str) -> Vec<String> {
    let mut names: Vec<String> = script
        .match_indices("INPUT_")
        .map(|(i, _)| {
            script[i..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect::<String>()
        })
        .filter(|n| n.len() > "INPUT_".len())
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn action_yml_declares_what_the_script_reads_and_splices_no_input_into_a_script() {
    let action = action();
    let doc = &action.doc;
    assert_eq!(doc["runs"]["using"], "composite");

    // No step script holds an expression: every value reaches bash through env.
    for step in steps(doc) {
        if let Some(run) = step["run"].as_str() {
            assert!(!run.contains("${{"), "an expression inside run: {run:?}");
            assert!(
                step["shell"].is_string(),
                "a run step without a shell: {step}"
            );
        }
    }
    // And none anywhere in the text after a run: key, whatever the reader made of it.
    for line in action_text().lines() {
        if let Some(i) = line.find("run:") {
            assert!(!line[i..].contains("${{"), "{line}");
        }
    }

    // Every expression names a declared input.
    let mut referred = Vec::new();
    inputs_referred(&doc["runs"], &mut referred);
    inputs_referred(&doc["outputs"], &mut referred);
    for name in &referred {
        assert!(
            action.defaults.contains_key(name),
            "undeclared input '{name}'"
        );
    }
    for (name, spec) in doc["inputs"].as_object().unwrap() {
        let about = spec["description"].as_str().unwrap_or_default();
        assert!(about.len() > 20, "input '{name}' is not described");
    }

    // The check step maps each input to INPUT_<NAME>, and the script reads exactly those.
    let mut mapped = Vec::new();
    for (var, expr) in &action.env {
        let name = input_of(expr).unwrap_or_else(|| panic!("{var}: {expr} is not an input"));
        assert_eq!(
            *var,
            format!("INPUT_{}", name.to_ascii_uppercase().replace('-', "_"))
        );
        mapped.push(name.to_string());
    }
    mapped.sort();
    let declared: Vec<String> = action.defaults.keys().cloned().collect();
    assert_eq!(mapped, declared, "every input reaches the script");
    let read = input_variables(&script_text());
    let passed: Vec<String> = action.env.keys().cloned().collect();
    assert_eq!(read, passed, "the script reads what the step passes");
    assert!(action.run.contains("\"$GITHUB_ACTION_PATH/action/run.sh\""));

    // Every output is set by the script.
    for (name, spec) in doc["outputs"].as_object().expect("outputs") {
        assert_eq!(
            spec["value"],
            format!("${{{{ steps.check.outputs.{name} }}}}")
        );
        assert!(
            script_text().contains(&format!("set_output {name} ")),
            "output '{name}' is never set"
        );
    }

    // The binary the build step installs, the cache step keeps and the script runs
    // are one file.
    let all = steps(doc);
    let cached: Vec<&str> = all
        .iter()
        .find_map(|s| s["with"]["path"].as_str())
        .expect("a cache step")
        .lines()
        .collect();
    let install = all
        .iter()
        .filter_map(|s| s["run"].as_str())
        .find(|r| r.contains("cargo install"))
        .expect("a build step");
    assert!(install.contains("--locked") && install.contains("--path \"$GITHUB_ACTION_PATH\""));
    let root = install
        .split("--root \"$HOME/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("an install root under HOME");
    assert!(
        cached.contains(&format!("~/{root}/bin/mcp-hint-census").as_str()),
        "{cached:?}"
    );
    // Cargo's registry and the build folder are cached too, and restored by prefix
    // after a change, so a change does not rebuild from nothing.
    assert!(
        cached.contains(&format!("~/{root}/target").as_str()),
        "{cached:?}"
    );
    assert!(install.contains(&format!("CARGO_TARGET_DIR=\"$HOME/{root}/target\"")));
    assert!(cached.contains(&"~/.cargo/registry/cache"), "{cached:?}");
    let restore = all
        .iter()
        .find_map(|s| s["with"]["restore-keys"].as_str())
        .expect("a restore key");
    let key = all.iter().find_map(|s| s["with"]["key"].as_str()).unwrap();
    assert!(
        key.starts_with(restore) && key.len() > restore.len(),
        "{key} {restore}"
    );
    // A runner without cargo is told so, before cargo is called.
    let check = install.find("command -v cargo").expect("a check for cargo");
    assert!(check < install.find("cargo install").unwrap());
    assert!(install.contains("::error::"));
    assert!(action_text().contains("Windows runners are not supported"));
    assert!(script_text().contains(&format!("${{HOME:-}}/{root}/bin/mcp-hint-census")));
    let cache_uses = all.iter().find_map(|s| s["uses"].as_str()).unwrap();
    assert!(cache_uses.starts_with("actions/cache@"), "{cache_uses}");
}

#[test]
fn pyyaml_reads_action_yml_as_this_reader_does() {
    // PyYAML is pinned in the peers' venv (tests/peers/requirements.txt).
    let python = repo().join("tests/peers/.venv/bin/python");
    let probe = Command::new(&python).args(["-c", "import yaml"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        crate::common::skip(
            "PyYAML is not installed in tests/peers/.venv (run tests/peers/install.sh); \
             the structural check above still ran",
        );
        return;
    }
    let out = Command::new(&python)
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1], encoding='utf-8'))))",
        ])
        .arg(repo().join("action.yml"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(parse_yaml(&action_text()), theirs);
}

// ---------------------------------------------------------------------------
// Running the check step

struct Ran {
    /// Holds the summary, the outputs and RUNNER_TEMP, whose files outputs name.
    _github: TempDir,
    code: Option<i32>,
    summary: String,
    outputs: BTreeMap<String, String>,
    log: String,
}

impl Ran {
    fn show(&self) -> String {
        format!(
            "exit: {:?}\n--- summary ---\n{}--- outputs ---\n{:?}\n--- log ---\n{}",
            self.code, self.summary, self.outputs, self.log
        )
    }

    fn output(&self, name: &str) -> &str {
        self.outputs
            .get(name)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("no output '{name}'\n{}", self.show()))
    }
}

/// Runs the check step in `cwd` with `inputs` (by input name; the rest take their
/// defaults), the built binary as `binary` unless given, and `envs` added.
fn run_action(cwd: &Path, inputs: &[(&str, &str)], envs: &[(&str, &str)]) -> Ran {
    let action = action();
    let github = TempDir::new().unwrap();
    let summary = github.path().join("summary.md");
    let outputs = github.path().join("output");
    let runner_temp = github.path().join("runner-temp");
    fs::create_dir(&runner_temp).unwrap();
    fs::write(&summary, "").unwrap();
    fs::write(&outputs, "").unwrap();

    let bin = env!("CARGO_BIN_EXE_mcp-hint-census");
    let mut given: BTreeMap<&str, &str> = [("binary", bin)].into_iter().collect();
    given.extend(inputs.iter().copied());
    for name in given.keys() {
        assert!(action.defaults.contains_key(*name), "no input '{name}'");
    }

    let mut cmd = Command::new("bash");
    cmd.args([
        "--noprofile",
        "--norc",
        "-eo",
        "pipefail",
        "-c",
        &action.run,
    ])
    .current_dir(cwd);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("INPUT_") || key.starts_with("GITHUB_") || key.starts_with("RUNNER_") {
            cmd.env_remove(key);
        }
    }
    for (var, expr) in &action.env {
        let name = input_of(expr).expect("an input expression");
        let value = given.get(name).copied().unwrap_or(&action.defaults[name]);
        cmd.env(var, value);
    }
    let out = cmd
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_ACTION_PATH", repo())
        .env("GITHUB_WORKSPACE", cwd)
        .env("RUNNER_TEMP", &runner_temp)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .envs(envs.iter().copied())
        .output()
        .expect("bash runs");
    Ran {
        code: out.status.code(),
        summary: fs::read_to_string(&summary).expect("the summary is UTF-8"),
        outputs: parse_outputs(&fs::read_to_string(&outputs).unwrap()),
        log: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        _github: github,
    }
}

/// Reads a GITHUB_OUTPUT file: `name=value` lines and `name<<DELIM` blocks.
fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delim)) = line.split_once("<<") {
            let mut value = Vec::new();
            for inner in lines.by_ref() {
                if inner == delim {
                    break;
                }
                value.push(inner);
            }
            out.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            out.insert(name.to_string(), value.to_string());
        }
    }
    out
}

/// Returns the contents of the fenced code blocks of Markdown text as CommonMark
/// reads them: a line of three or more backticks (at most three spaces in) opens
/// a block, which a line of at least as many backticks and nothing else closes; a
/// carriage return ends a line too. Panics on a block left open.
fn fenced_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, Vec<&str>)> = None;
    for line in markdown.split(['\n', '\r']) {
        let body = line.trim_start_matches(' ');
        let indented = line.len() - body.len() <= 3;
        let ticks = body.len() - body.trim_start_matches('`').len();
        match &mut open {
            None => {
                if indented && ticks >= 3 && !body[ticks..].contains('`') {
                    open = Some((ticks, Vec::new()));
                }
            }
            Some((fence, lines)) => {
                if indented && ticks >= *fence && body[ticks..].trim().is_empty() {
                    blocks.push(lines.join("\n"));
                    open = None;
                } else {
                    lines.push(line);
                }
            }
        }
    }
    assert!(open.is_none(), "a code fence is never closed:\n{markdown}");
    blocks
}

/// Returns the block of `ran`'s summary that starts with `first`.
fn block_starting<'a>(blocks: &'a [String], first: &str, ran: &Ran) -> &'a str {
    blocks
        .iter()
        .find(|b| b.starts_with(first))
        .unwrap_or_else(|| panic!("no block starts with {first:?}\n{}", ran.show()))
}

/// Returns the last line of the summary: the verdict.
fn verdict(ran: &Ran) -> &str {
    ran.summary.trim_end().lines().last().unwrap_or_default()
}

// ---------------------------------------------------------------------------
// scan

/// Returns `n` bytes of text made of hint spellings, near misses and filler,
/// from a fixed seed.
fn generated(seed: u64, n: usize) -> Vec<u8> {
    const PIECES: [&str; 14] = [
        "readOnlyHint",
        "READONLYHINT: true",
        "destructiveHint",
        "idempotenthint",
        "openWorldHint",
        "annotations",
        "readOnlyHin",
        "read_only_hint",
        "openWorldHintannotations",
        "```\n",
        " ",
        "\n",
        "x",
        "\r\n",
    ];
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = Vec::with_capacity(n + 32);
    while out.len() < n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(PIECES[(state % PIECES.len() as u64) as usize].as_bytes());
    }
    out
}

/// Writes the files into `root` and returns the files' count and the naive count of
/// each column over their bytes.
fn write_tree(root: &Path, files: &[(&str, Vec<u8>)]) -> (usize, [u64; 5]) {
    let mut counts = [0; 5];
    for (path, bytes) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, bytes).unwrap();
        for (count, term) in counts.iter_mut().zip(TERMS) {
            *count += naive(bytes, term);
        }
    }
    (files.len(), counts)
}

/// Returns the files and counts of a tree's row in a scan table.
fn row_of(table: &str, tree: &str) -> Option<(usize, [u64; 5])> {
    let line = table
        .lines()
        .find(|l| l.strip_prefix(tree).is_some_and(|r| r.starts_with("  ")))?;
    let cells: Vec<u64> = line[tree.len()..]
        .split_whitespace()
        .map(|c| c.replace(',', "").parse().expect("a number"))
        .collect();
    // The commit column is empty for a directory outside git; the tool columns
    // (tools found, annotated) come last.
    assert_eq!(cells.len(), 8, "{line}");
    Some((cells[0] as usize, cells[1..6].try_into().unwrap()))
}

#[test]
fn a_scan_of_trees_with_hints_passes_and_the_summary_holds_the_counts() {
    let dir = TempDir::new().unwrap();
    // A tree whose name opens its table line with backticks, and one with a space:
    // both reach the tool as one argument each and their rows stay in the block.
    let first = "````hints";
    let second = "two words";
    let a = write_tree(
        &dir.path().join(first),
        &[
            ("src/tools.ts", generated(1, 20_000)),
            ("src/deep/er/schema.json", generated(2, 3_000)),
            ("README.md", generated(3, 700)),
            ("empty.txt", Vec::new()),
        ],
    );
    let b = write_tree(
        &dir.path().join(second),
        &[("server.py", generated(4, 9_000))],
    );
    assert!(
        a.1[..4].iter().all(|&n| n > 0) && b.1[0] > 0,
        "the fixture holds hints"
    );

    let paths = format!("  {first}  \n\n{second}\n");
    let ran = run_action(dir.path(), &[("paths", &paths)], &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.show());
    assert_eq!(ran.output("status"), "0");
    assert!(
        ran.summary.starts_with("## mcp-hint-census scan\n"),
        "{}",
        ran.show()
    );

    let blocks = fenced_blocks(&ran.summary);
    let command = block_starting(&blocks, "$ mcp-hint-census scan", &ran);
    assert!(command.contains(" --require-hints "), "{command}");
    assert!(!command.contains("--profile"), "{command}");
    let table = block_starting(&blocks, "tree ", &ran);
    assert_eq!(row_of(table, first), Some(a), "{}", ran.show());
    assert_eq!(row_of(table, second), Some(b), "{}", ran.show());
    assert!(verdict(&ran).starts_with("**Passed**"), "{}", ran.show());

    // The `table` output names a file holding the table the summary shows.
    let saved = fs::read_to_string(ran.output("table")).expect("the table file");
    assert_eq!(saved.trim_end(), table.trim_end());
    let csv = fs::read_to_string(ran.output("csv")).expect("the CSV file");
    assert!(csv.starts_with("repo,"), "{csv}");
    assert_eq!(csv.lines().count(), 3, "{csv}");
}

#[test]
fn a_tree_that_says_nothing_fails_the_gate_unless_the_gate_is_off() {
    let dir = TempDir::new().unwrap();
    let (files, counts) = write_tree(
        &dir.path().join("quiet"),
        &[
            (
                "lib.rs",
                b"annotations: ToolAnnotations { read_only_hint: Some(true) }".to_vec(),
            ),
            ("notes.md", b"ReadOnly = true; readOnly_Hint".to_vec()),
        ],
    );
    assert_eq!(counts[..4], [0, 0, 0, 0], "the oracle sees no hint");

    let ran = run_action(dir.path(), &[("paths", "quiet")], &[]);
    assert_eq!(ran.code, Some(3), "{}", ran.show());
    assert_eq!(ran.output("status"), "3");
    assert!(
        verdict(&ran).starts_with("**Gate failed** (exit 3)"),
        "{}",
        ran.show()
    );
    let blocks = fenced_blocks(&ran.summary);
    assert_eq!(
        row_of(block_starting(&blocks, "tree ", &ran), "quiet"),
        Some((files, counts))
    );
    assert!(
        blocks.iter().any(|b| b.contains("'quiet' said nothing")),
        "the tool's message is in the summary\n{}",
        ran.show()
    );

    let ran = run_action(
        dir.path(),
        &[("paths", "quiet"), ("require-hints", "false")],
        &[],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.show());
    assert!(!ran.summary.contains("--require-hints"), "{}", ran.show());
    assert!(verdict(&ran).starts_with("**Passed**"), "{}", ran.show());
}

#[test]
fn each_tool_that_omits_a_hint_is_a_warning_at_its_line() {
    let dir = TempDir::new().unwrap();
    let specs = [
        ToolSpec {
            name: "complete",
            hints: ["true", "", "", "false"],
        },
        ToolSpec {
            name: "50%, off",
            hints: ["", "true", "", ""],
        },
        ToolSpec {
            name: "bare",
            hints: ["", "", "", ""],
        },
    ];
    let (source, lines) = ts_server(&specs);
    fs::create_dir_all(dir.path().join("srv/src")).unwrap();
    // A comma and a colon in the path must be encoded in the `file` property.
    fs::write(dir.path().join("srv/src/a,b:c.ts"), source).unwrap();

    let ran = run_action(
        dir.path(),
        &[("paths", "srv"), ("require-hints", "false")],
        &[],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.show());
    let warnings: Vec<&str> = ran
        .log
        .lines()
        .filter(|l| l.starts_with("::warning "))
        .collect();
    // The expected commands, encoded here as GitHub's runner reads them.
    let encode = |t: &str| {
        t.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let property = |t: &str| encode(t).replace(':', "%3A").replace(',', "%2C");
    let want: Vec<String> = specs
        .iter()
        .zip(&lines)
        .flat_map(|(s, line)| {
            spec_findings(s).into_iter().map(move |(id, message)| {
                let title = match id {
                    "MHC001" => "MHC001 DeclaresNoHint",
                    _ => "MHC004 OmitsMeaningfulHint",
                };
                format!(
                    "::warning file={},line={line},title={}::{}. Suggested: ",
                    property("srv/src/a,b:c.ts"),
                    property(title),
                    encode(&message)
                )
            })
        })
        .collect();
    assert_eq!(warnings.len(), want.len(), "{}", ran.show());
    for (got, want) in warnings.iter().zip(&want) {
        assert!(got.starts_with(want), "{got}\nwant {want}...");
    }
    assert!(!ran.outputs.contains_key("sarif"), "{}", ran.show());
    assert!(
        ran.output("tools-csv").ends_with("tools.csv"),
        "{}",
        ran.show()
    );

    // require-hints: tools fails the step on the same tools.
    let ran = run_action(
        dir.path(),
        &[("paths", "srv"), ("require-hints", "tools")],
        &[],
    );
    assert_eq!(ran.code, Some(3), "{}", ran.show());
    assert!(
        verdict(&ran).starts_with("**Gate failed** (exit 3): the lint found a tool definition"),
        "{}",
        ran.show()
    );
    assert!(
        ran.summary.contains("--require-hints=tools"),
        "{}",
        ran.show()
    );

    // sarif: true writes the same findings as SARIF instead of warnings, even when
    // the gate fails, and names the log in an output. A job's workspace is a git
    // work tree: each path is relative to its top.
    crate::common::git(dir.path(), &["init", "-q"]);
    let ran = run_action(
        dir.path(),
        &[
            ("paths", "srv"),
            ("require-hints", "tools"),
            ("sarif", "true"),
        ],
        &[],
    );
    assert_eq!(ran.code, Some(3), "{}", ran.show());
    assert!(!ran.log.contains("::warning "), "{}", ran.show());
    let log: Value =
        serde_json::from_str(&fs::read_to_string(ran.output("sarif")).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), want.len(), "{log}");
    for (result, line) in results.iter().zip([lines[1], lines[2]]) {
        let place = &result["locations"][0]["physicalLocation"];
        assert_eq!(place["artifactLocation"]["uri"], "srv/src/a%2Cb%3Ac.ts");
        assert_eq!(place["artifactLocation"]["uriBaseId"], "SRCROOT");
        assert_eq!(place["region"]["startLine"], line);
    }
    // It is for scan only.
    let ran = run_action(dir.path(), &[("mode", "probe"), ("sarif", "true")], &[]);
    assert_eq!(ran.code, Some(2), "{}", ran.show());
}

#[test]
fn the_csv_output_is_set_only_once_the_tool_wrote_the_file() {
    let dir = TempDir::new().unwrap();
    // The tool stops on its command line (exit 2) before it writes any CSV.
    let ran = run_action(dir.path(), &[("profile", "no-such-profile")], &[]);
    assert_eq!(ran.code, Some(2), "{}", ran.show());
    assert_eq!(ran.output("status"), "2");
    assert!(!ran.outputs.contains_key("csv"), "{}", ran.show());
    // A scan that ran sets it, to a file that is there.
    fs::create_dir(dir.path().join("t")).unwrap();
    fs::write(dir.path().join("t/a.ts"), "readOnlyHint").unwrap();
    let ran = run_action(dir.path(), &[("paths", "t")], &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.show());
    assert!(Path::new(ran.output("csv")).is_file(), "{}", ran.show());
}

#[test]
fn a_missing_path_fails_with_exit_1() {
    let dir = TempDir::new().unwrap();
    let ran = run_action(dir.path(), &[("paths", "no-such-tree")], &[]);
    assert_eq!(ran.code, Some(1), "{}", ran.show());
    assert_eq!(ran.output("status"), "1");
    assert!(
        verdict(&ran).starts_with("**Failed** (exit 1)"),
        "{}",
        ran.show()
    );
    let blocks = fenced_blocks(&ran.summary);
    assert!(
        blocks
            .iter()
            .any(|b| b.contains("'no-such-tree': no such file or directory")),
        "{}",
        ran.show()
    );
}

#[test]
fn a_profile_is_passed_only_when_given() {
    let dir = TempDir::new().unwrap();
    fs::create_dir(dir.path().join("t")).unwrap();
    // A C# server spells the hints as attribute arguments: no literal hint name.
    fs::write(
        dir.path().join("t/Tools.cs"),
        "[McpServerTool(Name = \"search\", ReadOnly = true, OpenWorld = false)]\n",
    )
    .unwrap();
    let ran = run_action(dir.path(), &[("paths", "t"), ("profile", "sdk")], &[]);
    let blocks = fenced_blocks(&ran.summary);
    let command = block_starting(&blocks, "$ mcp-hint-census scan", &ran);
    assert!(command.contains(" --profile sdk "), "{}", ran.show());
    // With the profile the gate sees the C# spellings and passes; without it, the
    // same tree says nothing.
    assert_eq!(ran.code, Some(0), "{}", ran.show());
    let without = run_action(dir.path(), &[("paths", "t")], &[]);
    assert_eq!(without.code, Some(3), "{}", without.show());
}

// ---------------------------------------------------------------------------
// diff

fn write_snapshot(path: &Path, tools: Value) {
    let snapshot = json!({
        "server": { "name": "s", "version": "1" },
        "protocolVersion": "2025-06-18",
        "date": "2026-09-07",
        "tools": tools,
    });
    fs::write(path, serde_json::to_string_pretty(&snapshot).unwrap()).unwrap();
}

#[test]
fn a_diff_where_a_hint_became_more_permissive_fails_naming_the_tool() {
    let dir = TempDir::new().unwrap();
    write_snapshot(
        &dir.path().join("released.json"),
        json!([
            { "name": "delete_file", "annotations": { "readOnlyHint": false, "destructiveHint": true } },
            { "name": "list```files", "annotations": { "readOnlyHint": true } },
        ]),
    );
    write_snapshot(
        &dir.path().join("new.json"),
        json!([
            // destructiveHint true -> false: toward less caution.
            { "name": "delete_file", "annotations": { "readOnlyHint": false, "destructiveHint": false } },
            { "name": "list```files", "annotations": { "readOnlyHint": true } },
        ]),
    );
    let inputs = [
        ("mode", "diff"),
        ("old", "released.json"),
        ("new", "new.json"),
    ];
    let ran = run_action(dir.path(), &inputs, &[]);
    assert_eq!(ran.code, Some(1), "{}", ran.show());
    assert_eq!(ran.output("status"), "1");
    assert!(
        verdict(&ran).starts_with("**Failed** (exit 1)"),
        "{}",
        ran.show()
    );
    let blocks = fenced_blocks(&ran.summary);
    let changes: Vec<&str> = blocks
        .iter()
        .flat_map(|b| b.lines())
        .filter(|l| l.contains("more-permissive") && l.starts_with("changed"))
        .collect();
    assert_eq!(changes.len(), 1, "{}", ran.show());
    assert!(
        changes[0].contains("'delete_file' destructiveHint"),
        "{}",
        ran.show()
    );

    // Unchanged snapshots pass.
    let same = [("mode", "diff"), ("old", "new.json"), ("new", "new.json")];
    let ran = run_action(dir.path(), &same, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.show());
    assert!(verdict(&ran).starts_with("**Passed**"), "{}", ran.show());
}

// ---------------------------------------------------------------------------
// probe, against the pinned reference memory server

/// Lists the memory server's tools with the official Python SDK's client.
fn sdk_listing(python: &Path, server: &[String], envs: &[(&str, &str)]) -> Vec<Value> {
    let out = Command::new(python)
        .arg(peers().join("sdk_list_tools.py"))
        .args(server)
        .envs(envs.iter().copied())
        .output()
        .expect("the SDK oracle runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listing: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    listing["tools"].as_array().expect("tools").clone()
}

/// Returns the memory server's command line and the SDK's listing of its tools, or
/// None when a peer is missing outside CI.
fn memory_peer(dir: &Path) -> Option<(Vec<String>, Vec<Value>, String)> {
    let entry = require("@modelcontextprotocol/server-memory (npm)", memory_server())?;
    let python = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp())?;
    let memory_file = dir.join("memory.jsonl").display().to_string();
    let server = vec!["node".to_string(), entry.display().to_string()];
    let tools = sdk_listing(&python, &server, &[("MEMORY_FILE_PATH", &memory_file)]);
    assert_eq!(tools.len(), 9, "the pinned memory server lists nine tools");
    Some((server, tools, memory_file))
}

#[test]
fn a_probe_of_the_memory_server_requiring_all_hints_passes() {
    let dir = TempDir::new().unwrap();
    let Some((server, tools, memory_file)) = memory_peer(dir.path()) else {
        return;
    };
    let command = server.join("\n");
    let inputs = [
        ("mode", "probe"),
        ("command", &command),
        ("require", "all"),
        ("save", "hints.json"),
    ];
    let ran = run_action(dir.path(), &inputs, &[("MEMORY_FILE_PATH", &memory_file)]);
    assert_eq!(ran.code, Some(0), "{}", ran.show());
    assert_eq!(ran.output("status"), "0");
    assert!(verdict(&ran).starts_with("**Passed**"), "{}", ran.show());
    let blocks = fenced_blocks(&ran.summary);
    let command = block_starting(&blocks, "$ mcp-hint-census probe", &ran);
    assert!(command.contains(" --require all "), "{command}");
    let table = block_starting(&blocks, "tool ", &ran);
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let row = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row for '{name}'\n{}", ran.show()));
        let declared: Vec<&str> = row.split_whitespace().skip(1).take(4).collect();
        let expected: Vec<String> = [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ]
        .iter()
        .map(|h| {
            tool["annotations"][h]
                .as_bool()
                .expect("declared")
                .to_string()
        })
        .collect();
        assert_eq!(declared, expected, "{name}");
    }
    // The snapshot output names the saved file, with every tool the SDK listed.
    assert_eq!(ran.output("snapshot"), "hints.json");
    let snapshot: Value =
        serde_json::from_slice(&fs::read(dir.path().join("hints.json")).unwrap()).unwrap();
    let mut saved: Vec<&str> = snapshot["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut listed: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    saved.sort();
    listed.sort();
    assert_eq!(saved, listed);
}

#[test]
fn a_probe_diffed_against_a_more_cautious_snapshot_fails_naming_the_tool() {
    let dir = TempDir::new().unwrap();
    let Some((server, tools, memory_file)) = memory_peer(dir.path()) else {
        return;
    };
    // The released snapshot: what the SDK lists, except that the first read-only
    // tool was not read-only yet. Probing now finds it more permissive.
    let mut released: Vec<Value> = tools
        .iter()
        .map(|t| json!({ "name": t["name"], "annotations": t["annotations"] }))
        .collect();
    let loosened = released
        .iter_mut()
        .find(|t| t["annotations"]["readOnlyHint"] == true)
        .expect("a read-only tool");
    loosened["annotations"]["readOnlyHint"] = json!(false);
    let name = loosened["name"].as_str().unwrap().to_string();
    write_snapshot(&dir.path().join("released.json"), Value::Array(released));

    let command = server.join("\n");
    let inputs = [
        ("mode", "diff"),
        ("old", "released.json"),
        ("command", &command),
    ];
    let ran = run_action(dir.path(), &inputs, &[("MEMORY_FILE_PATH", &memory_file)]);
    assert_eq!(ran.code, Some(1), "{}", ran.show());
    assert!(
        verdict(&ran).starts_with("**Failed** (exit 1)"),
        "{}",
        ran.show()
    );
    let blocks = fenced_blocks(&ran.summary);
    block_starting(&blocks, "$ mcp-hint-census probe", &ran);
    block_starting(&blocks, "$ mcp-hint-census diff", &ran);
    let permissive: Vec<&str> = blocks
        .iter()
        .flat_map(|b| b.lines())
        .filter(|l| l.starts_with("changed") && l.contains("more-permissive"))
        .collect();
    assert_eq!(permissive.len(), 1, "{}", ran.show());
    assert!(
        permissive[0].contains(&format!("'{name}' readOnlyHint")),
        "{}",
        ran.show()
    );
    let snapshot = ran.output("snapshot");
    assert!(Path::new(snapshot).is_file(), "{snapshot}");
}

// ---------------------------------------------------------------------------
// Inputs the script refuses, and inputs that must stay data

#[test]
fn inputs_that_make_no_command_line_exit_2() {
    let dir = TempDir::new().unwrap();
    let cases: [&[(&str, &str)]; 8] = [
        &[("mode", "census")],
        &[("require-hints", "yes")],
        &[("mode", "probe")],
        &[
            ("mode", "probe"),
            ("command", "node\nx.js"),
            ("url", "http://127.0.0.1:9/mcp"),
        ],
        &[("command", "node\nx.js")],
        &[("mode", "diff"), ("new", "b.json")],
        &[
            ("mode", "diff"),
            ("old", "a.json"),
            ("new", "b.json"),
            ("url", "http://127.0.0.1:9/"),
        ],
        &[("binary", "/no/such/mcp-hint-census")],
    ];
    for inputs in cases {
        let ran = run_action(dir.path(), inputs, &[]);
        assert_eq!(ran.code, Some(2), "{inputs:?}\n{}", ran.show());
        assert_eq!(ran.output("status"), "2");
        let headings = ran.summary.lines().filter(|l| l.starts_with("## ")).count();
        assert_eq!(headings, 1, "{}", ran.show());
        assert!(
            verdict(&ran).starts_with("**Usage error** (exit 2)"),
            "{}",
            ran.show()
        );
    }
}

#[test]
fn shell_syntax_in_inputs_is_never_run() {
    let dir = TempDir::new().unwrap();
    let marker = |n: u32| dir.path().join(format!("pwned{n}"));
    let paths = "$(touch pwned1)\n`touch pwned2`\n; touch pwned3\n' \"; touch pwned4 #";
    let ran = run_action(dir.path(), &[("paths", paths)], &[]);
    assert_eq!(ran.code, Some(1), "{}", ran.show());
    // Whether or not the tool knows the profile, it gets it as one argument.
    let ran1 = run_action(
        dir.path(),
        &[
            ("paths", "."),
            ("profile", "$(touch pwned5) `touch pwned6`"),
        ],
        &[],
    );
    assert!(
        ran1.summary.contains("--profile \\$\\(touch"),
        "{}",
        ran1.show()
    );
    let ran2 = run_action(
        dir.path(),
        &[
            ("mode", "probe"),
            ("command", "node\n$(touch pwned7);`touch pwned8`"),
            ("timeout", "5"),
        ],
        &[],
    );
    assert_eq!(ran2.code, Some(1), "{}", ran2.show());
    let ran3 = run_action(
        dir.path(),
        &[
            ("mode", "probe"),
            ("url", "http://127.0.0.1:9/$(touch pwned9)"),
            ("timeout", "5"),
        ],
        &[],
    );
    assert_eq!(ran3.code, Some(1), "{}", ran3.show());
    for n in 1..=9 {
        assert!(
            !marker(n).exists(),
            "input {n} ran as shell code\n{}",
            ran.show()
        );
    }
    // Each path line reached the tool as one argument, as written.
    let blocks = fenced_blocks(&ran.summary);
    for path in ["$(touch pwned1)", "; touch pwned3"] {
        assert!(
            blocks
                .iter()
                .any(|b| b.contains(&format!("'{path}': no such file"))),
            "{path}\n{}",
            ran.show()
        );
    }
}

#[test]
fn any_output_stays_inside_its_fence_and_the_summary_stays_bounded() {
    let dir = TempDir::new().unwrap();
    // A stand-in binary printing what would break a naive fence: bare fence lines,
    // long backtick runs, a carriage return before backticks, far too many lines,
    // and a last line without a newline.
    let fake = dir.path().join("fake-census");
    fs::write(
        &fake,
        "#!/bin/sh\nprintf '```\\n`````````` tail\\n```\\r````\\n'\ni=0\n\
         while [ $i -lt 5000 ]; do printf 'row %d ~~~ ```\\n' $i; i=$((i+1)); done\n\
         printf 'err ```' >&2\nexit 7\n",
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let ran = run_action(dir.path(), &[("binary", fake.to_str().unwrap())], &[]);
    assert_eq!(ran.code, Some(7), "{}", ran.show());
    assert_eq!(ran.output("status"), "7");
    assert!(
        verdict(&ran).contains("exited with status 7"),
        "{}",
        ran.show()
    );
    assert!(
        ran.summary.len() < 512 * 1024,
        "{} bytes",
        ran.summary.len()
    );
    let blocks = fenced_blocks(&ran.summary);
    assert_eq!(
        blocks.len(),
        3,
        "command, output, messages:\n{}",
        ran.show()
    );
    let output = &blocks[1];
    assert!(
        output.starts_with("```\n`````````` tail\n```````\nrow 0 "),
        "{output:.200}"
    );
    assert!(output.lines().count() <= 2000);
    assert!(
        ran.summary.contains("(cut at 2000 lines"),
        "the cut is said"
    );
    assert_eq!(blocks[2], "err ```");
}

// ---------------------------------------------------------------------------
// The cache key

/// Returns what action/key.sh writes for the checkout at `root`.
fn key_of(root: &Path) -> String {
    let action = action();
    let run = steps(&action.doc)
        .iter()
        .find(|s| s["id"] == "key")
        .and_then(|s| s["run"].as_str())
        .expect("a key step")
        .to_string();
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &run])
        .env("GITHUB_ACTION_PATH", root)
        .env_remove("GITHUB_OUTPUT")
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.trim_end()
        .strip_prefix("key=")
        .expect("key=HEX")
        .to_string()
}

fn files_under(root: &Path, rel: &str, out: &mut Vec<String>) {
    let path = root.join(rel);
    if path.is_dir() {
        for entry in fs::read_dir(&path).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            files_under(root, &format!("{rel}/{name}"), out);
        }
    } else {
        out.push(rel.to_string());
    }
}

fn copy_sources(from: &Path, to: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for top in ["Cargo.toml", "Cargo.lock", "corpus.toml", "src"] {
        files_under(from, top, &mut files);
    }
    for rel in &files {
        fs::create_dir_all(to.join(rel).parent().unwrap()).unwrap();
        fs::copy(from.join(rel), to.join(rel)).unwrap();
    }
    files
}

#[test]
fn the_cache_key_is_the_hash_of_the_files_the_binary_is_built_from() {
    let copy = TempDir::new().unwrap();
    let mut files = copy_sources(&repo(), copy.path());
    fs::create_dir(copy.path().join("action")).unwrap();
    fs::copy(
        repo().join("action/key.sh"),
        copy.path().join("action/key.sh"),
    )
    .unwrap();
    files.sort();
    let mut listing = String::new();
    for rel in &files {
        let digest = Sha256::digest(fs::read(copy.path().join(rel)).unwrap());
        listing.push_str(&format!("{digest:x}  {rel}\n"));
    }
    let expected = format!("{:x}", Sha256::digest(listing.as_bytes()));

    let key = key_of(&repo());
    let (platform, source) = key.split_once('-').expect("PLATFORM-SOURCE");
    assert!(
        platform.len() == 12 && platform.bytes().all(|b| b.is_ascii_hexdigit()),
        "{key}"
    );
    assert_eq!(source, expected);
    let expected = key.clone();
    assert_eq!(
        key_of(copy.path()),
        expected,
        "the key does not depend on where the checkout is"
    );
    let lib = copy.path().join("src/lib.rs");
    let mut text = fs::read(&lib).unwrap();
    text.extend_from_slice(b"\n// changed\n");
    fs::write(&lib, text).unwrap();
    assert_ne!(
        key_of(copy.path()),
        expected,
        "a changed source changes the key"
    );
}
