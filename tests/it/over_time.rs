//! The survey's "Over time": every version a listing holds, its package counted
//! from an npm registry on 127.0.0.1, tabled by the month each version was
//! published.
//!
//! The oracles: the tool definitions each version was written with here (which
//! hints they declare), the naive counter over each tarball's bytes for the names
//! spelled, and the month of each `publishedAt` read here; from those the test
//! computes every cell of the section's table and the chart's points.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use crate::common::*;

/// One package version of the fixture: its npm name, version, the day its listing
/// record was published, its source, and whether the registry serves it.
struct Release {
    server: &'static str,
    package: &'static str,
    version: &'static str,
    published: &'static str,
    source: &'static str,
    is_served: bool,
}

const HINTED: &str = "server.registerTool(\"get_a\", {annotations: {readOnlyHint: true}}, h);\n\
                      server.registerTool(\"put_a\", {description: \"writes\"}, h);\n";
const SILENT: &str = "server.registerTool(\"get_b\", {description: \"reads\"}, h);\n";
const DESTRUCTIVE: &str =
    "server.registerTool(\"rm_b\", {annotations: {destructiveHint: true, openWorldHint: false}}, h);\n";

const RELEASES: [Release; 6] = [
    Release {
        server: "io.github.acme/a",
        package: "@acme/a",
        version: "1.0.0",
        published: "2025-09-03T10:00:00Z",
        source: SILENT,
        is_served: true,
    },
    Release {
        server: "io.github.acme/b",
        package: "@acme/b",
        version: "2.0.0",
        published: "2025-09-30T23:59:59.5Z",
        source: DESTRUCTIVE,
        is_served: true,
    },
    Release {
        server: "io.github.acme/a",
        package: "@acme/a",
        version: "1.1.0",
        published: "2025-10-01T00:00:00Z",
        source: HINTED,
        is_served: true,
    },
    // Not served here: in its month's versions, never counted.
    Release {
        server: "io.github.acme/c",
        package: "@acme/c",
        version: "0.1.0",
        published: "2025-10-15T08:00:00Z",
        source: HINTED,
        is_served: false,
    },
    Release {
        server: "io.github.acme/b",
        package: "@acme/b",
        version: "2.1.0",
        published: "2025-12-02T12:00:00Z",
        source: SILENT,
        is_served: true,
    },
    Release {
        server: "io.github.acme/a",
        package: "@acme/a",
        version: "1.2.0",
        published: "2025-12-20T12:00:00Z",
        source: SILENT,
        is_served: true,
    },
];

/// Returns each release's tarball, as npm packs one.
fn tarball(r: &Release) -> Vec<u8> {
    let code = format!("import {{ McpServer }} from \"@modelcontextprotocol/sdk/server/mcp.js\";\nconst server = new McpServer({{name: \"x\", version: \"1\"}});\n{}", r.source);
    npm_tarball(r.package, r.version, &code)
}

/// Serves the packuments and tarballs of the served releases under `/npm/`.
fn registry() -> Loopback {
    let tarballs = RELEASES
        .iter()
        .filter(|r| r.is_served)
        .map(|r| NpmTarball {
            package: r.package.to_string(),
            version: r.version.to_string(),
            bytes: tarball(r),
        })
        .collect();
    npm_registry(tarballs, None)
}

/// Returns the listing: every release, each a record with its `publishedAt`.
fn listing() -> String {
    let records: Vec<serde_json::Value> = RELEASES
        .iter()
        .map(|r| {
            let is_latest = !RELEASES
                .iter()
                .any(|o| o.server == r.server && o.published > r.published);
            json!({
                "server": {"name": r.server, "description": "d", "version": r.version,
                           "repository": {"url": format!("https://github.com/{}", &r.package[1..]),
                                          "source": "github"},
                           "packages": [{"registryType": "npm", "identifier": r.package,
                                         "version": r.version}]},
                "_meta": {"io.modelcontextprotocol.registry/official": {
                    "status": "active", "isLatest": is_latest, "publishedAt": r.published}}
            })
        })
        .collect();
    serde_json::to_string_pretty(&records).unwrap()
}

/// The figures of one month, computed here.
#[derive(Debug, Default)]
struct Expected {
    published: u64,
    counted: u64,
    spelling: u64,
    each: [u64; 4],
    tools: u64,
    annotated: u64,
    servers: u64,
    servers_spelling: u64,
}

fn share(n: u64, of: u64) -> String {
    if of == 0 {
        "0".to_string()
    } else {
        format!("{n} ({:.1}%)", n as f64 * 100.0 / of as f64)
    }
}

/// Returns which hint names a release's tarball spells, by the naive counter over
/// its bytes, and its tools and those declaring a hint, from the definitions
/// written above.
fn truth(r: &Release) -> ([bool; 4], u64, u64) {
    let bytes = tarball(r);
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text).unwrap();
    let spelled = std::array::from_fn(|h| naive(&text, HINTS[h]) > 0);
    let tools = r.source.lines().count() as u64;
    let annotated = r
        .source
        .lines()
        .filter(|l| l.contains("annotations"))
        .count() as u64;
    (spelled, tools, annotated)
}

fn expected() -> BTreeMap<String, Expected> {
    let mut months: BTreeMap<String, Expected> = BTreeMap::new();
    for r in &RELEASES {
        let m = months.entry(r.published[..7].to_string()).or_default();
        m.published += 1;
        if r.is_served {
            let (spelled, tools, annotated) = truth(r);
            m.counted += 1;
            m.spelling += u64::from(spelled.iter().any(|&s| s));
            for (n, &is) in m.each.iter_mut().zip(&spelled) {
                *n += u64::from(is);
            }
            m.tools += tools;
            m.annotated += annotated;
        }
    }
    let ends = [
        ("2025-09", "2025-09-30"),
        ("2025-10", "2025-10-31"),
        ("2025-12", "2025-12-31"),
    ];
    for (month, end) in ends {
        let m = months.get_mut(month).unwrap();
        let mut newest: BTreeMap<&str, &Release> = BTreeMap::new();
        for r in RELEASES
            .iter()
            .filter(|r| r.is_served && &r.published[..10] <= end)
        {
            let slot = newest.entry(r.server).or_insert(r);
            if r.published >= slot.published {
                *slot = r;
            }
        }
        m.servers = newest.len() as u64;
        m.servers_spelling = newest
            .values()
            .filter(|r| truth(r).0.contains(&true))
            .count() as u64;
    }
    months
}

/// Returns the rows of the Markdown table under `heading`, each split into cells.
fn table_under(md: &str, heading: &str) -> Vec<Vec<String>> {
    let at = md
        .find(heading)
        .unwrap_or_else(|| panic!("no '{heading}' in:\n{md}"));
    md[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter(|l| !l.starts_with("|-") && !l.starts_with("| -") && !l.contains("---"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

fn run(dir: &Path, args: &[&str], registry: &Loopback) -> std::process::Output {
    Run::new(dir)
        .args(args)
        .env("NPM_CONFIG_REGISTRY", format!("{}/npm/", registry.url()))
        .env("NPM_CONFIG_USERCONFIG", dir.join("none"))
        .env("NPM_CONFIG_GLOBALCONFIG", dir.join("none"))
        .output()
}

#[test]
fn every_version_of_what_ships_is_tabled_by_its_month_of_publication() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let registry = registry();
    std::fs::write(dir.join("servers.json"), listing()).unwrap();
    let list: String = RELEASES
        .iter()
        .map(|r| format!("npm:{}@{}\n", r.package, r.version))
        .collect();
    std::fs::write(dir.join("versions.txt"), list).unwrap();
    let out = run(
        dir,
        &[
            "corpus",
            "packages",
            "versions.txt",
            "--out",
            "versions.toml",
            "--date",
            "2025-12-31",
        ],
        &registry,
    );
    assert_code(&out, 0);
    let out = run(
        dir,
        &[
            "census",
            "--corpus",
            "versions.toml",
            "--out",
            "out",
            "--cache",
            "cache",
            "--date",
            "2025-12-31",
            "--quiet",
        ],
        &registry,
    );
    assert_code(&out, 0);
    let table = "out/census-2025-12-31.csv";
    let out = run(
        dir,
        &[
            "survey",
            "--pages",
            "servers.json",
            "--shipped",
            "versions.toml",
            "--shipped-table",
            table,
            "--versions",
            "versions.toml",
            "--versions-table",
            table,
            "--out",
            "survey",
            "--date",
            "2025-12-31",
        ],
        &registry,
    );
    assert_code(&out, 0);
    let md = std::fs::read_to_string(dir.join("survey/survey-2025-12-31.md")).unwrap();
    let rows = table_under(&md, "## Over time");
    let want = expected();
    assert_eq!(rows.len(), 1 + want.len(), "{md}");
    for (row, (month, m)) in rows[1..].iter().zip(&want) {
        let mut cells = vec![
            month.clone(),
            m.published.to_string(),
            m.counted.to_string(),
            share(m.spelling, m.counted),
            m.tools.to_string(),
            share(m.annotated, m.tools),
        ];
        cells.extend(m.each.iter().map(|&n| share(n, m.counted)));
        cells.extend([m.servers.to_string(), share(m.servers_spelling, m.servers)]);
        assert_eq!(row, &cells, "{month}:\n{md}");
    }
    // October: acme/c's version is in its month, not counted; a's newest by then
    // spells readOnlyHint, b's (September's) destructiveHint.
    assert_eq!(rows[2][1..3], ["2".to_string(), "1".to_string()], "{md}");

    // The chart's points are the table's: each month's end, each share's label.
    let svg_name = "survey-2025-12-31-over-time.svg";
    assert!(md.contains(&format!("![Over time]({svg_name})")), "{md}");
    let svg = std::fs::read_to_string(dir.join("survey").join(svg_name)).unwrap();
    for m in want.values() {
        for (n, of) in [
            (m.spelling, m.counted),
            (m.servers_spelling, m.servers),
            (m.annotated, m.tools),
        ] {
            if of > 0 {
                let label = format!("{:.0}%", n as f64 * 100.0 / of as f64);
                assert!(
                    svg.contains(&format!("\n{label}\n")),
                    "no point labelled {label}"
                );
            }
        }
    }
    // Without the versions, no section and no chart.
    let out = run(
        dir,
        &[
            "survey",
            "--pages",
            "servers.json",
            "--shipped",
            "versions.toml",
            "--shipped-table",
            table,
            "--out",
            "plain",
            "--date",
            "2025-12-31",
        ],
        &registry,
    );
    assert_code(&out, 0);
    let md = std::fs::read_to_string(dir.join("plain/survey-2025-12-31.md")).unwrap();
    assert!(!md.contains("## Over time"), "{md}");
    assert!(!dir.join("plain").join(svg_name).exists());
}

/// The repository `acme/a`'s history: (commit time, its one source file).
const HISTORY: [(&str, &str); 3] = [
    ("2025-09-15T10:00:00Z", SILENT),
    ("2025-10-20T10:00:00Z", HINTED),
    ("2025-11-30T23:59:59Z", DESTRUCTIVE),
];

#[test]
fn the_repositories_are_tabled_at_each_date_with_not_yet_apart() {
    let git = crate::corpus_build::forges();
    let repo = git.repo("github.com", "acme/a", "main", 0);
    git.git(&repo, &["config", "uploadpack.allowFilter", "true"]);
    // The last commit adds `srv/`, the folder acme/c's entry names in acme/a.
    std::fs::create_dir_all(repo.join("srv")).unwrap();
    let commits: Vec<String> = HISTORY
        .iter()
        .enumerate()
        .map(|(i, (when, source))| {
            let mut files = vec![("server.js", *source)];
            if i + 1 == HISTORY.len() {
                files.push(("srv/server.js", HINTED));
            }
            git.commit_at(&repo, when, &files)
        })
        .collect();
    // acme/b never existed on the forge: its pin fails, named in the skipped list.
    let dir = git.path().to_path_buf();
    let registry = registry();
    let mut records: serde_json::Value = serde_json::from_str(&listing()).unwrap();
    for record in records.as_array_mut().unwrap() {
        if record["server"]["name"] == "io.github.acme/c" {
            record["server"]["repository"] =
                json!({"url": "https://github.com/acme/a", "source": "github", "subfolder": "srv"});
        }
    }
    std::fs::write(dir.join("servers.json"), records.to_string()).unwrap();
    let npm = |args: &[&str]| {
        git.bin(&dir)
            .args(args)
            .env("NPM_CONFIG_REGISTRY", format!("{}/npm/", registry.url()))
            .env("NPM_CONFIG_USERCONFIG", dir.join("none"))
            .env("NPM_CONFIG_GLOBALCONFIG", dir.join("none"))
            .output()
    };
    let out = npm(&[
        "corpus",
        "registry",
        "--pages",
        "servers.json",
        "--date",
        "2025-12-31",
        "--since",
        "2025-09-01",
        "--every",
        "1month",
        "--until",
        "2025-12-31",
        "--out",
        "history.toml",
        "--cache",
        "clones",
    ]);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", show(&out));
    // Each commit pinned, packed into the census cache as a download would be.
    for commit in &commits {
        let archive = git.git_bytes(
            &repo,
            &["archive", "--format=tar.gz", "--prefix=a/", commit],
        );
        cache_archive(&dir.join("hcache"), "acme/a", commit, &archive);
    }
    let out = npm(&[
        "census",
        "--corpus",
        "history.toml",
        "--out",
        "hist",
        "--cache",
        "hcache",
        "--offline",
        "--date",
        "2025-12-31",
        "--quiet",
    ]);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", show(&out));
    std::fs::write(dir.join("none.txt"), "npm:@acme/a@1.0.0\n").unwrap();
    assert_code(
        &npm(&[
            "corpus",
            "packages",
            "none.txt",
            "--out",
            "p.toml",
            "--date",
            "2025-12-31",
        ]),
        0,
    );
    assert_code(
        &npm(&[
            "census",
            "--corpus",
            "p.toml",
            "--out",
            "p",
            "--cache",
            "pcache",
            "--date",
            "2025-12-31",
            "--quiet",
        ]),
        0,
    );
    let out = npm(&[
        "survey",
        "--pages",
        "servers.json",
        "--shipped",
        "p.toml",
        "--shipped-table",
        "p/census-2025-12-31.csv",
        "--history",
        "history.toml",
        "--history-table",
        "hist/census-2025-12-31.csv",
        "--out",
        "survey",
        "--date",
        "2025-12-31",
    ]);
    assert_code(&out, 0);
    let md = std::fs::read_to_string(dir.join("survey/survey-2025-12-31.md")).unwrap();
    let rows = table_under(&md, "**The repositories**");
    // git's answer at each date, and each commit's sources read here: acme/a whole,
    // acme/c its folder `srv/`, not yet where the folder holds no file.
    let mut want = vec![rows[0].clone()];
    for date in ["2025-09-01", "2025-10-01", "2025-11-01", "2025-12-01"] {
        let before = format!("--before={date} 23:59:59 +0000");
        let id = git.git(
            &repo,
            &["rev-list", "-1", "--first-parent", &before, "main"],
        );
        let (mut counted, mut not_yet, mut spelling, mut tools, mut annotated) = (0, 0, 0, 0, 0);
        let mut each = [0u64; 4];
        for folder in [".", "srv/"] {
            let files = match id.is_empty() {
                true => String::new(),
                false => git.git(&repo, &["ls-tree", "-r", "--name-only", &id, "--", folder]),
            };
            if files.is_empty() {
                // acme/b failed to pin, so it is in no row.
                not_yet += 1;
                continue;
            }
            let source: String = files
                .lines()
                .map(|f| git.git(&repo, &["show", &format!("{id}:{f}")]) + "\n")
                .collect();
            let spelled: Vec<bool> = HINTS
                .iter()
                .map(|h| naive(source.as_bytes(), h) > 0)
                .collect();
            counted += 1;
            spelling += u64::from(spelled.contains(&true));
            tools += source
                .lines()
                .filter(|l| l.contains("registerTool"))
                .count() as u64;
            annotated += source.lines().filter(|l| l.contains("annotations")).count() as u64;
            for (n, &s) in each.iter_mut().zip(&spelled) {
                *n += u64::from(s);
            }
        }
        let mut line = vec![
            date.to_string(),
            counted.to_string(),
            not_yet.to_string(),
            "0".to_string(),
        ];
        match counted {
            0 => line.extend(["0", "0", "0"].map(String::from)),
            _ => line.extend([
                share(spelling, counted),
                tools.to_string(),
                share(annotated, tools),
            ]),
        }
        line.extend(each.iter().map(|&n| match counted {
            0 => "0".to_string(),
            _ => share(n, counted),
        }));
        want.push(line);
    }
    assert_eq!(rows, want, "{md}");
    assert_eq!(
        &want[4][1..3],
        ["2", "0"],
        "acme/c is counted once srv/ exists"
    );
    assert_eq!(&want[3][1..3], ["1", "1"], "and not yet before: {md}");
    // The repositories' panel is drawn below what ships' (none here: no --versions).
    let svg = std::fs::read_to_string(dir.join("survey/survey-2025-12-31-over-time.svg")).unwrap();
    assert!(svg.contains("The repositories, at each date"), "{svg}");
}
