//! `registry-survey`: the whole survey of a saved listing in one command, offline: a
//! listing of one server at two versions, its npm package served on 127.0.0.1 (one
//! tarball slow, so that a run can be killed inside a step), its repository a git
//! repository reached through `insteadOf`, its tagged commit's archive in the cache.
//!
//! The oracles: the same commands run by hand one after another, whose tables the
//! one command must write byte for byte; and a run killed inside a step then resumed,
//! which must write the same tables as a run never stopped.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::*;
use crate::corpus_build::forges;

const DATE: &str = "2025-12-18";
const WIRE_DATE: &str = "2026-01-05";

/// The package's versions: version, day published, source.
const VERSIONS: [(&str, &str, &str); 2] = [
    (
        "1.0.0",
        "2025-09-10T10:00:00Z",
        "server.registerTool(\"list\", {description: \"lists\"}, h);\n",
    ),
    (
        "1.1.0",
        "2025-10-10T10:00:00Z",
        "server.registerTool(\"list\", {annotations: {readOnlyHint: true}}, h);\n",
    ),
];

fn tarball(version: &str, source: &str) -> Vec<u8> {
    let code = format!(
        "import {{ McpServer }} from \"@modelcontextprotocol/sdk/server/mcp.js\";\n{source}"
    );
    npm_tarball("@acme/tools", version, &code)
}

/// Serves `@acme/tools` under `/npm/`; version 1.0.0's tarball comes after a pause.
fn registry() -> Loopback {
    let tarballs = VERSIONS
        .iter()
        .map(|(v, _, source)| NpmTarball {
            package: "@acme/tools".to_string(),
            version: v.to_string(),
            bytes: tarball(v, source),
        })
        .collect();
    npm_registry(
        tarballs,
        Some(("@acme/tools", "1.0.0", Duration::from_secs(3))),
    )
}

fn listing() -> String {
    let records: Vec<serde_json::Value> = VERSIONS
        .iter()
        .map(|(version, published, _)| {
            json!({
                "server": {"name": "io.github.acme/tools", "description": "d", "version": version,
                           "repository": {"url": "https://github.com/acme/tools", "source": "github"},
                           "packages": [{"registryType": "npm", "identifier": "@acme/tools",
                                         "version": version}]},
                "_meta": {"io.modelcontextprotocol.registry/official": {
                    "status": "active", "isLatest": *version == "1.1.0", "publishedAt": published}}
            })
        })
        .collect();
    serde_json::to_string_pretty(&records).unwrap()
}

/// The tables a survey writes whose bytes depend on the tables alone, read from `dir`;
/// the report without its "How it was run", whose times are the run's.
fn tables(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for name in [
        "shipped/shipped.toml".to_string(),
        format!("shipped/census-{DATE}.csv"),
        format!("shipped/tools-{DATE}.csv"),
        "versions/versions.toml".to_string(),
        format!("versions/census-{DATE}.csv"),
        "repositories/repos.toml".to_string(),
        format!("repositories/census-{DATE}.csv"),
        format!("entries-{DATE}.csv"),
        format!("survey-{DATE}.md"),
    ] {
        let text = std::fs::read_to_string(dir.join(&name))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(&name).display()));
        let text = match text.find("## How it was run") {
            Some(at) => text[..at].trim_end().to_string(),
            None => text.trim_end().to_string(),
        };
        out.insert(name, text);
    }
    out
}

#[test]
fn the_whole_survey_is_one_command_and_resumes_after_a_kill() {
    let git = forges();
    let repo = git.repo("github.com", "acme/tools", "main", 0);
    std::fs::write(
        repo.join("server.ts"),
        "server.registerTool(\"list\", {annotations: {readOnlyHint: true}}, h);\n",
    )
    .unwrap();
    git.git(&repo, &["add", "-A"]);
    git.commit(&repo, "the server");
    git.git(&repo, &["tag", "v1.1.0"]);
    let commit = git.rev(&repo, "v1.1.0");
    let work = git.path().to_path_buf();
    std::fs::write(work.join("servers.json"), listing()).unwrap();
    // The tagged commit's archive, as the census caches a download, in each run's
    // own cache: a tarball cached by one run would not keep the next one waiting.
    let archive = git.git_bytes(
        &repo,
        &["archive", "--format=tar.gz", "--prefix=tools/", &commit],
    );
    for cache in ["cache-hand", "cache-whole", "cache-killed"] {
        cache_archive(&work.join(cache), "acme/tools", &commit, &archive);
    }
    let registry = registry();
    let npm = |run: Run| {
        run.env("NPM_CONFIG_REGISTRY", format!("{}/npm/", registry.url()))
            .env("NPM_CONFIG_USERCONFIG", work.join("none"))
            .env("NPM_CONFIG_GLOBALCONFIG", work.join("none"))
    };
    let survey = |out: &str, cache: &str, extra: &[&str]| {
        let mut args = vec![
            "registry-survey",
            "servers.json",
            "--out",
            out,
            "--date",
            DATE,
            "--halves",
            "shipped,versions,repositories",
            "--cache",
            cache,
            "--wire-date",
            WIRE_DATE,
            "--run-on",
            "a test machine",
        ];
        args.extend_from_slice(extra);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };

    // The commands by hand, as docs/surveys.md lists them.
    let by_hand: [&[&str]; 5] = [
        &[
            "corpus",
            "registry",
            "--pages",
            "servers.json",
            "--date",
            DATE,
            "--out",
            "hand/repositories/repos.toml",
            "--shipped",
            "hand/shipped/shipped.toml",
            "--packages",
            "hand/wire/packages.toml",
            "--remotes",
            "hand/wire/remotes.toml",
            "--cache",
            "cache-hand",
        ],
        &[
            "corpus",
            "registry",
            "--pages",
            "servers.json",
            "--date",
            DATE,
            "--all-versions",
            "--out",
            "hand/repositories/repos.toml",
            "--pinned",
            "--shipped",
            "hand/versions/versions.toml",
        ],
        &[
            "census",
            "--corpus",
            "hand/versions/versions.toml",
            "--date",
            DATE,
            "--out",
            "hand/versions",
            "--cache",
            "cache-hand",
        ],
        &[
            "census",
            "--corpus",
            "hand/shipped/shipped.toml",
            "--date",
            DATE,
            "--out",
            "hand/shipped",
            "--cache",
            "cache-hand",
        ],
        &[
            "census",
            "--corpus",
            "hand/repositories/repos.toml",
            "--date",
            DATE,
            "--out",
            "hand/repositories",
            "--cache",
            "cache-hand",
        ],
    ];
    for dir in [
        "hand/shipped",
        "hand/versions",
        "hand/repositories",
        "hand/wire",
    ] {
        std::fs::create_dir_all(work.join(dir)).unwrap();
    }
    for args in by_hand {
        let out = npm(git.bin(&work).args(args)).output();
        assert!(out.status.code().is_some_and(|c| c <= 1), "{}", show(&out));
    }
    let report: Vec<&str> = vec![
        "survey",
        "--pages",
        "servers.json",
        "--date",
        DATE,
        "--out",
        "hand",
        "--shipped",
        "hand/shipped/shipped.toml",
        "--shipped-table",
        "hand/shipped/census-2025-12-18.csv",
        "--repos",
        "hand/repositories/repos.toml",
        "--repos-table",
        "hand/repositories/census-2025-12-18.csv",
        "--versions",
        "hand/versions/versions.toml",
        "--versions-table",
        "hand/versions/census-2025-12-18.csv",
    ];
    assert_code(&npm(git.bin(&work).args(report)).output(), 0);

    // One command, never stopped.
    let whole = npm(git.bin(&work).args(survey("whole", "cache-whole", &[]))).output();
    assert_code(&whole, 0);
    let want = tables(&work.join("hand"));
    let got = tables(&work.join("whole"));
    for (name, text) in &want {
        // The corpora name the files they were written as, in their comments.
        let got = got[name].replace("whole/", "hand/");
        assert_eq!(&got, text, "{name} differs from the commands run by hand");
    }
    let entries = std::fs::read_to_string(work.join(format!("whole/entries-{DATE}.csv"))).unwrap();
    assert!(
        entries.contains("io.github.acme/tools,1.1.0,npm,"),
        "{entries}"
    );
    let md = &got[&format!("survey-{DATE}.md")];
    assert!(
        md.contains("| 2025-09 | 1 | 1 |") && md.contains("| 2025-10 | 1 | 1 |"),
        "{md}"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("whole/README.md")).unwrap(),
        std::fs::read_to_string(work.join(format!("whole/survey-{DATE}.md"))).unwrap()
    );
    let log = std::fs::read_to_string(work.join(format!("whole/run-{DATE}.csv"))).unwrap();
    for step in [
        "pin the listing",
        "pin what ships at every version",
        "count what ships at every version",
        "count what ships",
        "count the repositories",
    ] {
        assert!(
            log.contains(&format!("\"{step}\",")),
            "no '{step}' in the log:\n{log}"
        );
    }
    assert!(!work.join(format!("whole/.registry-survey-{DATE}")).exists());

    // One command reading the repository from a bare clone (`--mirrors`), its
    // archive packed from it rather than found in the cache: the same counts.
    std::fs::create_dir_all(work.join("mirrors/acme+tools")).unwrap();
    git.git(
        &work,
        &[
            "clone",
            "-q",
            "--bare",
            &repo.display().to_string(),
            "mirrors/acme+tools/repo.git",
        ],
    );
    let mirrored = npm(git.bin(&work).args(survey(
        "mirrored",
        "cache-mirrored",
        &["--mirrors", "mirrors"],
    )))
    .output();
    assert_code(&mirrored, 0);
    let stderr = String::from_utf8_lossy(&mirrored.stderr);
    assert!(
        stderr.contains("registry-survey: step 1, 0:00 in: pin the listing"),
        "{stderr}"
    );
    let table = |dir: &str| {
        let text =
            std::fs::read_to_string(work.join(format!("{dir}/repositories/census-{DATE}.csv")))
                .unwrap();
        // Every column but the archive's digest: git's gzip is not this tool's.
        let mut rows = csv::Reader::from_reader(text.as_bytes());
        let headers = rows.headers().unwrap().clone();
        rows.records()
            .map(|r| {
                let r = r.unwrap();
                headers
                    .iter()
                    .zip(r.iter())
                    .filter(|(h, _)| *h != "archive_sha256")
                    .map(|(h, v)| format!("{h}={v}"))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let (by_mirror, downloaded) = (table("mirrored"), table("whole"));
    assert_eq!(by_mirror, downloaded);
    assert!(
        by_mirror[0].contains(&"readOnlyHint=1".to_string())
            && by_mirror[0].contains(&"status=ok".to_string()),
        "{by_mirror:?}"
    );
    let md = std::fs::read_to_string(work.join(format!("mirrored/survey-{DATE}.md"))).unwrap();
    assert!(md.contains("local mirrors"), "{md}");
    assert!(!md.contains(&work.display().to_string()), "{md}");

    // Killed inside the count of every version (its slow tarball), then resumed.
    let mut killed = npm(git.bin(&work).args(survey("killed", "cache-killed", &[])));
    let mut child = killed
        .command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let log = work.join(format!("killed/run-{DATE}.csv"));
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("\"count what ships at every version\",")
    {
        assert!(Instant::now() < deadline, "the run never reached the count");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    // The step's own process died with it: nothing writes the tables any more.
    std::thread::sleep(Duration::from_millis(500));
    assert!(!work
        .join(format!("killed/versions/census-{DATE}.csv"))
        .exists());
    assert!(!work.join(format!("killed/survey-{DATE}.md")).exists());
    let resumed = npm(git
        .bin(&work)
        .args(survey("killed", "cache-killed", &["--resume"])))
    .output();
    assert_code(&resumed, 0);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(
        stderr.contains("'pin the listing' finished before, not run again"),
        "{stderr}"
    );
    assert!(!stderr.contains(" in: pin the listing\n"), "{stderr}");
    let again = tables(&work.join("killed"));
    let whole = tables(&work.join("whole"));
    for (name, text) in &whole {
        assert_eq!(
            &again[name].replace("killed/", "whole/"),
            text,
            "{name} differs after the resume"
        );
    }
    // The log keeps the killed step's lines and adds the resumed run's.
    let log = std::fs::read_to_string(&log).unwrap();
    let lines = log
        .lines()
        .filter(|l| l.starts_with("\"count what ships at every version\","))
        .count();
    assert!(lines >= 4, "{log}");
}
