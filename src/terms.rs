//! The hints, and the columns of a count table: which names are counted, and what
//! each column is (a hint, a control, or some other term).
//!
//! This module is the one place that spells the four hint names and knows which
//! column is a hint, so that the gates (`scan --require-hints`) ask a column what it
//! is instead of comparing names. It validates term lists and builds the matcher
//! for a set of columns. It does not read files, count bytes or format anything.

use std::collections::HashMap;

use crate::count::Matcher;

/// One of the four tool-annotation hints of the MCP schema's `ToolAnnotations`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hint {
    ReadOnly,
    Destructive,
    Idempotent,
    OpenWorld,
}

impl Hint {
    /// Lists the four hints in the schema's order, which is also the column order.
    pub const ALL: [Hint; 4] = [
        Hint::ReadOnly,
        Hint::Destructive,
        Hint::Idempotent,
        Hint::OpenWorld,
    ];

    /// Returns the hint's name as it appears on the wire and in the default columns.
    pub const fn name(self) -> &'static str {
        match self {
            Hint::ReadOnly => "readOnlyHint",
            Hint::Destructive => "destructiveHint",
            Hint::Idempotent => "idempotentHint",
            Hint::OpenWorld => "openWorldHint",
        }
    }

    /// Returns the hint whose name is `text`, compared ASCII case-insensitively, as
    /// the matcher compares terms.
    pub fn from_name(text: &str) -> Option<Hint> {
        Hint::ALL
            .into_iter()
            .find(|h| h.name().eq_ignore_ascii_case(text))
    }
}

/// The default terms: the four hint names.
pub const DEFAULT_TERMS: [&str; 4] = [
    Hint::ReadOnly.name(),
    Hint::Destructive.name(),
    Hint::Idempotent.name(),
    Hint::OpenWorld.name(),
];

/// The default control term: counted like the terms, it shows the files were read.
pub const DEFAULT_CONTROLS: [&str; 1] = ["annotations"];

/// What a column counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// A term that spells one of the hints.
    Hint(Hint),
    /// A term that is no hint (a user's own term).
    Term,
    /// A control: counted the same way, to show that the files were read.
    Control,
}

/// Holds one column of a count table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The header, which is also the term counted.
    pub name: String,
    pub kind: ColumnKind,
}

impl Column {
    /// Returns the hint this column spells, if any.
    pub fn hint(&self) -> Option<Hint> {
        match self.kind {
            ColumnKind::Hint(hint) => Some(hint),
            _ => None,
        }
    }

    /// Returns true for a control column.
    pub fn is_control(&self) -> bool {
        self.kind == ColumnKind::Control
    }
}

/// Holds the columns of a table, terms first, then controls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    columns: Vec<Column>,
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
                    (false, None) => ColumnKind::Term,
                };
                columns.push(Column {
                    name: name.to_string(),
                    kind,
                });
            }
        }
        Ok(Columns { columns })
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

    /// Returns the indices of the columns that spell a hint.
    pub fn hint_columns(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].hint().is_some())
            .collect()
    }

    /// Returns the matcher that counts these columns, one count per column in order.
    pub fn matcher(&self) -> anyhow::Result<Matcher> {
        Matcher::new(&self.names().collect::<Vec<_>>())
    }
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
