//! The columns of a count table: which names are counted, what each column is (a
//! hint, a spelling of a hint, a control, or some other term), and the spelling
//! profiles that add columns.
//!
//! This module is the one place that knows which column is a hint (the hints
//! themselves are `tools::hints`'), so that the gates (`scan --require-hints`) ask a column what it
//! is instead of comparing names. A column counts one or more patterns, each under
//! its own case rule (docs/method.md, "Spelling profiles"); this module validates
//! them, builds the matcher for a set of columns (each distinct pattern once) and
//! folds the matcher's per-pattern counts into per-column counts. It does not read
//! files, count bytes or format anything.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;
use toml::Spanned;

use crate::count::{contains_another, Case, Matcher, Pattern};
use crate::infra::error::UsageError;
use crate::tools::hints::Hint;

/// The default terms: the four hint names.
pub const DEFAULT_TERMS: [&str; 4] = [
    Hint::ReadOnly.name(),
    Hint::Destructive.name(),
    Hint::Idempotent.name(),
    Hint::OpenWorld.name(),
];

/// The default control term: counted like the terms, it shows the files were read.
pub const DEFAULT_CONTROLS: [&str; 1] = ["annotations"];

/// The default controls with the MCP specification version that introduced the word
/// (`annotations`: 2025-03-26, the version that added `ToolAnnotations`): a tree
/// whose commit predates it could not have written it, so its zero is no sign that
/// the files went unread (docs/method.md, "How a term is counted").
pub const CONTROLS_SINCE: [(&str, &str); 1] = [("annotations", "2025-03-26")];

/// The built-in spelling profiles, by name, in the form a profile file has.
pub const BUILT_IN_PROFILES: [(&str, &str); 1] = [("sdk", include_str!("profiles/sdk.toml"))];

/// What a column counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// The literal name of one of the hints.
    Hint(Hint),
    /// A spelling profile's column: spellings of a hint, or of nothing the schema
    /// names.
    Profile(Option<Hint>),
    /// A user's own term: a spelling of a hint when the built-in profile knows it as
    /// one (`read_only_hint`), else of nothing.
    Term(Option<Hint>),
    /// A control: counted the same way, to show that the files were read.
    Control,
}

/// Holds one column of a count table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The header.
    pub name: String,
    pub kind: ColumnKind,
    /// What the column counts: the sum of these patterns' counts.
    pub patterns: Vec<Pattern>,
}

impl Column {
    /// Returns the hint this column spells, if any.
    pub fn hint(&self) -> Option<Hint> {
        match self.kind {
            ColumnKind::Hint(hint)
            | ColumnKind::Profile(Some(hint))
            | ColumnKind::Term(Some(hint)) => Some(hint),
            _ => None,
        }
    }

    /// Returns true for a control column.
    pub fn is_control(&self) -> bool {
        self.kind == ColumnKind::Control
    }

    /// Returns true for a column that a spelling profile added.
    pub fn is_profile(&self) -> bool {
        matches!(self.kind, ColumnKind::Profile(_))
    }
}

/// Holds the columns of a table (terms, then profile columns, then controls) and
/// the distinct patterns they count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    columns: Vec<Column>,
    /// Every distinct pattern of the columns, in the order the matcher counts them.
    patterns: Vec<Pattern>,
    /// Per column, the indices of its patterns in `patterns`.
    sources: Vec<Vec<usize>>,
}

impl Columns {
    /// Returns the columns for `terms` then `controls`.
    ///
    /// Fails, saying which, when a term is empty or when two terms are equal under
    /// ASCII case folding: the counts would be ambiguous.
    pub fn new<S: AsRef<str>>(terms: &[S], controls: &[S]) -> Result<Columns, String> {
        let mut columns: Vec<Column> = Vec::with_capacity(terms.len() + controls.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        let lists = [(terms, false), (controls, true)];
        for (list, is_control) in lists {
            for name in list {
                let name = name.as_ref();
                check_term(name, &mut seen, columns.len())
                    .map_err(|first| {
                        format!("'{name}' is given twice, as '{}'", columns[first].name)
                    })
                    .and_then(|()| match name.is_empty() {
                        true => Err("a term is empty".to_string()),
                        false => Ok(()),
                    })?;
                let kind = match (is_control, Hint::from_name(name)) {
                    (true, _) => ColumnKind::Control,
                    (false, Some(hint)) => ColumnKind::Hint(hint),
                    (false, None) => ColumnKind::Term(known_spelling(name)),
                };
                columns.push(Column {
                    name: name.to_string(),
                    kind,
                    patterns: vec![Pattern::insensitive(name)],
                });
            }
        }
        Ok(Columns::index(columns))
    }

    /// Returns the columns with `profile`'s columns added after the terms and before
    /// the controls. Fails when a profile column's name is already a column.
    pub fn with_profile(self, profile: Vec<Column>) -> Result<Columns, String> {
        let mut names: HashMap<String, String> = self
            .columns
            .iter()
            .map(|c| (c.name.to_ascii_lowercase(), c.name.clone()))
            .collect();
        for column in &profile {
            if let Some(first) = names.insert(column.name.to_ascii_lowercase(), column.name.clone())
            {
                return Err(format!(
                    "the column '{}' is given twice, as '{first}'",
                    column.name
                ));
            }
        }
        let at = self
            .columns
            .iter()
            .position(Column::is_control)
            .unwrap_or(self.columns.len());
        let mut columns = self.columns;
        columns.splice(at..at, profile);
        Ok(Columns::index(columns))
    }

    /// Returns the columns with their distinct patterns indexed.
    fn index(columns: Vec<Column>) -> Columns {
        let mut patterns: Vec<Pattern> = Vec::new();
        let mut seen: HashMap<(Vec<u8>, bool), usize> = HashMap::new();
        let sources = columns
            .iter()
            .map(|column| {
                column
                    .patterns
                    .iter()
                    .map(|p| {
                        let key = match p.case {
                            Case::Insensitive => (p.bytes.to_ascii_lowercase(), false),
                            Case::Exact => (p.bytes.clone(), true),
                        };
                        *seen.entry(key).or_insert_with(|| {
                            patterns.push(p.clone());
                            patterns.len() - 1
                        })
                    })
                    .collect()
            })
            .collect();
        Columns {
            columns,
            patterns,
            sources,
        }
    }

    /// Returns the default columns: the four hints and `annotations`.
    pub fn default_columns() -> Columns {
        Columns::new(&DEFAULT_TERMS, &DEFAULT_CONTROLS)
            .expect("the default terms are distinct and not empty")
    }

    /// Returns every column, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Column> {
        self.columns.iter()
    }

    /// Returns the column names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|c| c.name.as_str())
    }

    /// Returns the number of columns.
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// Returns true when there is no column at all.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Returns the names of the columns that are not controls.
    pub fn terms(&self) -> Vec<&str> {
        self.columns
            .iter()
            .filter(|c| !c.is_control())
            .map(|c| c.name.as_str())
            .collect()
    }

    /// Returns the names of the control columns.
    pub fn controls(&self) -> Vec<&str> {
        self.columns
            .iter()
            .filter(|c| c.is_control())
            .map(|c| c.name.as_str())
            .collect()
    }

    /// Returns the date before which every control could not have been written: the
    /// latest of the dates [`CONTROLS_SINCE`] gives them (names compared ASCII
    /// case-insensitively, as terms are), or `None` when there is no control or some
    /// control is a word of the user's, which any commit could hold.
    pub fn controls_since(&self) -> Option<&'static str> {
        let mut latest: Option<&'static str> = None;
        for name in self.controls() {
            let (_, since) = CONTROLS_SINCE
                .iter()
                .find(|(word, _)| word.eq_ignore_ascii_case(name))?;
            latest = latest.max(Some(since));
        }
        latest
    }

    /// Returns the indices of the columns that spell a hint.
    pub fn hint_columns(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].hint().is_some())
            .collect()
    }

    /// Returns true when some column is a spelling profile's.
    pub fn has_profile(&self) -> bool {
        self.columns.iter().any(Column::is_profile)
    }

    /// Returns the matcher that counts these columns: each distinct pattern once,
    /// its occurrences summed into every column that spells it.
    pub fn matcher(&self) -> anyhow::Result<Matcher> {
        Matcher::with_columns(&self.patterns, &self.sources)
    }
}

/// Returns the hint whose built-in spellings include `term`, compared as an
/// insensitive term compares: `read_only_hint` is a spelling of readOnlyHint.
fn known_spelling(term: &str) -> Option<Hint> {
    static SDK: OnceLock<Vec<Column>> = OnceLock::new();
    let columns = SDK.get_or_init(|| {
        let (name, text) = BUILT_IN_PROFILES[0];
        parse_profile(name, text).expect("the built-in profile parses")
    });
    columns.iter().find_map(|column| {
        let is_spelled = column
            .patterns
            .iter()
            .any(|p| p.case == Case::Insensitive && p.bytes.eq_ignore_ascii_case(term.as_bytes()));
        is_spelled.then(|| column.hint()).flatten()
    })
}

/// Holds one column of a profile as written in TOML.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawColumn {
    pub name: Spanned<String>,
    pub hint: Option<Spanned<String>>,
    #[serde(default)]
    pub insensitive: Vec<Spanned<String>>,
    #[serde(default)]
    pub exact: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    #[serde(default)]
    column: Vec<RawColumn>,
}

/// Returns the columns of profile `text` (`[[column]]` tables); `file` is how
/// errors name it, with the line of each mistake.
pub fn parse_profile(file: &str, text: &str) -> Result<Vec<Column>, UsageError> {
    let raw: RawProfile = toml::from_str(text).map_err(|e| match e.span() {
        Some(span) => UsageError(format!(
            "{file}:{}: {}",
            line_of(text, span.start),
            e.message().trim()
        )),
        None => UsageError(format!("{file}: {}", e.message().trim())),
    })?;
    if raw.column.is_empty() {
        return Err(UsageError(format!("{file}: the profile has no [[column]]")));
    }
    raw.column
        .iter()
        .map(|c| {
            profile_column(c).map_err(|(span, why)| {
                UsageError(format!("{file}:{}: {why}", line_of(text, span.start)))
            })
        })
        .collect()
}

/// Returns a profile column, or the span and text of what is wrong with it.
pub fn profile_column(raw: &RawColumn) -> Result<Column, (std::ops::Range<usize>, String)> {
    let name = raw.name.get_ref();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err((
            raw.name.span(),
            format!("column {name:?}: the name is empty or has a control character"),
        ));
    }
    let hint = match &raw.hint {
        None => None,
        Some(text) => Some(Hint::from_name(text.get_ref()).ok_or_else(|| {
            (
                text.span(),
                format!(
                    "column '{name}': key 'hint': '{}' is none of {}",
                    text.get_ref(),
                    Hint::ALL.map(Hint::name).join(", ")
                ),
            )
        })?),
    };
    let mut patterns: Vec<(Pattern, std::ops::Range<usize>)> = Vec::new();
    for (list, case) in [
        (&raw.insensitive, Case::Insensitive),
        (&raw.exact, Case::Exact),
    ] {
        for spelling in list {
            if spelling.get_ref().is_empty() {
                return Err((
                    spelling.span(),
                    format!("column '{name}': a spelling is empty"),
                ));
            }
            let pattern = Pattern {
                bytes: spelling.get_ref().as_bytes().to_vec(),
                case,
            };
            // Within a column no spelling may contain another: the bytes of one
            // occurrence would count twice in the sum.
            if let Some((other, _)) = patterns.iter().find(|(p, _)| contains_another(p, &pattern)) {
                return Err((
                    spelling.span(),
                    format!(
                        "column '{name}': the spellings '{}' and '{}' contain one another, so one occurrence would count twice",
                        String::from_utf8_lossy(&other.bytes),
                        spelling.get_ref()
                    ),
                ));
            }
            patterns.push((pattern, spelling.span()));
        }
    }
    if patterns.is_empty() {
        return Err((
            raw.name.span(),
            format!("column '{name}' has no spelling (insensitive or exact)"),
        ));
    }
    Ok(Column {
        name: name.clone(),
        kind: ColumnKind::Profile(hint),
        patterns: patterns.into_iter().map(|(p, _)| p).collect(),
    })
}

/// Returns the columns of the profile `spec` names: a built-in profile's name, or
/// a TOML file of `[[column]]` tables.
pub fn load_profile(spec: &str) -> Result<Vec<Column>, UsageError> {
    if let Some((_, text)) = BUILT_IN_PROFILES.iter().find(|(name, _)| *name == spec) {
        return parse_profile(spec, text);
    }
    let text = std::fs::read_to_string(spec).map_err(|e| {
        let known: Vec<&str> = BUILT_IN_PROFILES.iter().map(|(n, _)| *n).collect();
        UsageError(format!(
            "profile '{spec}' is not built in ({}) and cannot be read as a file: {e}",
            known.join(", ")
        ))
    })?;
    parse_profile(spec, &text)
}

/// Returns the 1-based line of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..offset.min(text.len())]).count()
}

/// Notes `name` as the column at `index`; returns the index of an earlier column
/// whose name is equal under ASCII case folding.
fn check_term(name: &str, seen: &mut HashMap<String, usize>, index: usize) -> Result<(), usize> {
    match seen.entry(name.to_ascii_lowercase()) {
        std::collections::hash_map::Entry::Occupied(first) => Err(*first.get()),
        std::collections::hash_map::Entry::Vacant(slot) => {
            slot.insert(index);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_columns_are_found_by_name_in_any_case() {
        let columns =
            Columns::new(&["ReadOnlyHint", "x", "openWorldHint"], &["annotations"]).unwrap();
        assert_eq!(columns.hint_columns(), [0, 2]);
        assert_eq!(columns.terms(), ["ReadOnlyHint", "x", "openWorldHint"]);
        assert_eq!(columns.controls(), ["annotations"]);
        // A hint name given as a control is a control.
        let columns = Columns::new(&["x"], &["readOnlyHint"]).unwrap();
        assert!(columns.hint_columns().is_empty());
    }

    #[test]
    fn duplicate_and_empty_terms_are_refused() {
        let err = Columns::new(&["abc", "ABC"], &[]).unwrap_err();
        assert!(err.contains("'ABC'") && err.contains("'abc'"), "{err}");
        let err = Columns::new(&["abc"], &["aBc"]).unwrap_err();
        assert!(err.contains("twice"), "{err}");
        let err = Columns::new(&["", "x"], &[]).unwrap_err();
        assert!(err.contains("empty"), "{err}");
    }

    #[test]
    fn the_sdk_profile_adds_a_column_per_hint_before_the_controls() {
        let columns = Columns::default_columns()
            .with_profile(load_profile("sdk").unwrap())
            .unwrap();
        let names: Vec<&str> = columns.names().collect();
        assert_eq!(
            names,
            [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
                "readOnlyHint_sdk",
                "destructiveHint_sdk",
                "idempotentHint_sdk",
                "openWorldHint_sdk",
                "annotations"
            ]
        );
        // 4 literals (shared with the profile), 4 snake_case, 24 exact, annotations.
        assert_eq!(columns.patterns.len(), 33);
        assert_eq!(columns.hint_columns(), [0, 1, 2, 3, 4, 5, 6, 7]);
        let data =
            b"readOnlyHint read_only_hint ReadOnly = true READONLY = TRUE .read_only( #[IsReadOnly] use IsReadOnly; annotations";
        let matcher = columns.matcher().unwrap();
        let counts = matcher.count(data);
        assert_eq!(counts, [1, 0, 0, 0, 5, 0, 0, 0, 1]);
    }

    #[test]
    fn profile_mistakes_name_the_line() {
        let err = parse_profile(
            "p.toml",
            "[[column]]\nname = \"x\"\ninsensitive = [\"abc\"]\nexact = [\"xABCx\"]\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("p.toml:4:") && err.contains("'abc' and 'xABCx'"),
            "{err}"
        );
        let err = parse_profile(
            "p.toml",
            "[[column]]\nname = \"x\"\nhint = \"readOnly\"\nexact = [\"a\"]\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("p.toml:3:") && err.contains("'readOnly'"),
            "{err}"
        );
        let err = parse_profile("p.toml", "[[column]]\nname = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no spelling"), "{err}");
        let err = load_profile("no-such-profile").unwrap_err().to_string();
        assert!(err.contains("not built in (sdk)"), "{err}");
        // Two exact spellings that differ in case are two spellings.
        let ok = parse_profile(
            "p.toml",
            "[[column]]\nname = \"x\"\nexact = [\"Ab\", \"aB\"]\n",
        )
        .unwrap();
        assert_eq!(ok[0].patterns.len(), 2);
    }

    #[test]
    fn a_known_spelling_given_as_a_term_spells_its_hint() {
        let columns = Columns::new(&["read_only_hint", "open_world_hint", "other"], &[]).unwrap();
        assert_eq!(columns.hint_columns(), [0, 1]);
        assert_eq!(
            columns.iter().next().unwrap().kind,
            ColumnKind::Term(Some(Hint::ReadOnly))
        );
    }

    #[test]
    fn the_default_columns_are_the_hints_then_annotations() {
        let columns = Columns::default_columns();
        let names: Vec<&str> = columns.names().collect();
        assert_eq!(
            names,
            [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
                "annotations"
            ]
        );
        let hints: Vec<Hint> = columns.iter().filter_map(Column::hint).collect();
        assert_eq!(hints, Hint::ALL);
    }
}
