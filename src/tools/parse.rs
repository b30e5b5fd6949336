//! Parsing one file: within its bounds ([`PARSE_BUDGET`]), with the bodies the
//! filter found left out ([`Reading::Skimmed`]), and the file's family recogniser
//! filling its summary. It knows nothing of the tree: which files to parse, and
//! when, is the collector's (`tools/mod.rs`).

use std::cell::RefCell;
use std::ops::Range;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

use super::filter::{lex, skim};
use super::lang::Lang;
use super::sdk::{
    csharp, golang, java, kotlin, php, python, ruby, rust, swift, syntax, typescript,
};
use super::value::{self, FileSummary};

/// A parse that runs longer than this is abandoned and its file counted as skipped.
pub const PARSE_BUDGET: Duration = Duration::from_secs(4);

/// How much of a file is parsed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// All but the function bodies no recogniser reads (see [`skim`]).
    Skimmed,
    /// Every byte: what the tests compare the skimmed reading with.
    #[cfg_attr(not(test), allow(dead_code))]
    Whole,
}

/// Returns true for a TypeScript declaration file (`.d.ts`, `.d.mts`, `.d.cts`):
/// types only, no code that runs, so no registration; its constants may still be
/// looked up.
pub(super) fn declarations_only(path: &[u8]) -> bool {
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    [&b".d.ts"[..], b".d.mts", b".d.cts"]
        .iter()
        .any(|ext| name.len() > ext.len() && name.to_ascii_lowercase().ends_with(ext))
}

/// When this variable is set, every file parsed writes one line to stderr,
/// `tool-parse<TAB>microseconds<TAB>of which skimming and parsing<TAB>bytes<TAB>bytes parsed<TAB>sites<TAB>anchor|needed<TAB>path`,
/// and every tree once finished
/// `tool-finish<TAB>microseconds<TAB>rounds<TAB>files kept<TAB>first path`
/// (paths escaped), so that a benchmark shows where the finder's time goes.
pub const PROFILE_VAR: &str = "MCP_HINT_CENSUS_TOOL_PROFILE";

pub(super) fn profiling() -> bool {
    static PROFILE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PROFILE.get_or_init(|| std::env::var_os(PROFILE_VAR).is_some())
}

/// Why a file is parsed, for [`PROFILE_VAR`].
#[derive(Clone, Copy)]
pub(super) enum Why {
    /// It holds an anchor.
    Anchor,
    /// A lookup or a chain of imports needs it.
    Needed,
}

/// Parses one file and fills its summary; `None` when a bound stopped the parse.
pub(super) fn summarize(
    lang: Lang,
    path: &[u8],
    bytes: &[u8],
    why: Why,
    reading: Reading,
    lexed: Lexing,
) -> Option<FileSummary> {
    if profiling() {
        let started = Instant::now();
        let summary = summarize_now(lang, path, bytes, reading, lexed);
        eprintln!(
            "tool-parse\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            started.elapsed().as_micros(),
            PARSED.with(|p| p.get().0.as_micros()),
            bytes.len(),
            PARSED.with(|p| p.get().1),
            summary.as_ref().map_or(0, |s| s.sites.len()),
            match why {
                Why::Anchor => "anchor",
                Why::Needed => "needed",
            },
            crate::infra::sanitize::sanitize(path)
        );
        return summary;
    }
    summarize_now(lang, path, bytes, reading, lexed)
}

/// What the lexer read of a file, and the code it gives (see [`lex::Lexed::code`]),
/// when it was read before the parse.
type Lexing = Option<(lex::Lexed, Vec<u8>)>;

thread_local! {
    /// How long the last parse of this thread took, and how many bytes it read,
    /// for [`PROFILE_VAR`].
    static PARSED: std::cell::Cell<(Duration, usize)> =
        const { std::cell::Cell::new((Duration::ZERO, 0)) };
}

fn summarize_now(
    lang: Lang,
    path: &[u8],
    bytes: &[u8],
    reading: Reading,
    lexed: Lexing,
) -> Option<FileSummary> {
    let started = Instant::now();
    let skipped = match (reading, lexed) {
        (Reading::Skimmed, Some((lexed, code))) => skim::bodies_of(lang, bytes, lexed, &code),
        (Reading::Skimmed, None) => skim::bodies(lang, bytes),
        (Reading::Whole, _) => Vec::new(),
    };
    let tree = parse(lang, bytes, &skipped, PARSE_BUDGET);
    let left_out: usize = skipped.iter().map(|r| r.len()).sum();
    PARSED.with(|p| p.set((started.elapsed(), bytes.len() - left_out)));
    let tree = tree?;
    let _names = syntax::reading(names(lang));
    let mut summary = FileSummary {
        path: path.to_vec(),
        sdk: lang.uses_sdk(bytes),
        ..FileSummary::default()
    };
    let root = tree.root_node();
    match lang {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            typescript::collect(root, bytes, &mut summary)
        }
        Lang::Python => python::collect(root, bytes, &mut summary),
        Lang::Go => golang::collect(root, bytes, &mut summary),
        Lang::Rust => rust::collect(root, bytes, &mut summary),
        Lang::CSharp => csharp::collect(root, bytes, &mut summary),
        Lang::Java => java::collect(root, bytes, &mut summary),
        Lang::Kotlin => kotlin::collect(root, bytes, &mut summary),
        Lang::Php => php::collect(root, bytes, &mut summary),
        Lang::Ruby => ruby::collect(root, bytes, &mut summary),
        Lang::Swift => swift::collect(root, bytes, &mut summary),
    }
    if declarations_only(path) {
        summary.sites.clear();
    }
    // Which hints each definition's own bytes name: a hint named there is declared,
    // whether or not the recogniser could read it (see `Resolver::tool`).
    for site in &mut summary.sites {
        site.spelled = bytes
            .get(site.extent.clone())
            .map_or([false; 4], super::hints::spelled);
    }
    // Whether a site repeats matters only where no literal names its tool (see
    // `Resolver::tools`): the walk for it is left out otherwise.
    let unnamed = |site: &value::Site| match &site.kind {
        value::SiteKind::Tool { name, .. } => !matches!(name, Some(value::Val::Str(_))),
        value::SiteKind::List { .. }
        | value::SiteKind::Each { .. }
        | value::SiteKind::Shaped(_)
        | value::SiteKind::Wrapped(_) => true,
        value::SiteKind::Keyed { .. } => false,
    };
    if summary.sites.iter().any(unnamed) {
        let mut lines: Vec<u32> = summary.sites.iter().map(|s| s.line).collect();
        lines.sort_unstable();
        let ranges = syntax::repeated_lines(root, bytes, &lines);
        for site in &mut summary.sites {
            site.repeated = ranges
                .iter()
                .any(|&(start, end)| start <= site.line && site.line <= end);
        }
    }
    Some(summary)
}

/// Returns the names of `lang`'s grammar (see [`syntax::Names`]), read once.
fn names(lang: Lang) -> &'static syntax::Names {
    static NAMES: [OnceLock<syntax::Names>; Lang::ALL.len()] =
        [const { OnceLock::new() }; Lang::ALL.len()];
    NAMES[lang as usize].get_or_init(|| syntax::Names::of(&lang.grammar()))
}

/// Parses a file, `skipped` left out, within `budget` ([`PARSE_BUDGET`]); `None` when
/// the budget ran out. A file with syntax errors still parses: tree-sitter marks the
/// errors and the recognisers read what is well formed around them.
pub(super) fn parse(
    lang: Lang,
    bytes: &[u8],
    skipped: &[Range<usize>],
    budget: Duration,
) -> Option<Tree> {
    thread_local! {
        /// One parser a thread, reused: a new one allocates its stacks anew, a
        /// cost a small file's parse notices.
        static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
    }
    let ranges = match skipped.is_empty() {
        true => Vec::new(),
        false => skim::included(bytes, skipped),
    };
    PARSER.with_borrow_mut(|parser| {
        parser.set_language(&lang.grammar()).ok()?;
        // None is the whole file.
        parser.set_included_ranges(&ranges).ok()?;
        let started = Instant::now();
        // Returning true cancels the parse.
        let mut over_budget = |_: &ParseState| started.elapsed() > budget;
        let options = ParseOptions::new().progress_callback(&mut over_budget);
        let len = bytes.len();
        let tree = parser.parse_with_options(
            &mut |at, _| if at < len { &bytes[at..] } else { &[] },
            None,
            Some(options),
        );
        // A cancelled parse would otherwise be resumed by the next.
        if tree.is_none() {
            parser.reset();
        }
        tree
    })
}
