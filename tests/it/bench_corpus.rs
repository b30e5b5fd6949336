//! Checks that the benchmark still works on a tiny corpus: its generator makes
//! archives the tool reads, and the tool's counts (census and scan), the article's
//! Python method and the generator's own oracle agree tree by tree (docs/performance.md).
//!
//! Nothing here is timed: `benches/bench.py --check-only` runs each contender once
//! and exits non-zero on the first count that differs from the oracle.

use std::path::Path;
use std::process::Command;

#[test]
fn benchmark_corpus_counts_agree_across_contenders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = tempfile::tempdir().expect("a temporary folder");
    let output = Command::new("python3")
        .arg(root.join("benches/bench.py"))
        .args([
            "--size",
            "tiny",
            "--check-only",
            "--only",
            "census,census-literal,census-sdk,scan,python",
        ])
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_mcp-hint-census"))
        .arg("--data")
        .arg(data.path())
        .output()
        .expect("python3 runs (stdlib only)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "bench.py --check-only failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stdout.contains(
            "counts agree with the oracle: census, census-literal, census-sdk, python, scan"
        ),
        "expected every contender to agree, got:\n{stdout}\n{stderr}"
    );

    // The oracle must have something to agree on: each term planted somewhere.
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(data.path().join("manifest.json")).expect("the generator's manifest"),
    )
    .expect("the manifest is JSON");
    let trees: Vec<&serde_json::Value> = manifest["workloads"]
        .as_array()
        .expect("workloads")
        .iter()
        .flat_map(|w| w["trees"].as_array().expect("trees"))
        .collect();
    assert_eq!(trees.len(), 4, "tiny: one tree, then a corpus of three");
    for term in [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
        "annotations",
    ] {
        let total: u64 = trees
            .iter()
            .map(|t| t["counts"][term].as_u64().expect("a count"))
            .sum();
        assert!(total > 0, "the tiny corpus plants no '{term}'");
    }
}
