//! Reads a tool definition found in source under the MCP schema's rules: which hints
//! are meaningful for it, which it omits, and what a client would act on.
//!
//! These are the rules `probe` applies to a tool on the wire (see `probe::hints`):
//! destructiveHint and idempotentHint are meaningful only when readOnlyHint is not
//! true, and an undeclared hint resolves to the schema's default. The one addition is
//! `?`, a hint set by an expression the finder could not resolve: it counts as set
//! (the author did declare it), its value is unknown, and a readOnlyHint of `?` leaves
//! the other two meaningful, since it may be false (docs/method.md, "Tools"). This
//! module only reads; it never prints.

use crate::tools::{HintState, ToolDef};

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

/// Returns how `tool` sets `hint`; `None` when it leaves it out.
pub fn state(tool: &ToolDef, hint: Hint) -> Option<HintState> {
    tool.hints[hint as usize]
}

/// Returns true when `hint` tells a client something for `tool`: every hint does,
/// except destructiveHint and idempotentHint on a tool that sets readOnlyHint true.
pub fn is_meaningful(tool: &ToolDef, hint: Hint) -> bool {
    match hint {
        Hint::Destructive | Hint::Idempotent => {
            state(tool, Hint::ReadOnly) != Some(HintState::True)
        }
        Hint::ReadOnly | Hint::OpenWorld => true,
    }
}

/// Returns the meaningful hints `tool` leaves out, in the schema's order.
pub fn omits(tool: &ToolDef) -> Vec<Hint> {
    Hint::ALL
        .into_iter()
        .filter(|&h| is_meaningful(tool, h) && state(tool, h).is_none())
        .collect()
}

/// What a client honouring the schema's defaults acts on for one hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The value set, or the default of a hint left out.
    Value(bool),
    /// Set by an expression the finder could not resolve.
    Unknown,
    /// Not meaningful for the tool.
    NotApplicable,
}

/// Returns what a client acts on for `hint` of `tool`.
pub fn resolved(tool: &ToolDef, hint: Hint) -> Resolved {
    if !is_meaningful(tool, hint) {
        return Resolved::NotApplicable;
    }
    match state(tool, hint) {
        Some(HintState::True) => Resolved::Value(true),
        Some(HintState::False) => Resolved::Value(false),
        Some(HintState::Unresolved | HintState::Unknown) => Resolved::Unknown,
        None => Resolved::Value(hint.default_value()),
    }
}

/// Returns the cell of one hint as a person reads it, the way `probe` prints one:
/// `true`, `false` or `?` when set, else `absent -> ` and what a client resolves
/// (`n/a` where the hint is not meaningful).
pub fn reading(tool: &ToolDef, hint: Hint) -> String {
    match state(tool, hint) {
        Some(s) => s.as_str().to_string(),
        None => format!(
            "absent -> {}",
            match resolved(tool, hint) {
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
        assert_eq!(omits(&def), [Hint::Destructive, Hint::Idempotent]);
        assert_eq!(resolved(&def, Hint::ReadOnly), Resolved::Unknown);
        assert_eq!(reading(&def, Hint::Destructive), "absent -> true");
        assert_eq!(reading(&def, Hint::OpenWorld), "?");
        let read_only = tool([Some(HintState::True), None, None, None]);
        assert_eq!(omits(&read_only), [Hint::OpenWorld]);
        assert_eq!(reading(&read_only, Hint::Idempotent), "absent -> n/a");
    }
}
