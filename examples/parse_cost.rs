//! What tree-sitter's parse costs by byte and by statement, on generated code: each
//! grammar parses 2,000 short statements holding a one-byte string, then the same
//! statements holding 200-byte strings, and the difference is the cost of a string's
//! inside. It decides whether leaving strings' insides out of the tool finder's parse
//! would pay (docs/performance.md).
//!
//! Usage: `cargo run --release --example parse_cost` (best of 20 parses each).

use std::time::{Duration, Instant};

use tree_sitter::{Language, Parser};

const STATEMENTS: usize = 2_000;

/// The fastest of 20 parses of `src`; `None` when the grammar does not load or the
/// text does not parse cleanly.
fn fastest_parse(language: &Language, src: &str) -> Option<Duration> {
    let mut best = Duration::MAX;
    for _ in 0..20 {
        let mut parser = Parser::new();
        parser.set_language(language).ok()?;
        let started = Instant::now();
        let tree = parser.parse(src, None)?;
        best = best.min(started.elapsed());
        if tree.root_node().has_error() {
            return None;
        }
    }
    Some(best)
}

fn main() {
    let python: Language = tree_sitter_python::LANGUAGE.into();
    let typescript: Language = tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into();
    let cases: [(&str, &Language, &str); 4] = [
        ("python assignment", &python, "x{i} = \"{s}\"\n"),
        (
            "python docstring",
            &python,
            "def f{i}():\n    \"\"\"{s}\"\"\"\n",
        ),
        ("typescript string", &typescript, "const x{i} = \"{s}\";\n"),
        ("typescript template", &typescript, "const x{i} = `{s}`;\n"),
    ];
    let long = "a".repeat(200);
    println!(
        "case\tshort bytes\tshort ms\tlong bytes\tlong ms\tns per string byte\tus per statement"
    );
    for (name, language, template) in cases {
        let text = |inside: &str| -> String {
            (0..STATEMENTS)
                .map(|i| {
                    template
                        .replace("{i}", &i.to_string())
                        .replace("{s}", inside)
                })
                .collect()
        };
        let (short, longer) = (text("a"), text(&long));
        let (Some(a), Some(b)) = (
            fastest_parse(language, &short),
            fastest_parse(language, &longer),
        ) else {
            eprintln!("parse_cost: {name}: the generated text did not parse cleanly");
            std::process::exit(1);
        };
        let extra = (longer.len() - short.len()) as f64;
        println!(
            "{name}\t{}\t{:.2}\t{}\t{:.2}\t{:.1}\t{:.2}",
            short.len(),
            a.as_secs_f64() * 1e3,
            longer.len(),
            b.as_secs_f64() * 1e3,
            b.saturating_sub(a).as_secs_f64() * 1e9 / extra,
            a.as_secs_f64() * 1e6 / STATEMENTS as f64
        );
    }
}
