//! Checks that the wide-area benchmark still works on a tiny size: its server's
//! latency, 429 answers and connection resets are met and survived, and every run's
//! rows equal the generator's oracle, the killed-and-resumed run's tables included
//! (docs/performance.md, "Over a wide-area network").
//!
//! Nothing here is timed: `benches/wan.py` exits non-zero when one of its own checks
//! fails, and its JSON lists each check; this test asserts both, that the checks
//! that matter were made, and that the faults it simulates happened.

use std::path::Path;
use std::process::Command;

#[test]
fn wan_benchmark_counts_agree_and_a_killed_run_resumes_to_the_same_tables() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = tempfile::tempdir().expect("a temporary folder");
    let json = data.path().join("wan.json");
    let output = Command::new("python3")
        .arg(root.join("benches/wan.py"))
        .args(["--trees", "40", "--jobs", "2", "--latency-ms", "20"])
        // Rates high enough that 40 trees meet both faults.
        .args(["--rate-limited", "5", "--resets", "10"])
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_mcp-hint-census"))
        .arg("--data")
        .arg(data.path().join("data"))
        .arg("--json")
        .arg(&json)
        .output()
        .expect("python3 runs (stdlib only)");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "wan.py failed\nstdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    let figures: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("the figures' JSON"))
            .expect("the figures are JSON");
    assert_eq!(figures["ok"], true, "{stderr}");
    let names: Vec<&str> = figures["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| c["check"].as_str().expect("a check's name"))
        .collect();
    for wanted in [
        "capped: every row equals the oracle",
        "default: every row equals the oracle",
        "resumed: the first run was killed before it finished",
        "resumed: the rerun downloads only the trees the journal lacks",
        "default tables byte-identical to capped",
        "resumed tables byte-identical to capped",
    ] {
        assert!(
            names.contains(&wanted),
            "'{wanted}' was not checked: {names:?}"
        );
    }
    for run in ["capped", "default"] {
        let faults = &figures[run]["faults"];
        assert!(
            faults["429"].as_u64() > Some(0) && faults["reset"].as_u64() > Some(0),
            "{run} met no fault: {faults}"
        );
        // Every tree once, plus one more try for each fault.
        let gets = figures[run]["gets"].as_u64().expect("gets");
        let extra = faults["429"].as_u64().unwrap() + faults["reset"].as_u64().unwrap();
        assert_eq!(gets, 40 + extra, "{run}: {}", figures[run]);
    }
}
