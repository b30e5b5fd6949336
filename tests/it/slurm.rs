//! A census and a wire survey, each split across a real Slurm array and merged,
//! equal one run.
//!
//! `tests/slurm/run.sh` starts munged, slurmctld and slurmd (Debian's slurm-wlm)
//! as a one-node cluster, serves a generated corpus over HTTP on 127.0.0.1, submits
//! `recipes/slurm-run.sh` (an array of `census --shard env` jobs and a merge job)
//! and checks the outcome itself; this test runs it on the binary under test and
//! checks the tables it leaves once more against the script's Python oracle.
//!
//! Where Slurm or munge is not installed, or the test is not run as root: under
//! `CI=true` the test fails; with `CI` unset it says why and passes. `.ci/run`
//! installs slurm-wlm and munge, so in CI the cluster always runs.

use std::path::Path;
use std::process::Command;

const DATE: &str = "2026-11-30";
const TERMS: [&str; 5] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "annotations",
];

#[test]
fn census_and_wire_survey_on_a_slurm_array_merge_to_one_runs_tables() {
    let work = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slurm/run.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(work.path())
        .env("CENSUS_BIN", env!("CARGO_BIN_EXE_mcp-hint-census"))
        .env("SHARDS", "3")
        .env("TREES", "7")
        .output()
        .expect("bash runs tests/slurm/run.sh");
    let shown = format!(
        "tests/slurm/run.sh exited {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.code() == Some(3) {
        // The script's own code for "a tool is missing or this is not root".
        let why = String::from_utf8_lossy(&out.stderr);
        crate::common::skip(&format!(
            "the Slurm test needs slurm-wlm and munge installed and root: {}",
            why.trim()
        ));
        return;
    }
    assert!(out.status.success(), "{shown}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("slurm test: passed"), "{shown}");

    // Check again, here, what the script checked: the merged tables are one run's.
    let job = work.path().join("job");
    for name in [
        format!("census-{DATE}.csv"),
        format!("files-{DATE}.csv"),
        format!("census-{DATE}.md"),
    ] {
        let merged = std::fs::read(job.join("results").join(&name)).unwrap();
        let single = std::fs::read(job.join("single").join(&name)).unwrap();
        assert!(!merged.is_empty(), "{name} is empty");
        assert!(
            merged == single,
            "merged {name} differs from one run's\n{shown}"
        );
    }

    // And the counts are those Python counted while writing the archives.
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.path().join("expected.json")).unwrap()).unwrap();
    let expected = expected.as_array().unwrap();
    assert_eq!(expected.len(), 7);
    let mut table = csv::Reader::from_path(job.join(format!("results/census-{DATE}.csv"))).unwrap();
    let header = table.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = table.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), expected.len());
    let mut shard_rows = 0;
    for (row, tree) in rows.iter().zip(expected) {
        assert_eq!(&row[column("repo")], tree["repo"].as_str().unwrap());
        assert_eq!(&row[column("commit")], tree["commit"].as_str().unwrap());
        assert_eq!(&row[column("status")], "ok");
        assert_eq!(
            row[column("files_walked")].parse::<u64>().unwrap(),
            tree["files_walked"].as_u64().unwrap()
        );
        for term in TERMS {
            assert_eq!(
                row[column(term)].parse::<u64>().unwrap(),
                tree["counts"][term].as_u64().unwrap(),
                "{term} in {}",
                &row[column("repo")]
            );
        }
    }
    // Each of the three array tasks wrote its own shard, and together they hold
    // every tree once.
    for k in 1..=3 {
        let path = job.join(format!("results/shard-{k}/census-{DATE}.csv"));
        let mut shard = csv::Reader::from_path(&path).unwrap();
        shard_rows += shard.records().count();
    }
    assert_eq!(shard_rows, expected.len());

    // The wire survey of the same script: the merged tables are one run's, and
    // every server of the file is in them once.
    for name in [
        format!("wire-{DATE}.csv"),
        format!("wire-{DATE}-servers.csv"),
        format!("wire-{DATE}.md"),
    ] {
        let merged = std::fs::read(job.join("wire").join(&name)).unwrap();
        let single = std::fs::read(job.join("wire-single").join(&name)).unwrap();
        assert!(!merged.is_empty(), "{name} is empty");
        assert!(
            merged == single,
            "merged {name} differs from one run's\n{shown}"
        );
    }
    let mut servers =
        csv::Reader::from_path(job.join(format!("wire/wire-{DATE}-servers.csv"))).unwrap();
    let names: Vec<String> = servers
        .records()
        .map(|r| r.unwrap()[0].to_string())
        .collect();
    let want: Vec<String> = (0..7).map(|i| format!("server-{i}")).collect();
    assert_eq!(names, want);
}
