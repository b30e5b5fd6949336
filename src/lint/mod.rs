//! The lint: rules with stable ids that read one tool's hints beside what its name
//! says (docs/scan.md, "The lint"), the same for a definition found in source and a
//! tool on the wire. Each finding names the tool, says why in one line and suggests
//! annotations a maintainer can paste, spelt as the tool's SDK spells them.
//!
//! It reads the schema's rules from `tools::hints` and the name class from
//! `tools::names`; `scan` places findings at their file and line (and writes them as
//! SARIF, see `sarif`), `probe` prints them per tool. It never prints.

pub mod sarif;
mod spell;

use crate::tools::hints::{Hint, Setting, Settings};
use crate::tools::{Family, NameClass};

/// One rule of the lint. The ids are stable: a rule is never renumbered, a retired
/// id is never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// The tool declares no hint at all.
    DeclaresNothing,
    /// A write or destructive name declared `readOnlyHint: true`.
    NameContradicted,
    /// `readOnlyHint: true` beside `destructiveHint: true`.
    ReadOnlyDestructive,
    /// Some hints declared, a meaningful one left out.
    OmitsMeaningful,
}

impl Rule {
    /// Lists the rules in id order.
    pub const ALL: [Rule; 4] = [
        Rule::DeclaresNothing,
        Rule::NameContradicted,
        Rule::ReadOnlyDestructive,
        Rule::OmitsMeaningful,
    ];

    /// Returns the rule's stable id.
    pub const fn id(self) -> &'static str {
        match self {
            Rule::DeclaresNothing => "MHC001",
            Rule::NameContradicted => "MHC002",
            Rule::ReadOnlyDestructive => "MHC003",
            Rule::OmitsMeaningful => "MHC004",
        }
    }

    /// Returns the rule's name, in the PascalCase SARIF recommends.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::DeclaresNothing => "DeclaresNoHint",
            Rule::NameContradicted => "NameContradictsReadOnly",
            Rule::ReadOnlyDestructive => "ReadOnlyAndDestructive",
            Rule::OmitsMeaningful => "OmitsMeaningfulHint",
        }
    }

    /// Returns why the rule matters, in one line.
    pub const fn reason(self) -> &'static str {
        match self {
            Rule::DeclaresNothing => {
                "a tool that declares no hint is treated by every client following the \
                 schema as not read-only, destructive and open-world"
            }
            Rule::NameContradicted => {
                "a tool whose name reads as writing or destroying is declared read-only: \
                 one of the two is wrong, and a client trusts the declaration"
            }
            Rule::ReadOnlyDestructive => {
                "readOnlyHint true makes destructiveHint meaningless under the schema, so \
                 the pair says two things"
            }
            Rule::OmitsMeaningful => {
                "a meaningful hint left out is read as its default, which the author may \
                 not have meant"
            }
        }
    }

    /// Returns the SARIF level of the rule's results.
    pub const fn level(self) -> &'static str {
        match self {
            Rule::ReadOnlyDestructive => "error",
            _ => "warning",
        }
    }
}

/// Holds what the lint reads of one tool.
#[derive(Clone, Copy, Debug)]
pub struct Subject<'a> {
    /// The tool's name; `None` when it is not a literal.
    pub name: Option<&'a str>,
    pub class: NameClass,
    pub settings: Settings,
    /// The SDK family whose spelling suggestions take; `None` for the wire's JSON.
    pub family: Option<Family>,
}

/// Holds one finding: the rule broken, the message naming the tool, and the
/// annotations to paste. Text from outside (the name) is raw: escape it where it is
/// shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: Rule,
    pub message: String,
    pub suggestion: String,
}

/// Returns the values the class implies for the four hints, in the schema's order:
/// `None` where the hint is not meaningful for them. What the name cannot say
/// (open world, idempotence) is the schema's default, which clients assume today.
fn implied(class: NameClass) -> [Option<bool>; 4] {
    match class {
        NameClass::Read => [Some(true), None, None, Some(true)],
        NameClass::Write => [Some(false), Some(false), Some(false), Some(true)],
        NameClass::Destructive | NameClass::Unknown => {
            [Some(false), Some(true), Some(false), Some(true)]
        }
    }
}

/// Returns the tool's name as a message quotes it.
fn quoted(name: Option<&str>) -> String {
    match name {
        Some("") => "(no name)".to_string(),
        Some(name) => format!("'{name}'"),
        None => "(name not a literal)".to_string(),
    }
}

/// Returns every finding of the lint for one tool, in rule order. A tool that
/// declares nothing has that finding alone (its omissions are the same thing).
pub fn check(tool: &Subject) -> Vec<Finding> {
    let settings = &tool.settings;
    let name = quoted(tool.name);
    let class = tool.class.as_str();
    let spelt = |hints: &[(Hint, bool)]| spell::annotations(tool.family, hints);
    let mut out = Vec::new();
    if Hint::ALL.iter().all(|&h| settings.of(h) == Setting::Unset) {
        let hints: Vec<(Hint, bool)> = Hint::ALL
            .into_iter()
            .zip(implied(tool.class))
            .filter_map(|(h, v)| v.map(|v| (h, v)))
            .collect();
        let why = match tool.class {
            NameClass::Unknown => "its name does not say what it does: these are the \
                                   schema's defaults, review each"
                .to_string(),
            _ => format!(
                "its name reads as {class}; openWorldHint true unless it touches only its own data"
            ),
        };
        out.push(Finding {
            rule: Rule::DeclaresNothing,
            message: format!(
                "tool {name} declares no hint: every client following the schema treats it \
                 as not read-only, destructive and open-world"
            ),
            suggestion: format!("{} ({why})", spelt(&hints)),
        });
        return out;
    }
    let read_only = settings.of(Hint::ReadOnly) == Setting::Value(true);
    if read_only && matches!(tool.class, NameClass::Write | NameClass::Destructive) {
        let destructive = tool.class == NameClass::Destructive;
        out.push(Finding {
            rule: Rule::NameContradicted,
            message: format!(
                "tool {name} is declared readOnlyHint: true, but its name reads as {class}"
            ),
            suggestion: format!(
                "{} (or a name that says it only reads)",
                spelt(&[(Hint::ReadOnly, false), (Hint::Destructive, destructive)])
            ),
        });
    }
    if read_only && settings.of(Hint::Destructive) == Setting::Value(true) {
        let keep_read = matches!(tool.class, NameClass::Read | NameClass::Unknown);
        out.push(Finding {
            rule: Rule::ReadOnlyDestructive,
            message: format!(
                "tool {name} declares readOnlyHint: true beside destructiveHint: true"
            ),
            suggestion: match keep_read {
                true => format!(
                    "{} (and drop destructiveHint)",
                    spelt(&[(Hint::ReadOnly, true)])
                ),
                false => spelt(&[(Hint::ReadOnly, false), (Hint::Destructive, true)]),
            },
        });
    }
    let omits = settings.omits();
    if !omits.is_empty() {
        // The class's values where they agree with a declared readOnlyHint, else the
        // schema's defaults: what a client reads today.
        let agrees = match settings.of(Hint::ReadOnly) {
            Setting::Value(v) => implied(tool.class)[0] == Some(v),
            _ => true,
        };
        let values: Vec<(Hint, bool)> = omits
            .iter()
            .map(|&h| {
                let by_class = agrees.then(|| implied(tool.class)[h as usize]).flatten();
                (h, by_class.unwrap_or(h.default_value()))
            })
            .collect();
        let names: Vec<&str> = omits.iter().map(|h| h.name()).collect();
        out.push(Finding {
            rule: Rule::OmitsMeaningful,
            message: format!(
                "tool {name} omits {}; a client reads {} as the default",
                names.join(", "),
                if names.len() == 1 { "it" } else { "them" }
            ),
            suggestion: spelt(&values),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::hints::Setting::{Unknown, Unset, Value};

    fn subject(name: &str, settings: [Setting; 4]) -> Subject<'_> {
        Subject {
            name: Some(name),
            class: NameClass::of(Some(name), None),
            settings: Settings(settings),
            family: Some(Family::TypeScript),
        }
    }

    fn rules(findings: &[Finding]) -> Vec<&'static str> {
        findings.iter().map(|f| f.rule.id()).collect()
    }

    #[test]
    fn a_silent_read_name_is_told_to_declare_read_only() {
        let got = check(&subject("list_files", [Unset; 4]));
        assert_eq!(rules(&got), ["MHC001"]);
        assert!(
            got[0].message.contains("'list_files' declares no hint"),
            "{got:?}"
        );
        assert!(
            got[0].message.contains("destructive and open-world"),
            "{got:?}"
        );
        assert!(
            got[0]
                .suggestion
                .starts_with("annotations: { readOnlyHint: true, openWorldHint: true }"),
            "{got:?}"
        );
    }

    #[test]
    fn contradictions_and_omissions_are_each_one_finding() {
        let got = check(&subject(
            "delete_file",
            [Value(true), Value(true), Unset, Unset],
        ));
        assert_eq!(rules(&got), ["MHC002", "MHC003", "MHC004"]);
        assert!(got[1]
            .suggestion
            .contains("readOnlyHint: false, destructiveHint: true"));
        assert_eq!(
            got[2].message,
            "tool 'delete_file' omits openWorldHint; a client reads it as the default"
        );
        let got = check(&subject(
            "get_file",
            [Value(true), Value(true), Unset, Value(false)],
        ));
        assert_eq!(rules(&got), ["MHC003"]);
        let got = check(&subject(
            "create_file",
            [Value(true), Unset, Unset, Value(true)],
        ));
        assert_eq!(rules(&got), ["MHC002"]);
    }

    #[test]
    fn a_clean_or_unresolved_tool_has_no_finding() {
        assert!(check(&subject("get", [Value(true), Unset, Unset, Value(false)])).is_empty());
        let all = [Value(false), Value(true), Value(false), Value(true)];
        assert!(check(&subject("delete", all)).is_empty());
        assert!(check(&subject("x", [Unknown; 4])).is_empty());
    }

    #[test]
    fn omitted_hints_take_the_class_values_where_the_declaration_agrees() {
        let got = check(&subject("update_row", [Value(false), Unset, Unset, Unset]));
        assert_eq!(
            got[0].suggestion,
            "annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true }"
        );
        let got = check(&subject("get_row", [Value(false), Unset, Unset, Unset]));
        assert_eq!(
            got[0].suggestion,
            "annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true }"
        );
    }

    #[test]
    fn ids_are_stable_and_distinct() {
        let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        assert_eq!(ids, ["MHC001", "MHC002", "MHC003", "MHC004"]);
    }
}
