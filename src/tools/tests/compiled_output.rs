//! What the finder reads from a server's TypeScript source, it reads from the
//! JavaScript real compilers make of it: `tsc`'s CommonJS (`exports.x = ...`,
//! `Object.defineProperty(exports, ...)`, `__exportStar`, `(0, m.f)(...)` calls),
//! an esbuild bundle (`__export` namespaces) and a minified one. The outputs are
//! committed as the compilers wrote them (`compiled/README.md` says how).

use std::path::Path;

use super::{assert_rows, find, rows};

/// Returns every file under `compiled/<folder>` as `(path under `top`, bytes)`.
fn tree(folder: &str, top: &str) -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a readable entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let rel = format!("{rel}/{name}");
            if path.is_dir() {
                walk(&path, &rel, out);
            } else {
                out.push((rel, std::fs::read(&path).expect("a readable fixture")));
            }
        }
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/tools/tests/compiled")
        .join(folder);
    let mut out = Vec::new();
    walk(&dir, top, &mut out);
    assert!(!out.is_empty(), "{} holds the fixture", dir.display());
    out
}

/// Runs the finder over one folder and returns each tool as `name hints`, sorted.
fn tools_of(folder: &str, top: &str) -> (Vec<String>, super::FoundTools) {
    let files = tree(folder, top);
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let found = find(&borrowed);
    let mut named: Vec<String> = rows(&found)
        .iter()
        .map(|row| row.split_once(' ').expect("a row has a name").1.to_string())
        .collect();
    named.sort();
    (named, found)
}

#[test]
fn the_source_reads_every_tool_with_its_hints() {
    let (_, found) = tools_of("source", "src");
    assert_rows(
        &found,
        &[
            "src/extra.ts:1 ping t-t-",
            "src/extra.ts:7 echo ---f",
            "src/index.ts:17 status t---",
            "src/tools/read.ts:3 read_file t--f",
            "src/tools/read.ts:10 list_dir t---",
            // `...IDEMPOTENT`, a preset of the helpers' module.
            "src/tools/write.ts:3 write_file ftt-",
            // Made by a helper that spreads its argument into a default description.
            "src/tools/write.ts:10 touch -f--",
        ],
    );
}

#[test]
fn compiled_and_bundled_output_reads_as_its_source() {
    let (source, _) = tools_of("source", "src");
    assert_eq!(source.len(), 7);
    for folder in ["tsc", "esbuild", "esbuild-min"] {
        let (built, found) = tools_of(folder, "dist");
        assert_eq!(built, source, "{folder} reads as its source");
        assert_eq!(found.columns(), [7, 7, 0, 0, 0], "{folder}");
    }
}
