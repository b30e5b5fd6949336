//! Tool wrappers: a function of the tree that takes a tool's name and hands SDK
//! options on (mcp-grafana's `MustTool(name, description string, handler,
//! options ...mcp.ToolOption)`, which passes them to mcp-go), so that each call of
//! it defines one tool, named by the argument in the name's place, its hints the
//! options the call passes (docs/method.md, "What a tool definition is, per
//! family"). A recogniser binds a wrapper's name to [`binding`] and records a call
//! that passes options as [`call`]; the resolver reads such a call as a tool only
//! when it resolves to a wrapper's object, which holds [`FORWARDS`].

use super::value::{Param, Prop, Val};

/// The field a wrapper's object holds, and no object written in source can: its
/// name is no identifier of any language the finder reads.
pub(crate) const FORWARDS: &str = "...forwards";

/// The parameter a call's options are bound to, by keyword (see [`call`]).
const OPTIONS: &str = "...options";

/// Returns what a wrapper of `params` reads as: a factory of one tool object,
/// named by its parameter `name`, its annotations the options a call passes.
pub(crate) fn binding(line: u32, mut params: Vec<Param>, name: &str) -> Val {
    params.push(Param {
        name: OPTIONS.to_string(),
        default: None,
    });
    let tool = Val::obj(
        line,
        vec![
            Prop::Field("name".to_string(), Val::name_ref(name)),
            Prop::Field("annotations".to_string(), Val::name_ref(OPTIONS)),
            Prop::Field(FORWARDS.to_string(), Val::Bool(true)),
        ],
    );
    Val::Returns(params, Box::new(tool))
}

/// Returns a call of `function` with `args` in order, the hints its options set
/// (`annotations`, fields named as the schema names them) given to the wrapper's
/// options parameter.
pub(crate) fn call(function: Val, mut args: Vec<Val>, line: u32, annotations: Vec<Prop>) -> Val {
    args.push(Val::Keyword(
        OPTIONS.to_string(),
        Box::new(Val::obj(line, annotations)),
    ));
    Val::Call(Box::new(function), args)
}
