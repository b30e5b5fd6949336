//! "What silence costs" in the census report: its figures recounted from the tools
//! table the census wrote beside it, by a counter written here (the name class read
//! from the table's `name_class` column, checked first against the class each
//! fixture name was written to have).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::common::*;

const COMMIT: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";

/// The tools of the first tree: each class silent, declaring readOnlyHint either way,
/// contradicted, and an unresolved one.
const A: [ToolSpec; 9] = [
    ToolSpec {
        name: "get_user",
        hints: ["", "", "", ""],
    },
    ToolSpec {
        name: "list_items",
        hints: ["true", "", "", "false"],
    },
    ToolSpec {
        name: "search_items",
        hints: ["false", "false", "", ""],
    },
    ToolSpec {
        name: "create_issue",
        hints: ["true", "", "", ""],
    },
    ToolSpec {
        name: "update_row",
        hints: ["false", "", "", ""],
    },
    ToolSpec {
        name: "delete_file",
        hints: ["", "", "", ""],
    },
    ToolSpec {
        name: "remove_all",
        hints: ["false", "true", "false", "true"],
    },
    ToolSpec {
        name: "weather",
        hints: ["", "", "", ""],
    },
    ToolSpec {
        name: "ping",
        hints: ["true", "", "", ""],
    },
];

/// The tools of the second tree.
const B: [ToolSpec; 5] = [
    ToolSpec {
        name: "fetchPage",
        hints: ["", "", "", ""],
    },
    ToolSpec {
        name: "github.listRepos",
        hints: ["", "", "", ""],
    },
    ToolSpec {
        name: "send-mail",
        hints: ["", "", "", ""],
    },
    ToolSpec {
        name: "DropTable",
        hints: ["true", "true", "", ""],
    },
    ToolSpec {
        name: "status",
        hints: ["?", "", "", ""],
    },
];

/// The class each fixture name reads as, by docs/method.md's "Name classes".
fn class_of(name: &str) -> &'static str {
    match name {
        "get_user" | "list_items" | "search_items" | "fetchPage" | "github.listRepos" => "read",
        "create_issue" | "update_row" | "send-mail" => "write",
        "delete_file" | "remove_all" | "DropTable" => "destructive",
        "weather" | "ping" | "status" => "unknown",
        other => panic!("no class written for '{other}'"),
    }
}

/// Holds one class's figures as the counter sees them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counted {
    tools: u64,
    silent: u64,
    read_only: u64,
    not_read_only: u64,
}

const CLASSES: [&str; 4] = ["read", "write", "destructive", "unknown"];

/// Counts the tools table at `path` by tree and class: tools of kind `tool` and role
/// `source`, those with four empty hint cells, those with readOnlyHint `true` and
/// `false`. Also checks each row's class against [`class_of`].
fn recount(path: &Path) -> BTreeMap<String, [Counted; 4]> {
    let table = read_csv(path);
    let at = |name: &str| table[0].iter().position(|c| c == name).unwrap();
    let (repo, kind, role, tool, class) = (
        at("repo"),
        at("kind"),
        at("role"),
        at("tool"),
        at("name_class"),
    );
    let hints = [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ]
    .map(at);
    let mut out: BTreeMap<String, [Counted; 4]> = BTreeMap::new();
    for row in &table[1..] {
        if row[kind] != "tool" || row[role] != "source" {
            continue;
        }
        assert_eq!(row[class], class_of(&row[tool]), "{row:?}");
        let i = CLASSES.iter().position(|c| *c == row[class]).unwrap();
        let c = &mut out.entry(row[repo].clone()).or_default()[i];
        c.tools += 1;
        c.silent += u64::from(hints.iter().all(|&h| row[h].is_empty()));
        c.read_only += u64::from(row[hints[0]] == "true");
        c.not_read_only += u64::from(row[hints[0]] == "false");
    }
    out
}

/// Returns the cells of the Markdown table rows under `heading`'s first table whose
/// first cell is `first`.
fn table_row(md: &str, from: &str, first: &str) -> Vec<u64> {
    let section = &md[md
        .find(from)
        .unwrap_or_else(|| panic!("no '{from}' in\n{md}"))..];
    let line = section
        .lines()
        .find(|l| l.starts_with(&format!("| {first} |")))
        .unwrap_or_else(|| panic!("no row '{first}' after '{from}' in\n{md}"));
    line.trim_matches('|')
        .split('|')
        .skip(1)
        .map(|c| c.trim().replace(',', "").parse().unwrap())
        .collect()
}

#[test]
fn what_silence_costs_recounts_from_the_tools_table() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = ts_server(&A);
    let (b, _) = ts_server(&B);
    let routes: HashMap<String, Vec<u8>> = HashMap::from([
        (
            "/o/a/a1b2".to_string(),
            targz(
                "o-a-a1b2",
                Some(COMMIT),
                &[Item::File("src/a.ts".into(), a)],
            ),
        ),
        (
            "/o/b/a1b2".to_string(),
            targz(
                "o-b-a1b2",
                Some(COMMIT),
                &[Item::File("index.js".into(), b)],
            ),
        ),
        (
            "/o/c/a1b2".to_string(),
            targz(
                "o-c-a1b2",
                Some(COMMIT),
                &[Item::File("README.md".into(), b"no tools".to_vec())],
            ),
        ),
    ]);
    let server = Loopback::start(move |request| match routes.get(&request.url) {
        Some(bytes) => reply(200, bytes.clone()),
        None => reply(404, "no route"),
    });
    let url = format!(
        "http://127.0.0.1:{}/{{owner}}/{{name}}/{{commit}}",
        server.port()
    );
    let trees: Vec<Vec<(&str, String)>> = ["o/a", "o/b", "o/c"]
        .iter()
        .map(|repo| vec![("repo", repo.to_string()), ("commit", "a1b2".to_string())])
        .collect();
    write_corpus(dir.path(), &url, &trees);
    let out = run(
        dir.path(),
        &[
            "census",
            "--corpus",
            "corpus.toml",
            "--out",
            "out",
            "--cache",
            "cache",
            "--date",
            "2026-09-07",
            "--timeout",
            "5",
            "--quiet",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let md = std::fs::read_to_string(dir.path().join("out/census-2026-09-07.md")).unwrap();
    let by_tree = recount(&dir.path().join("out/tools-2026-09-07.csv"));
    assert_eq!(by_tree.keys().collect::<Vec<_>>(), ["o/a", "o/b"]);

    let mut pooled = [Counted::default(); 4];
    for counts in by_tree.values() {
        for (sum, c) in pooled.iter_mut().zip(counts) {
            sum.tools += c.tools;
            sum.silent += c.silent;
            sum.read_only += c.read_only;
            sum.not_read_only += c.not_read_only;
        }
    }
    // The fixtures exercise every cell: not a table of zeros.
    assert_eq!(pooled.iter().map(|c| c.tools).sum::<u64>(), 14);
    assert!(pooled.iter().all(|c| c.tools > 0));

    let heading = "## What silence costs";
    for (class, c) in CLASSES.iter().zip(&pooled) {
        assert_eq!(
            table_row(&md, heading, class),
            [c.tools, c.silent, c.read_only, c.not_read_only],
            "class {class}"
        );
    }
    let silent: u64 = pooled.iter().map(|c| c.silent).sum();
    let all: u64 = pooled.iter().map(|c| c.tools).sum();
    let sentence = format!(
        "{silent} of {all} declare nothing, and every client following the schema treats them \
         as not read-only, destructive and open-world; {} of them have read names.",
        pooled[0].silent
    );
    assert!(md.contains(&sentence), "no '{sentence}' in\n{md}");
    let share = |n: u64, of: u64| format!("{:.1}%", n as f64 * 100.0 / of as f64);
    let read = pooled[0];
    let want = format!(
        "read names: {} declare readOnlyHint true ({} of {})",
        share(read.read_only, read.read_only + read.not_read_only),
        read.read_only,
        read.read_only + read.not_read_only
    );
    assert!(md.contains(&want), "no '{want}' in\n{md}");
    for (i, class) in [(1, "write"), (2, "destructive")] {
        let c = pooled[i];
        let want = format!(
            "{class} names: {} declare readOnlyHint false ({} of {})",
            share(c.not_read_only, c.read_only + c.not_read_only),
            c.not_read_only,
            c.read_only + c.not_read_only
        );
        assert!(md.contains(&want), "no '{want}' in\n{md}");
    }

    // Per tree: its tools, those declaring nothing, by class, and the write or
    // destructive names declared read-only.
    let by_tree_heading = "By tree";
    for (tree, counts) in &by_tree {
        let mut want = vec![
            counts.iter().map(|c| c.tools).sum::<u64>(),
            counts.iter().map(|c| c.silent).sum(),
        ];
        want.extend(counts.iter().map(|c| c.silent));
        want.push(counts[1].read_only + counts[2].read_only);
        assert_eq!(table_row(&md, by_tree_heading, tree), want, "tree {tree}");
    }
    assert!(
        !md[md.find(by_tree_heading).unwrap()..].contains("| o/c |"),
        "{md}"
    );
}
