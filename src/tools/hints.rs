//! The four hints of the MCP schema's `ToolAnnotations` and the schema's rules for
//! them, read the same way for a tool definition found in source and, by `probe`,
//! for a tool on the wire.
//!
//! The rules come from the schema
//! (<https://modelcontextprotocol.io/specification/2025-06-18/schema#toolannotations>):
//! readOnlyHint defaults to false, destructiveHint to true, idempotentHint to false,
//! openWorldHint to true; destructiveHint and idempotentHint are meaningful only when
//! readOnlyHint is not true; a hint left out resolves to its default. Each side says
//! how a tool sets each hint ([`Settings`]) and this module applies the rules once.
//! The finder adds `?`, a hint set by an expression it could not resolve: it counts
//! as set (the author did declare it), its value is unknown, and a readOnlyHint of
//! `?` leaves the other two meaningful, since it may be false (docs/method.md,
//! "Tools"). On the wire a value that is not a boolean counts as left out, since a
//! client that validates the schema cannot read anything else into it. This module
//! only reads; it never prints.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

use super::model::{HintState, ToolDef};

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

    /// Returns the value the schema documents for a tool that does not declare the
    /// hint: readOnlyHint false, destructiveHint true, idempotentHint false,
    /// openWorldHint true.
    pub fn default_value(self) -> bool {
        matches!(self, Hint::Destructive | Hint::OpenWorld)
    }

    /// Returns the value that asks a client for less caution: read-only, not
    /// destructive, idempotent, closed world.
    pub fn permissive_value(self) -> bool {
        matches!(self, Hint::ReadOnly | Hint::Idempotent)
    }

    /// Returns the hint whose name is `text`, compared ASCII case-insensitively, as
    /// the matcher compares terms.
    pub fn from_name(text: &str) -> Option<Hint> {
        Hint::ALL
            .into_iter()
            .find(|h| h.name().eq_ignore_ascii_case(text))
    }
}

/// Returns which of the four hints `bytes` spell by name, in [`Hint::ALL`] order,
/// compared ASCII case-insensitively as the literal census counts them
/// (`ReadOnlyHint`, `WithReadOnlyHintAnnotation` and `readonlyhint` spell
/// readOnlyHint; `read_only_hint` does not).
pub(crate) fn spelled(bytes: &[u8]) -> [bool; 4] {
    static NAMES: OnceLock<AhoCorasick> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(Hint::ALL.map(Hint::name))
            .expect("four short fixed names always build an automaton")
    });
    let mut out = [false; 4];
    for found in names.find_iter(bytes) {
        out[found.pattern().as_usize()] = true;
        if out == [true; 4] {
            break;
        }
    }
    out
}

/// How a tool sets one hint, as the schema's rules read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// Set to this boolean.
    Value(bool),
    /// Set, to a value not known here (the finder's `?`).
    Unknown,
    /// Left out: a client acts on the default.
    Unset,
}

/// How one tool sets each of the four hints, in the schema's order ([`Hint::ALL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings(pub [Setting; 4]);

impl Settings {
    /// Returns how the tool sets `hint`.
    pub fn of(&self, hint: Hint) -> Setting {
        self.0[hint as usize]
    }

    /// Returns true when `hint` tells a client something for the tool: every hint
    /// does, except destructiveHint and idempotentHint on a tool that sets
    /// readOnlyHint true.
    pub fn is_meaningful(&self, hint: Hint) -> bool {
        match hint {
            Hint::Destructive | Hint::Idempotent => self.of(Hint::ReadOnly) != Setting::Value(true),
            Hint::ReadOnly | Hint::OpenWorld => true,
        }
    }

    /// Returns the meaningful hints the tool leaves out, in the schema's order.
    pub fn omits(&self) -> Vec<Hint> {
        Hint::ALL
            .into_iter()
            .filter(|&h| self.is_meaningful(h) && self.of(h) == Setting::Unset)
            .collect()
    }

    /// Returns what a client honouring the schema's defaults acts on for `hint`.
    pub fn resolved(&self, hint: Hint) -> Resolved {
        if !self.is_meaningful(hint) {
            return Resolved::NotApplicable;
        }
        match self.of(hint) {
            Setting::Value(value) => Resolved::Value(value),
            Setting::Unknown => Resolved::Unknown,
            Setting::Unset => Resolved::Value(hint.default_value()),
        }
    }
}

/// What a client honouring the schema's defaults acts on for one hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The value set, or the default of a hint left out.
    Value(bool),
    /// Set to a value not known here (the finder's `?`).
    Unknown,
    /// Not meaningful for the tool.
    NotApplicable,
}

/// Returns how `tool` sets `hint`; `None` when it leaves it out.
pub fn state(tool: &ToolDef, hint: Hint) -> Option<HintState> {
    tool.hints[hint as usize]
}

/// Returns how `tool` sets each hint, for the schema's rules: `?` and `unknown` are
/// set to a value not known here.
pub fn settings(tool: &ToolDef) -> Settings {
    Settings(Hint::ALL.map(|hint| match state(tool, hint) {
        Some(HintState::True) => Setting::Value(true),
        Some(HintState::False) => Setting::Value(false),
        Some(HintState::Unresolved | HintState::Unknown) => Setting::Unknown,
        None => Setting::Unset,
    }))
}

/// Returns the cell of one hint as a person reads it, the way `probe` prints one:
/// `true`, `false` or `?` when set, else `absent -> ` and what a client resolves
/// (`n/a` where the hint is not meaningful).
pub fn reading(tool: &ToolDef, hint: Hint) -> String {
    match state(tool, hint) {
        Some(s) => s.as_str().to_string(),
        None => format!(
            "absent -> {}",
            match settings(tool).resolved(hint) {
                Resolved::Value(true) => "true",
                Resolved::Value(false) => "false",
                Resolved::Unknown => "?",
                Resolved::NotApplicable => "n/a",
            }
        ),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tools::{DefKind, Family, Role};

    /// Returns a definition of `a.ts` line 1 with `hints`.
    pub fn tool(hints: [Option<HintState>; 4]) -> ToolDef {
        ToolDef {
            path: b"a.ts".to_vec(),
            line: 1,
            kind: DefKind::Tool,
            role: Role::Source,
            family: Family::TypeScript,
            name: Some("t".into()),
            name_class: crate::tools::NameClass::Unknown,
            hints,
        }
    }

    #[test]
    fn a_question_mark_is_set_and_unknown() {
        let def = tool([
            Some(HintState::Unresolved),
            None,
            None,
            Some(HintState::Unresolved),
        ]);
        assert_eq!(
            settings(&def).omits(),
            [Hint::Destructive, Hint::Idempotent]
        );
        assert_eq!(settings(&def).resolved(Hint::ReadOnly), Resolved::Unknown);
        assert_eq!(reading(&def, Hint::Destructive), "absent -> true");
        assert_eq!(reading(&def, Hint::OpenWorld), "?");
        let read_only = tool([Some(HintState::True), None, None, None]);
        assert_eq!(settings(&read_only).omits(), [Hint::OpenWorld]);
        assert_eq!(reading(&read_only, Hint::Idempotent), "absent -> n/a");
    }
}
