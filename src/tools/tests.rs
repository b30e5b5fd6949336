//! Fixture trees per SDK family, built in code after each SDK's documented
//! examples, with the tools and hints known by hand; and the bounds on bad input.

use super::*;

mod bounds;
mod compiled_output;
mod declared;
mod derived_names;
mod entries;
mod families;
mod forms;
mod languages;
mod loops;
mod objects;
mod packages;
mod parsed;
mod php;
mod reexports;
mod ruby;
mod shipped;
mod skimmed_against_whole;
mod swift;
mod typescript;
mod wrappers;

/// Runs the finder over `(path, text)` files, and checks that what it finds is what
/// parsing every file whole would find: the spelling filter, the files kept aside
/// and the bodies left out change how much is parsed, never the answer.
pub(crate) fn find(files: &[(&str, &[u8])]) -> FoundTools {
    let mut tools = TreeTools::new();
    for (path, bytes) in files {
        assert!(TreeTools::wants(path.as_bytes()), "{path} is wanted");
        tools.add_file(path.as_bytes(), bytes);
    }
    let found = tools.finish();
    let everything = parse_everything(files);
    assert_eq!(
        found.tools, everything.tools,
        "the filter changed the answer"
    );
    assert_eq!(found.skipped_files, everything.skipped_files);
    found
}

/// The finder without its filter: every file within the size bound is parsed, and
/// parsed whole (no function body is left out, see `skim`). Each
/// file a registration is read in must hold one of its family's anchors.
fn parse_everything(files: &[(&str, &[u8])]) -> FoundTools {
    let mut tools = TreeTools::new();
    tools.reading = Reading::Whole;
    for (path, bytes) in files {
        let Some(lang) = Lang::of(path.as_bytes()) else {
            // A manifest: read as it arrives, never parsed.
            tools.add_file(path.as_bytes(), bytes);
            continue;
        };
        match bytes.len() > MAX_PARSE_BYTES {
            true => tools.skipped += 1,
            false => tools.read(lang, path.as_bytes(), bytes, Why::Anchor),
        }
    }
    // Where a lexer follows the file, in its code: not in its comments, nor in
    // strings that cannot hold code.
    let code_anchored = |lang: Lang, bytes: &[u8]| match lex::lex(lang, bytes) {
        Some(lexed) => prefilter::anchored(lang, &lexed.code(bytes)),
        None => prefilter::anchored(lang, bytes),
    };
    for file in &tools.files {
        assert!(
            file.sites.is_empty()
                || files.iter().any(|(p, b)| p.as_bytes() == file.path
                    && code_anchored(Lang::of(&file.path).unwrap(), b)),
            "{} registers a tool without an anchor in its code",
            String::from_utf8_lossy(&file.path)
        );
    }
    tools.finish()
}

/// Returns each definition as `path:line name hints`, the hints as four letters in
/// `Hint::ALL` order: `t` true, `f` false, `?` unresolved, `u` unknown, `-` absent;
/// a role other than `source` and a dynamic site follow in brackets.
pub(crate) fn rows(found: &FoundTools) -> Vec<String> {
    found
        .tools
        .iter()
        .map(|t| {
            let hints: String = t
                .hints
                .iter()
                .map(|h| match h {
                    Some(HintState::True) => 't',
                    Some(HintState::False) => 'f',
                    Some(HintState::Unresolved) => '?',
                    Some(HintState::Unknown) => 'u',
                    None => '-',
                })
                .collect();
            let mut row = format!(
                "{}:{} {} {hints}",
                String::from_utf8_lossy(&t.path),
                t.line,
                t.name.as_deref().unwrap_or("<dynamic>")
            );
            if t.role != Role::Source {
                row.push_str(&format!(" [{}]", t.role.as_str()));
            }
            if t.kind == DefKind::Dynamic {
                row.push_str(" [dynamic]");
            }
            row
        })
        .collect()
}

fn assert_rows(found: &FoundTools, expected: &[&str]) {
    let got = rows(found);
    assert_eq!(
        got,
        expected,
        "\nexpected:\n{}\ngot:\n{}",
        expected.join("\n"),
        got.join("\n")
    );
}

fn too_large() -> Vec<u8> {
    let mut big =
        b"server.registerTool(\"huge\", { annotations: { readOnlyHint: true } }, cb);\n".to_vec();
    big.resize(MAX_PARSE_BYTES + 1, b' ');
    big
}
