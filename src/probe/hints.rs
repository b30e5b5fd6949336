//! Reads one tool's declared hints from its `tools/list` entry, and the `--require`
//! rules.
//!
//! Owns what a declaration on the wire is (a boolean, absent or `null`, or a value of
//! another type), a tool's name and title, and the `--require` rules. Which hints are
//! meaningful, which a tool omits and what a client resolves are the schema's rules,
//! applied by `tools::hints` to the [`Settings`] read here, as they are to a
//! definition found in source. It knows nothing of transports or output formats; it
//! takes a tool object as received and returns plain values.

use std::fmt;

use serde_json::Value;

use crate::tools::hints::{Hint, Resolved, Setting, Settings};

/// Returns the position of `hint` in [`Hint::ALL`], the column order.
fn index(hint: Hint) -> usize {
    hint as usize
}

/// What a tool declares for one hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Declared {
    True,
    False,
    /// Not there, or JSON `null`: both leave the client on the default.
    Absent,
    /// Present but not a boolean; holds the value as received, in compact JSON.
    Invalid(String),
}

impl Declared {
    /// Reads the declaration of `hint` from an annotations object, or from nothing.
    pub fn read(annotations: Option<&Value>, hint: Hint) -> Declared {
        match annotations.and_then(|a| a.get(hint.name())) {
            None | Some(Value::Null) => Declared::Absent,
            Some(Value::Bool(true)) => Declared::True,
            Some(Value::Bool(false)) => Declared::False,
            Some(other) => Declared::Invalid(other.to_string()),
        }
    }

    /// Returns the declared boolean, if the declaration is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Declared::True => Some(true),
            Declared::False => Some(false),
            Declared::Absent | Declared::Invalid(_) => None,
        }
    }

    /// Reads a CSV cell back: `true`, `false`, `absent` or `invalid` (whose value the
    /// cell does not keep); `None` for any other text.
    pub fn parse_cell(cell: &str) -> Option<Declared> {
        match cell {
            "true" => Some(Declared::True),
            "false" => Some(Declared::False),
            "absent" => Some(Declared::Absent),
            "invalid" => Some(Declared::Invalid(String::new())),
            _ => None,
        }
    }

    /// Returns the CSV and table cell: `true`, `false`, `absent` or `invalid`.
    pub fn cell(&self) -> &'static str {
        match self {
            Declared::True => "true",
            Declared::False => "false",
            Declared::Absent => "absent",
            Declared::Invalid(_) => "invalid",
        }
    }
}

impl fmt::Display for Declared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Declared::Invalid(raw) => write!(f, "invalid {raw}"),
            other => f.write_str(other.cell()),
        }
    }
}

/// Returns the name a tool entry goes by: its `name` string; else, for a `name` that is
/// not a string (a number, say), its compact JSON text; else, for an entry that is not
/// an object, the entry's compact JSON text; else the empty string.
pub fn display_name(tool: &Value) -> String {
    match tool {
        Value::Object(map) => match map.get("name") {
            Some(Value::String(name)) => name.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => other.to_string(),
        },
        other => other.to_string(),
    }
}

/// The hints one tool declares, read from its `tools/list` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolHints {
    pub name: String,
    /// The tool's `title`, else `annotations.title`, when it is a non-empty string.
    pub title: Option<String>,
    declared: [Declared; 4],
}

impl ToolHints {
    /// Reads a tool object as received; a missing or `null` `annotations` declares nothing.
    ///
    /// The name is [`display_name`]'s; the caller warns about a name that is not a string.
    pub fn from_tool(tool: &Value) -> ToolHints {
        let annotations = tool.get("annotations").filter(|a| a.is_object());
        let non_empty = |v: Option<&Value>| {
            v.and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string)
        };
        ToolHints {
            name: display_name(tool),
            title: non_empty(tool.get("title"))
                .or_else(|| non_empty(annotations.and_then(|a| a.get("title")))),
            declared: Hint::ALL.map(|hint| Declared::read(annotations, hint)),
        }
    }

    /// Returns a tool as a table wrote it: its name and each hint's declaration, in
    /// the schema's order.
    pub fn from_cells(name: String, declared: [Declared; 4]) -> ToolHints {
        ToolHints {
            name,
            title: None,
            declared,
        }
    }

    /// Returns what the tool declares for `hint`.
    pub fn declared(&self, hint: Hint) -> &Declared {
        &self.declared[index(hint)]
    }

    /// Returns true when the tool declares `hint` as a boolean.
    pub fn is_declared(&self, hint: Hint) -> bool {
        self.declared(hint).as_bool().is_some()
    }

    /// Returns how the tool sets each hint, for the schema's rules: a value that is
    /// not a boolean counts as left out, as an absent one does.
    pub fn settings(&self) -> Settings {
        Settings(Hint::ALL.map(|hint| match self.declared(hint).as_bool() {
            Some(value) => Setting::Value(value),
            None => Setting::Unset,
        }))
    }

    /// Returns the meaningful hints the tool leaves undeclared, an invalid value
    /// counting as undeclared, in the schema's order.
    pub fn omits(&self) -> Vec<Hint> {
        self.settings().omits()
    }

    /// Returns the value a client honouring the documented defaults acts on, or
    /// `None` (n/a) where the hint is not meaningful. An invalid value resolves to
    /// the default, as an absent one does.
    pub fn resolved(&self, hint: Hint) -> Option<bool> {
        match self.settings().resolved(hint) {
            Resolved::Value(value) => Some(value),
            // A declaration on the wire is a boolean or not one: never unknown.
            Resolved::NotApplicable | Resolved::Unknown => None,
        }
    }

    /// Returns true when none of the four hints is declared as a boolean.
    pub fn declares_nothing(&self) -> bool {
        Hint::ALL.into_iter().all(|h| !self.is_declared(h))
    }

    /// Returns true when the tool claims to be both read-only and destructive, which
    /// the schema allows but which contradicts itself.
    pub fn is_read_only_and_destructive(&self) -> bool {
        self.declared(Hint::ReadOnly) == &Declared::True
            && self.declared(Hint::Destructive) == &Declared::True
    }
}

/// A `--require` rule: what every tool must declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Every hint that is meaningful for the tool.
    Meaningful,
    /// All four hints.
    All,
    /// readOnlyHint, destructiveHint and openWorldHint (the ChatGPT app directory's review).
    OpenAi,
    /// A title, and readOnlyHint or destructiveHint (Anthropic's connector directory).
    Anthropic,
}

impl std::str::FromStr for Rule {
    type Err = String;

    /// Parses a rule as `--require` spells it.
    fn from_str(text: &str) -> Result<Rule, String> {
        Rule::parse(text).ok_or_else(|| {
            format!(
                "'{}' is not a rule; the rules are {}",
                crate::infra::sanitize::sanitize(text),
                Rule::NAMES
            )
        })
    }
}

impl Rule {
    /// Lists the rule names `--require` accepts.
    pub const NAMES: &'static str = "meaningful, all, openai, anthropic";

    /// Parses a `--require` value.
    fn parse(text: &str) -> Option<Rule> {
        match text {
            "meaningful" => Some(Rule::Meaningful),
            "all" => Some(Rule::All),
            "openai" => Some(Rule::OpenAi),
            "anthropic" => Some(Rule::Anthropic),
            _ => None,
        }
    }

    /// Returns the rule's name as `--require` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Meaningful => "meaningful",
            Rule::All => "all",
            Rule::OpenAi => "openai",
            Rule::Anthropic => "anthropic",
        }
    }

    /// Returns what `tool` lacks under this rule; empty when it passes.
    pub fn lacks(self, tool: &ToolHints) -> Vec<String> {
        let missing = |hints: &[Hint]| -> Vec<String> {
            hints
                .iter()
                .filter(|&&h| !tool.is_declared(h))
                .map(|h| h.name().to_string())
                .collect()
        };
        match self {
            Rule::Meaningful => tool.omits().iter().map(|h| h.name().to_string()).collect(),
            Rule::All => missing(&Hint::ALL),
            Rule::OpenAi => missing(&[Hint::ReadOnly, Hint::Destructive, Hint::OpenWorld]),
            Rule::Anthropic => {
                let mut lacks = Vec::new();
                if tool.title.is_none() {
                    lacks.push("title".to_string());
                }
                if !tool.is_declared(Hint::ReadOnly) && !tool.is_declared(Hint::Destructive) {
                    lacks.push(
                        "both readOnlyHint and destructiveHint (declaring either passes)"
                            .to_string(),
                    );
                }
                lacks
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(annotations: Value) -> ToolHints {
        ToolHints::from_tool(&json!({ "name": "t", "annotations": annotations }))
    }

    #[test]
    fn missing_and_null_annotations_declare_nothing() {
        for t in [
            ToolHints::from_tool(&json!({ "name": "t" })),
            tool(Value::Null),
            tool(json!({})),
        ] {
            assert!(t.declares_nothing());
            assert_eq!(t.omits(), Hint::ALL.to_vec());
            assert_eq!(
                Hint::ALL.map(|h| t.resolved(h)),
                [Some(false), Some(true), Some(false), Some(true)]
            );
        }
    }

    #[test]
    fn read_only_tools_need_only_open_world() {
        let t = tool(json!({ "readOnlyHint": true }));
        assert_eq!(t.omits(), vec![Hint::OpenWorld]);
        assert_eq!(t.resolved(Hint::Destructive), None);
        assert_eq!(t.resolved(Hint::Idempotent), None);
        assert_eq!(t.resolved(Hint::OpenWorld), Some(true));
        assert!(!t.declares_nothing());
    }

    #[test]
    fn explicit_false_is_declared_and_invalid_is_omitted() {
        let t = tool(
            json!({ "readOnlyHint": "yes", "destructiveHint": false, "idempotentHint": null }),
        );
        assert_eq!(
            t.declared(Hint::ReadOnly),
            &Declared::Invalid("\"yes\"".into())
        );
        assert_eq!(t.declared(Hint::Destructive), &Declared::False);
        assert_eq!(t.declared(Hint::Idempotent), &Declared::Absent);
        assert_eq!(
            t.omits(),
            vec![Hint::ReadOnly, Hint::Idempotent, Hint::OpenWorld]
        );
        assert_eq!(t.resolved(Hint::ReadOnly), Some(false));
        assert_eq!(t.resolved(Hint::Destructive), Some(false));
    }

    #[test]
    fn rules_name_what_is_missing() {
        let read_only = tool(json!({ "readOnlyHint": true, "openWorldHint": false }));
        assert!(Rule::Meaningful.lacks(&read_only).is_empty());
        assert_eq!(
            Rule::All.lacks(&read_only),
            ["destructiveHint", "idempotentHint"]
        );
        assert_eq!(Rule::OpenAi.lacks(&read_only), ["destructiveHint"]);
        assert_eq!(Rule::Anthropic.lacks(&read_only), ["title"]);

        let titled = ToolHints::from_tool(&json!({ "name": "t", "title": "T" }));
        assert_eq!(
            Rule::Anthropic.lacks(&titled),
            ["both readOnlyHint and destructiveHint (declaring either passes)"]
        );
        let annotated_title = tool(json!({ "title": "T", "destructiveHint": false }));
        assert!(Rule::Anthropic.lacks(&annotated_title).is_empty());
    }
}
