//! A wire survey split into shards (`probe --servers --shard K/N`) and joined again
//! (`merge --servers`) writes the bytes one run writes, over servers of
//! `tests/peers/fault_server.py` that list, page, crash and are not configured; a
//! shard missing, repeated, of another servers file or of another date is refused
//! and nothing is written. Which servers a shard holds is worked out here from the
//! file's order, not by the crate.

use std::path::Path;

use crate::common::{read_csv, run_env, show, stderr, stdout};
use crate::support::*;
use serde_json::json;

const DATE: &str = "2026-09-07";
const SHARDS: usize = 3;

/// The servers of the file, in its order: name, FAULT_TOOLS, FAULT_MODES, and
/// whether an environment variable no test sets is asked for.
fn servers() -> Vec<(&'static str, serde_json::Value, &'static str, bool)> {
    let tool = |name: &str, annotations: serde_json::Value| json!({ "name": name, "inputSchema": { "type": "object" }, "annotations": annotations });
    vec![
        (
            "alpha",
            json!([tool("a", json!({ "readOnlyHint": true }))]),
            "",
            false,
        ),
        ("crashing", json!([]), "crash", false),
        (
            "paged|piped",
            json!([
                tool("p1", json!(null)),
                tool("p2", json!({ "destructiveHint": false })),
                tool(
                    "p3",
                    json!({ "readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false })
                ),
            ]),
            "",
            false,
        ),
        ("unset", json!([]), "", true),
        ("empty", json!([]), "", false),
        (
            "beta",
            json!([tool("b", json!({ "openWorldHint": false }))]),
            "",
            false,
        ),
        (
            "gamma",
            json!([tool("g1", json!({})), tool("g2", json!({}))]),
            "",
            false,
        ),
    ]
}

fn toml_str(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// Writes the servers file into `dir` and returns the python and script it runs.
fn write_servers(dir: &Path) -> Option<()> {
    let python = require("python3", python3())?;
    let script = peers().join("fault_server.py");
    let mut text = String::new();
    for (name, tools, modes, unset) in servers() {
        text += &format!(
            "[[server]]\nname = {}\ncommand = {}\nargs = [{}]\nenv = {{ FAULT_TOOLS = {}, FAULT_MODES = \"{modes}\", FAULT_PAGE_SIZE = \"2\"{} }}\n\n",
            toml_str(name),
            toml_str(&python.display().to_string()),
            toml_str(&script.display().to_string()),
            toml_str(&tools.to_string()),
            if unset { ", KEY = { env = \"MCP_HINT_CENSUS_TEST_NOT_SET\" }" } else { "" },
        );
    }
    std::fs::write(dir.join("servers.toml"), text).unwrap();
    Some(())
}

fn probe(dir: &Path, extra: &[&str], envs: &[(&str, &str)]) -> std::process::Output {
    let date = match extra.contains(&"--date") {
        true => vec![],
        false => vec!["--date", DATE],
    };
    let mut args = vec!["probe", "--servers", "servers.toml"];
    args.extend(date);
    args.extend(["--timeout", "20", "-j", "2"]);
    args.extend(extra);
    run_env(dir, &args, envs)
}

fn merge(dir: &Path, out: &str, tables: &[String]) -> std::process::Output {
    let mut args = vec!["merge", "--servers", "servers.toml", "--out", out];
    args.extend(tables.iter().map(String::as_str));
    run_env(dir, &args, &[])
}

fn names(path: &Path) -> Vec<String> {
    read_csv(path)
        .into_iter()
        .skip(1)
        .map(|r| r[0].clone())
        .collect()
}

const TABLES: [&str; 3] = ["wire-{D}.csv", "wire-{D}-servers.csv", "wire-{D}.md"];

fn table(dir: &Path, name: &str) -> Vec<u8> {
    let path = dir.join(name.replace("{D}", DATE));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs the whole file once into `single` and each shard into `shard-K`.
fn survey(dir: &Path) -> Option<()> {
    write_servers(dir)?;
    let one = probe(dir, &["--out", "single"], &[]);
    assert_eq!(one.status.code(), Some(1), "{}", show(&one));
    for k in 1..=SHARDS {
        let shard = format!("{k}/{SHARDS}");
        let out = format!("shard-{k}");
        let run = probe(dir, &["--shard", &shard, "--out", &out], &[]);
        assert!(matches!(run.status.code(), Some(0 | 1)), "{}", show(&run));
        // Shard K holds the servers at positions K, K+N, ... of the file.
        let want: Vec<String> = servers()
            .iter()
            .skip(k - 1)
            .step_by(SHARDS)
            .map(|s| s.0.to_string())
            .collect();
        let got = names(&dir.join(format!("{out}/wire-{DATE}-servers.csv")));
        assert_eq!(got, want, "shard {shard}");
    }
    Some(())
}

fn shard_tables(ks: &[usize]) -> Vec<String> {
    ks.iter()
        .map(|k| format!("shard-{k}/wire-{DATE}.csv"))
        .collect()
}

#[test]
fn shards_merged_are_byte_for_byte_one_run() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    if survey(dir).is_none() {
        return;
    }
    let merged = merge(dir, "merged", &shard_tables(&[3, 1, 2]));
    // The crash and the unconfigured server carry through: exit 1, named.
    assert_eq!(merged.status.code(), Some(1), "{}", show(&merged));
    let said = stdout(&merged);
    assert!(said.contains("server 'crashing': exited"), "{said}");
    assert!(
        said.contains("server 'unset': needs configuration"),
        "{said}"
    );
    for name in TABLES {
        assert!(
            table(&dir.join("merged"), name) == table(&dir.join("single"), name),
            "merged {name} differs from one run's\n{}",
            String::from_utf8_lossy(&table(&dir.join("merged"), name))
        );
    }
    assert!(!dir.join(format!("merged/wire-{DATE}-shard.json")).exists());
    let rows = read_csv(&dir.join(format!("merged/wire-{DATE}-servers.csv")));
    let outcome = rows[0].iter().position(|c| c == "outcome").unwrap();
    let outcomes: Vec<(&str, &str)> = rows[1..]
        .iter()
        .map(|r| (r[0].as_str(), r[outcome].as_str()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("alpha", "listed"),
            ("crashing", "exited"),
            ("paged|piped", "listed"),
            ("unset", "needs configuration"),
            ("empty", "listed"),
            ("beta", "listed"),
            ("gamma", "listed")
        ]
    );

    // `--shard env` reads a Slurm array's variables: task 2 of 1-3 is shard 2/3.
    let env = probe(
        dir,
        &["--shard", "env", "--out", "env"],
        &[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ],
    );
    assert!(matches!(env.status.code(), Some(0 | 1)), "{}", show(&env));
    for name in TABLES.iter().copied().chain(["wire-{D}-shard.json"]) {
        assert!(
            table(&dir.join("env"), name) == table(&dir.join("shard-2"), name),
            "{name}"
        );
    }
    let no_env = probe(dir, &["--shard", "env", "--out", "none"], &[]);
    assert_eq!(no_env.status.code(), Some(2), "{}", show(&no_env));
    assert!(
        stderr(&no_env).contains("SLURM_ARRAY_TASK_ID"),
        "{}",
        show(&no_env)
    );
}

#[test]
fn a_shard_missing_repeated_or_foreign_is_refused_and_nothing_written() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    if survey(dir).is_none() {
        return;
    }
    let refused = |tables: &[String], says: &str| {
        let out = merge(dir, "bad", tables);
        assert_eq!(out.status.code(), Some(2), "{says}\n{}", show(&out));
        assert!(stderr(&out).contains(says), "{says}\n{}", show(&out));
        assert!(!dir.join("bad").exists(), "{says}: something was written");
    };
    refused(
        &shard_tables(&[1, 2]),
        "shard 3/3 not given; 2 of 7 servers of 'servers.toml' are in no shard: 'paged|piped' (shard 3/3), 'beta' (shard 3/3)",
    );
    refused(&shard_tables(&[1, 2, 3, 1]), "shard 1/3 is given twice");
    // A copy of a shard is the same shard twice.
    copy_dir(&dir.join("shard-2"), &dir.join("copy"));
    let mut tables = shard_tables(&[1, 2, 3]);
    tables.push(format!("copy/wire-{DATE}.csv"));
    refused(&tables, "shard 2/3 is given twice");
    // A shard of another date.
    let other = probe(
        dir,
        &["--shard", "3/3", "--out", "late", "--date", "2026-09-08"],
        &[],
    );
    assert!(
        matches!(other.status.code(), Some(0 | 1)),
        "{}",
        show(&other)
    );
    let mut tables = shard_tables(&[1, 2]);
    tables.push("late/wire-2026-09-08.csv".to_string());
    refused(&tables, "is dated 2026-09-08, other shards 2026-09-07");
    // A table without its shard note was not written by a shard run.
    refused(
        &[
            shard_tables(&[1, 2]),
            vec![format!("single/wire-{DATE}.csv")],
        ]
        .concat(),
        "were not written whole by `probe --servers --shard K/N`",
    );
    // A shard cut short: a row of its wire table gone.
    copy_dir(&dir.join("shard-3"), &dir.join("cut"));
    let wire = dir.join(format!("cut/wire-{DATE}.csv"));
    let text = std::fs::read_to_string(&wire).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("beta,")).collect();
    std::fs::write(&wire, kept.join("\n") + "\n").unwrap();
    let mut tables = shard_tables(&[1, 2]);
    tables.push(format!("cut/wire-{DATE}.csv"));
    refused(
        &tables,
        "holds 0 rows of server 'beta', whose servers row says 1",
    );
    // Another servers file: the same names, one more line.
    let file = dir.join("servers.toml");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("# edited\n");
    std::fs::write(&file, text).unwrap();
    refused(
        &shard_tables(&[1, 2, 3]),
        "is a shard of another servers file",
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}
