//! What TypeScript's lexer keeps of each bracket it has opened and not yet closed.

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Open {
    Paren,
    Bracket,
    Brace,
    /// `${` in a template literal: its `}` goes back into the template.
    Template,
    /// `{` in a JSX element: its `}` goes back into the element.
    JsxHole,
}

pub(super) struct Frame {
    pub(super) open: Open,
    pub(super) at: usize,
    /// A body or block: a `{` right after `)` or `=>`.
    pub(super) body: bool,
    /// Such a body that is a function's: after `=>`, after a function's
    /// parameters, or a callback's (right inside a call's parentheses).
    pub(super) function_body: bool,
    /// Such a body that the recogniser may read as a factory (see [`Candidate`](super::super::lexed::Candidate)).
    pub(super) named: bool,
    /// A `(` opening a declared or bound function's parameters (`function f(`).
    pub(super) function: bool,
    /// Inside the arguments of a call naming `ListToolsRequestSchema`, whose
    /// handler a recogniser searches.
    pub(super) kept: bool,
    /// The keys of an object literal that make it tool-shaped, seen right inside
    /// this brace ([`KEY_NAME`](super::KEY_NAME) and the others).
    pub(super) keys: u8,
    /// The brace is the value of an `annotations` key.
    pub(super) annotations: bool,
    /// The brace is the value of a schema's key (see `keys::is_schema`).
    pub(super) schema: bool,
    /// A brace given by a `=` outside every bracket (see [`Forms::constant`](super::super::lexed::Forms::constant)).
    pub(super) assigned: bool,
    /// A `(` after `key: name` (see [`Forms::keyed`](super::super::lexed::Forms::keyed)), and whether an object
    /// literal first inside it has the keys the recogniser needs of it.
    pub(super) keyed_call: bool,
    pub(super) keyed_object: bool,
    /// A brace opening the object literal first inside a keyed call's parentheses.
    pub(super) keyed_first: bool,
    /// A `(` opening the parameters of a function that is a handler key's value
    /// (see [`TypeScriptLexer::handler_colon`](super::TypeScriptLexer::handler_colon)).
    pub(super) handler_params: bool,
    /// A `(` opening the arguments of a Zod object schema (`z.object(`, see
    /// `keys::is_zod_object`).
    pub(super) zod: bool,
    /// A named body (see `named`) one of whose own statements, not a nested
    /// block's or function's, is `return` followed by what may open an object
    /// literal (see [`opens_a_literal`](super::super::lexed::opens_a_literal)).
    pub(super) returns: bool,
}

impl Frame {
    /// A template's substitution or a JSX hole at `at`, `kept` as its parent.
    pub(super) fn hole(open: Open, at: usize, kept: bool) -> Frame {
        Frame {
            open,
            at,
            body: false,
            function_body: false,
            named: false,
            function: false,
            kept,
            keys: 0,
            annotations: false,
            schema: false,
            assigned: false,
            keyed_call: false,
            keyed_object: false,
            keyed_first: false,
            handler_params: false,
            returns: false,
            zod: false,
        }
    }
}
