//! Checks that the survey-scale benchmark still works on a tiny size: its generator
//! makes archives the tool reads, its HTTP server serves them, and every count of
//! the cold, warm, memory-curve and monorepo censuses equals the generator's oracle
//! (docs/performance.md, "At survey scale").
//!
//! Nothing here is timed: `benches/scale.py` exits non-zero when one of its own
//! checks fails, and its JSON lists each check; this test asserts both, and that
//! the checks that matter were made at all.

use std::path::Path;
use std::process::Command;

#[test]
fn survey_scale_benchmark_counts_agree_with_its_oracle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = tempfile::tempdir().expect("a temporary folder");
    let json = data.path().join("scale.json");
    let output = Command::new("python3")
        .arg(root.join("benches/scale.py"))
        .args([
            "--trees",
            "50",
            "--sizes",
            "10,50",
            "--load-trees",
            "500",
            "--subfolders",
            "3",
            "--mono-mib",
            "0.5",
            "--repeats",
            "1",
            "--jobs",
            "2",
        ])
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_mcp-hint-census"))
        .arg("--data")
        .arg(data.path().join("data"))
        .arg("--json")
        .arg(&json)
        .output()
        .expect("python3 runs (stdlib only)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "scale.py failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let figures: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("the figures' JSON"))
            .expect("the figures are JSON");
    assert_eq!(figures["ok"], true, "{stderr}");
    let checks: Vec<(&str, bool)> = figures["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            (
                c["check"].as_str().expect("a check's name"),
                c["ok"].as_bool().expect("a check's result"),
            )
        })
        .collect();
    for (name, ok) in &checks {
        assert!(ok, "check failed: {name}\n{stderr}");
    }
    // The checks that carry the oracle must have run, not been skipped.
    for wanted in [
        "small: every row ok and equal to the oracle",
        "small: per-file rows equal the oracle's matching files",
        "small: cold and warm tables byte-identical",
        "small: warm census reads only the cache",
        "memory: 50 rows equal the oracle",
        "load: big corpus read, one tree counted and failed offline",
        "monorepo: the whole tree equals the oracle",
        "monorepo: each subfolder row equals its folder's oracle",
        "monorepo: the subfolder rows sum to the whole tree",
        "monorepo: 3 subfolders are downloaded once",
    ] {
        assert!(
            checks.iter().any(|(name, _)| *name == wanted),
            "the check '{wanted}' was not made\n{stderr}"
        );
    }
    assert_eq!(figures["small"]["trees"], 50);
    assert_eq!(figures["small"]["cold"]["gets"], 50);
    assert_eq!(figures["small"]["warm"]["gets"], 0);
    assert_eq!(figures["load"]["trees"], 500);
    assert_eq!(figures["monorepo"]["split"]["gets"], 1);
}
