//! TypeScript's lexer (TSX's with JSX): where its function bodies and blocks are,
//! its quiet text (comments, JSX text and attribute strings, quoted strings that are
//! no key), and which forms of object literals it holds that the prefilter asks
//! about (see [`Forms`]).
//! Strings, comments, template literals, regular expressions and JSX are stepped
//! over, brackets matched; `None` for what it cannot follow.

use std::ops::Range;

use super::super::keys;
use super::lexed::{description_text, mark_binding, opens_a_literal, Candidate, Forms, Lexed};
use super::scan::{block_comment_end, is_ident, past_comments, string_end};

mod frame;
mod handler;
mod jsx;
mod types;
use frame::{Frame, Open};
use handler::{handler_function, After};
use jsx::{jsx_opens, jsx_step, Jsx};
use types::{return_type_body, type_declaration_body, type_parameters_end};

/// What came before, as far as telling a regular expression from a division and
/// a callback's body from a block needs it.
#[derive(Clone, Copy, PartialEq)]
enum Prev {
    /// The file's start, or punctuation after which an expression starts.
    Operator,
    /// A name, a number, a literal, or `)`/`]`: a `/` next divides.
    Operand,
    /// A keyword after which an expression starts (`return`, `typeof`).
    Keyword,
    /// `)`: a `{` next may open a function's body.
    CloseParen,
    /// `=>`: a `{` next opens an arrow function's body.
    Arrow,
}

/// A `name` key (the keys are those of [`keys`]).
const KEY_NAME: u8 = 1;
/// An `annotations` key whose value is an object literal with a hint key.
const KEY_HINTED: u8 = 2;
/// A schema key: `inputSchema`, `schema`, `parameters`.
const KEY_SCHEMA: u8 = 4;
/// A handler key: `handler`, `handle`, `execute`, `run`, `callback`.
const KEY_HANDLER: u8 = 8;
/// A hint key (`readOnlyHint`), in an `annotations` object.
const KEY_HINT: u8 = 16;
/// An `annotations` key, whatever its value.
const KEY_ANNOTATIONS: u8 = 32;
/// A spread (`...base`), which may bring any key.
const KEY_SPREAD: u8 = 64;

/// Returns the flag of a key the tool-shaped form reads, 0 for any other; a key
/// with an escape may be any of them.
fn key_flag(key: &[u8]) -> u8 {
    match key {
        _ if key == keys::NAME.as_bytes() => KEY_NAME,
        _ if keys::is_one_of(key, &keys::SCHEMA) => KEY_SCHEMA,
        _ if keys::is_one_of(key, &keys::HANDLER) => KEY_HANDLER,
        _ if keys::is_hint(key) => KEY_HINT,
        _ if key == keys::ANNOTATIONS.as_bytes() => KEY_ANNOTATIONS,
        _ if key.contains(&b'\\') => {
            KEY_NAME | KEY_SCHEMA | KEY_HANDLER | KEY_HINT | KEY_ANNOTATIONS
        }
        _ => 0,
    }
}

/// Returns true when what follows a word or a string at `at` makes it an object's
/// key: `:`, `,` or `}` (shorthand), `(` or `<` (a method), past white space,
/// comments and a `?`; a `/` there may be any of them. Comments are stepped over as
/// white space, as in the file's code (see [`Lexed::code`]): the form is the one the
/// code has, the text the prefilter searches for anchors (`prefilter::anchored`).
fn key_follows(bytes: &[u8], at: usize) -> bool {
    let rest = past_comments(&bytes[at..]);
    let rest = rest.strip_prefix(b"?").map_or(rest, past_comments);
    matches!(rest.first(), Some(b':' | b',' | b'}' | b'(' | b'<' | b'/'))
}

/// Where the value of a key the lexer follows (`annotations`, a schema's) is being
/// read.
#[derive(Clone, Copy, PartialEq)]
enum KeyValue {
    None,
    /// The key was read.
    Key,
    /// Its `:` was read: a `{` next is its value.
    Colon,
}

/// Where a keyed call (`key: f({`, see [`Forms::keyed`]) is being read.
#[derive(Clone, Copy, PartialEq)]
enum Keyed {
    None,
    /// An object's key was read.
    Key,
    /// Its `:` was read.
    Colon,
    /// A name after it was read: a `(` next may open the call.
    Callee,
}

/// Returns the forms TypeScript source (TSX with `jsx`) holds (see [`Forms`]);
/// `None` when the lexer cannot follow it.
#[cfg(test)]
pub(in crate::tools) fn typescript_forms(bytes: &[u8], jsx: bool) -> Option<Forms> {
    typescript_lex(bytes, jsx, true).map(|read| read.forms)
}

/// Keywords after which a `/` starts a regular expression.
const EXPRESSION_KEYWORDS: [&[u8]; 13] = [
    b"return",
    b"typeof",
    b"case",
    b"do",
    b"else",
    b"in",
    b"of",
    b"new",
    b"delete",
    b"void",
    b"throw",
    b"instanceof",
    b"yield",
];

/// TypeScript's bodies and blocks: a `{` right after `=>`, after `)`, or after a
/// return type that follows `)`. With `jsx` (TSX), a `<` where an expression starts
/// opens a JSX element (see [`jsx_step`]). Without `types` (JavaScript) no type is
/// spelled: a `{` after `): word` opens no body, `interface` and `type` declare
/// nothing. `None` when the lexer cannot follow the file.
pub(super) fn typescript_lex(bytes: &[u8], jsx: bool, types: bool) -> Option<Lexed> {
    let mut lexer = TypeScriptLexer {
        bytes,
        jsx,
        types,
        hoisted: Vec::new(),
        functions: Vec::new(),
        i: 0,
        out: Vec::new(),
        quiet: Vec::new(),
        comments: Vec::new(),
        elements: Vec::new(),
        forms: Forms::default(),
        annotations: KeyValue::None,
        schema: KeyValue::None,
        description: KeyValue::None,
        handler: KeyValue::None,
        handler_colon: None,
        handler_after: After::None,
        texts: Vec::new(),
        separated: true,
        key_start: false,
        assigned: false,
        keyed: Keyed::None,
        stack: Vec::new(),
        prev: Prev::Operator,
        function_pending: false,
        closed_function: false,
        typed_body: None,
        last_was_function: false,
        last_was_modifier: false,
        binding: Vec::new(),
    };
    while lexer.i < bytes.len() {
        lexer.step()?;
    }
    if !lexer.stack.is_empty() {
        return None;
    }
    mark_binding(&mut lexer.out, &lexer.binding);
    // A `var` is seen outside a block it is declared in, not outside its function.
    // In TypeScript a function's body holding one stays too, so that what the
    // finder reads of names bound inside functions stays what a whole parse reads;
    // in JavaScript (bundles, where most functions hold one) it is left out, a name
    // bound only there not read (docs/method.md, "Which bytes of a file are parsed").
    for (c, &function) in lexer.out.iter_mut().zip(&lexer.functions) {
        if !function || lexer.types {
            let first = lexer.hoisted.partition_point(|&at| at < c.search.start);
            c.binds |= lexer
                .hoisted
                .get(first)
                .is_some_and(|&at| at < c.search.end);
        }
    }
    Some(Lexed {
        candidates: lexer.out,
        quiet: lexer.quiet,
        comments: lexer.comments,
        texts: lexer.texts,
        forms: lexer.forms,
    })
}

/// Where [`typescript_lex`] stands in a file, and what it has read so far.
struct TypeScriptLexer<'a> {
    bytes: &'a [u8],
    jsx: bool,
    /// The next byte to read.
    i: usize,
    out: Vec<Candidate>,
    quiet: Vec<Range<usize>>,
    comments: Vec<Range<usize>>,
    /// The state of each JSX element a `{...}` hole was opened in, innermost last.
    elements: Vec<Jsx>,
    forms: Forms,
    annotations: KeyValue,
    schema: KeyValue,
    /// A `description` key starting a property (see `key_start`), and its value.
    description: KeyValue,
    /// A handler key (`keys::HANDLER`) starting a property, and its `:`.
    handler: KeyValue,
    /// Where the value after such a key's `:` starts: a `(` opening a function's
    /// parameters there, after nothing but `async` or `function` (and its name),
    /// opens a handler's (see [`handler_function`]).
    handler_colon: Option<usize>,
    /// Where the tokens after a handler's parameters are (see [`After`]).
    handler_after: After,
    /// See [`Lexed::texts`].
    texts: Vec<Range<usize>>,
    /// The last token was `{` or `,`, after which a property starts.
    separated: bool,
    /// The token being read follows `{` or `,`: a key there starts a property
    /// (`cond ? description : "x"` holds none).
    key_start: bool,
    /// The last token was a `=` that assigns (no `==`, `=>`, `<=`).
    assigned: bool,
    keyed: Keyed,
    stack: Vec<Frame>,
    prev: Prev,
    /// `function`, `function*` or `function name` was just read: a `(` next opens
    /// a declared or bound function's parameters.
    function_pending: bool,
    /// The last `)` closed such parameters.
    closed_function: bool,
    /// Where the body after a return type (`): Promise<void> {`) opens.
    typed_body: Option<usize>,
    last_was_function: bool,
    /// The last word was `export` or `declare`, and nothing came after it.
    last_was_modifier: bool,
    /// Where the code's binding spellings stand (see [`Candidate::binds`]).
    binding: Vec<usize>,
    /// Types may be spelled (TypeScript, not JavaScript).
    types: bool,
    /// Where the code's `var`s stand: seen outside the blocks they are declared in.
    hoisted: Vec<usize>,
    /// For each candidate of `out`, whether it is a function's body (a `var` in it
    /// is its own), not a block.
    functions: Vec<bool>,
}

impl KeyValue {
    /// The state a `:` leaves: a key read is followed by its value.
    fn after_colon(self) -> KeyValue {
        match self {
            KeyValue::Key => KeyValue::Colon,
            _ => KeyValue::None,
        }
    }
}

impl TypeScriptLexer<'_> {
    /// An object's key was read: the values of `annotations` and of a schema's
    /// key are followed.
    fn key_read(&mut self, key: &[u8]) {
        if key == keys::ANNOTATIONS.as_bytes() {
            self.annotations = KeyValue::Key;
        }
        if keys::is_schema(key) {
            self.schema = KeyValue::Key;
        }
        if key == b"description" && self.key_start {
            self.description = KeyValue::Key;
        }
        if self.key_start && keys::is_one_of(key, &keys::HANDLER) {
            self.handler = KeyValue::Key;
        }
    }

    /// Reads what starts at `i`: white space, a comment, a string, template, regular
    /// expression or JSX element whole, a bracket, a word or a punctuation mark.
    fn step(&mut self) -> Option<()> {
        let (bytes, i, n) = (self.bytes, self.i, self.bytes.len());
        let b = bytes[i];
        // A declared function's type parameters, `function f<T>(`: its `(` still
        // opens the function's parameters.
        if b == b'<' && self.function_pending && self.types {
            if let Some(end) = type_parameters_end(bytes, i) {
                self.i = end;
                return Some(());
            }
        }
        if !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'*' | b'(') && !is_ident(b) {
            self.function_pending = false;
        }
        let space = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        if !space && !is_ident(b) {
            self.last_was_modifier = false;
        }
        let comment = b == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*'));
        // A description's value, if a string starts here.
        let described = self.description == KeyValue::Colon && matches!(b, b'"' | b'\'' | b'`');
        if !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b':' | b'{') && !comment {
            self.annotations = KeyValue::None;
            self.schema = KeyValue::None;
            self.description = KeyValue::None;
            self.handler = KeyValue::None;
        }
        if !space && !comment {
            self.key_start = std::mem::replace(&mut self.separated, matches!(b, b'{' | b','));
            self.handler_after = self
                .handler_after
                .next(b, bytes.get(i + 1), self.stack.len());
        }
        // What the last token began, for the next one (white space and comments
        // stand between them).
        let (assigned, keyed) = match space || comment {
            true => (self.assigned, self.keyed),
            false => (
                std::mem::take(&mut self.assigned),
                std::mem::replace(&mut self.keyed, Keyed::None),
            ),
        };
        match b {
            // A run of white space at once: between tokens, it changes no state.
            b' ' | b'\t' | b'\n' | b'\r' => {
                self.i = bytes[i..]
                    .iter()
                    .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                    .map_or(n, |run| i + run);
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                self.i = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |e| i + e);
                self.comments.push(i..self.i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                self.i = block_comment_end(bytes, i, false)?;
                self.comments.push(i..self.i);
            }
            b'/' if matches!(self.prev, Prev::Operand | Prev::CloseParen) => {
                self.i += 1;
                self.prev = Prev::Operator;
            }
            b'/' => {
                self.i = regex_end(bytes, i)?;
                self.prev = Prev::Operand;
            }
            b'\'' | b'"' => self.string(described)?,
            b'`' => {
                let depth = self.stack.len();
                self.i = template_end(bytes, i + 1, &mut self.stack)?;
                // A template without substitutions is text only.
                if described && self.stack.len() == depth {
                    self.text(i + 1..self.i - 1);
                }
                self.prev = Prev::Operand;
            }
            b'<' if self.jsx
                && matches!(self.prev, Prev::Operator | Prev::Keyword | Prev::Arrow)
                && jsx_opens(bytes, i) =>
            {
                let state = Jsx {
                    depth: 1,
                    in_tag: true,
                };
                self.jsx_from(i + 1, state)?;
            }
            b'(' | b'[' | b'{' => self.open(b, assigned, keyed),
            b')' | b']' => self.close(b)?,
            b'}' => self.close_brace()?,
            b'=' if bytes.get(i + 1) == Some(&b'>') => {
                self.i += 2;
                self.prev = Prev::Arrow;
            }
            _ if is_ident(b) => self.word(keyed),
            _ => {
                if b == b'.' && bytes[i..].starts_with(b"...") {
                    if let Some(top) = self.stack.last_mut().filter(|f| f.open == Open::Brace) {
                        top.keys |= KEY_SPREAD;
                    }
                }
                if b == b':' {
                    self.annotations = self.annotations.after_colon();
                    self.schema = self.schema.after_colon();
                    self.description = self.description.after_colon();
                    if self.handler.after_colon() == KeyValue::Colon {
                        self.handler_colon = Some(i + 1);
                    }
                    self.handler = KeyValue::None;
                    if keyed == Keyed::Key {
                        self.keyed = Keyed::Colon;
                    }
                }
                self.assigned = b == b'='
                    && !matches!(bytes.get(i + 1), Some(b'='))
                    && !i
                        .checked_sub(1)
                        .is_some_and(|p| matches!(bytes[p], b'=' | b'!' | b'<' | b'>'));
                // TypeScript's non-null assertion (`ranks.get(p)! / n`): a `!` right
                // after an operand on its line, no `=` after it, leaves an operand.
                let non_null = b == b'!'
                    && self.types
                    && matches!(self.prev, Prev::Operand | Prev::CloseParen)
                    && bytes.get(i + 1) != Some(&b'=')
                    && bytes[..i]
                        .iter()
                        .rev()
                        .find(|&&b| !matches!(b, b' ' | b'\t'))
                        .is_some_and(|&b| !matches!(b, b'\n' | b'\r'));
                self.i += 1;
                self.prev = match non_null {
                    true => Prev::Operand,
                    false => Prev::Operator,
                };
            }
        }
        Some(())
    }

    /// Reads JSX from `at` in `state` (see [`jsx_step`]).
    fn jsx_from(&mut self, at: usize, state: Jsx) -> Option<()> {
        self.i = jsx_step(
            self.bytes,
            at,
            state,
            &mut self.stack,
            &mut self.elements,
            &mut self.quiet,
        )?;
        self.prev = Prev::Operand;
        Some(())
    }

    /// Keeps `inside`, a description's string, among the texts the parse may
    /// leave out when it is the key's whole value (a `,` or `}` follows) and long
    /// enough to be worth a range of its own.
    fn text(&mut self, inside: Range<usize>) {
        let after = &self.bytes[inside.end + 1..];
        self.texts.extend(description_text(inside, after));
    }

    /// A quoted string, which may be an object's key. One that is no key is quiet
    /// inside its quotes: no recogniser reads code or a key there, and a bundle or a
    /// page held in a string literal spells anchors that register nothing. One
    /// continued across lines keeps its bytes, so that its code still lexes.
    /// `described`: it is a `description` key's value (see [`Lexed::texts`]), no key.
    fn string(&mut self, described: bool) -> Option<()> {
        let start = self.i;
        self.i = string_end(self.bytes, start)?;
        let i = self.i;
        let inside = start + 1..i - 1;
        if !described
            && self.stack.last().is_some_and(|f| f.open == Open::Brace)
            && key_follows(self.bytes, i)
        {
            let key = &self.bytes[inside];
            let top = self.stack.last_mut().expect("a brace is open");
            top.keys |= key_flag(key);
            self.key_read(key);
            self.keyed = Keyed::Key;
        } else if !inside.is_empty()
            && memchr::memchr2(b'\n', b'\r', &self.bytes[inside.clone()]).is_none()
        {
            if described {
                self.text(inside.clone());
            }
            self.quiet.push(inside);
        }
        self.prev = Prev::Operand;
        Some(())
    }

    /// A `(`, `[` or `{` at `i`; `assigned` and `keyed` say what the token before it
    /// began (see [`Forms`]).
    fn open(&mut self, b: u8, assigned: bool, keyed: Keyed) {
        let i = self.i;
        // An object literal first inside a keyed call's parentheses.
        let bytes = self.bytes;
        let first_inside =
            |call: &Frame| bytes.len() - past_comments(&bytes[call.at + 1..]).len() == i;
        let keyed_first = b == b'{'
            && self
                .stack
                .last()
                .is_some_and(|call| call.keyed_call && first_inside(call));
        // A Zod object schema's shape, which the recogniser never reads.
        let zod_shape = b == b'{'
            && self
                .stack
                .last()
                .is_some_and(|call| call.zod && first_inside(call));
        let kept = self.stack.last().is_some_and(|f| f.kept);
        let body = b == b'{'
            && (matches!(self.prev, Prev::Arrow | Prev::CloseParen) || self.typed_body == Some(i));
        // A callback's body: right inside a call's parentheses.
        let callback = body && self.stack.last().is_some_and(|f| f.open == Open::Paren);
        // A factory the recogniser may read: a declared function, or an
        // arrow function that is no call's argument (bound to a name, a
        // class field's value), nor a handler key's value.
        let handler = body
            && match self.handler_after {
                After::Arrow => self.prev == Prev::Arrow,
                After::Params(_) => self.closed_function && self.prev == Prev::CloseParen,
                After::ReturnType(_) => self.closed_function && self.typed_body == Some(i),
                After::None => false,
            };
        let named = !(callback || handler) && (self.prev == Prev::Arrow || self.closed_function);
        let handler_params = b == b'('
            && self
                .handler_colon
                .take()
                .is_some_and(|at| handler_function(&bytes[at..i]));
        if body {
            self.handler_after = After::None;
        }
        self.stack.push(Frame {
            open: match b {
                b'(' => Open::Paren,
                b'[' => Open::Bracket,
                _ => Open::Brace,
            },
            at: i,
            body,
            function_body: body
                && (callback
                    || self.prev == Prev::Arrow
                    || self.closed_function
                    || self.typed_body == Some(i)),
            named,
            function: b == b'(' && self.function_pending,
            kept,
            keys: 0,
            annotations: b == b'{' && self.annotations == KeyValue::Colon,
            schema: b == b'{' && (self.schema == KeyValue::Colon || zod_shape),
            assigned: b == b'{' && assigned && self.stack.is_empty(),
            keyed_call: b == b'(' && keyed == Keyed::Callee,
            keyed_object: false,
            keyed_first,
            handler_params,
            zod: b == b'(' && keys::is_zod_object(callee_before(&bytes[..i])),
            returns: false,
        });
        self.function_pending = false;
        self.annotations = KeyValue::None;
        self.schema = KeyValue::None;
        self.description = KeyValue::None;
        self.i += 1;
        self.prev = Prev::Operator;
    }

    /// A `)` or `]` at `i`; `None` when it closes no bracket of its kind.
    fn close(&mut self, b: u8) -> Option<()> {
        let frame = self.stack.pop()?;
        let want = if b == b')' {
            Open::Paren
        } else {
            Open::Bracket
        };
        if frame.open != want {
            return None;
        }
        self.closed_function = frame.function;
        if frame.handler_params {
            self.handler_after = After::Params(self.stack.len());
        }
        self.i += 1;
        let i = self.i;
        // A call, unless the parentheses were an arrow function's parameters.
        self.forms.keyed |= frame.keyed_call
            && frame.keyed_object
            && !past_comments(&self.bytes[i..]).starts_with(b"=>");
        self.prev = if b == b')' {
            // Unless inside a declaration's type parameters, whose body is ahead.
            if self.types && self.typed_body.is_none_or(|at| at < i) {
                self.typed_body = return_type_body(self.bytes, i);
            }
            Prev::CloseParen
        } else {
            Prev::Operand
        };
        Some(())
    }

    /// A `}` at `i`: it closes a brace (an object, a body or a block), a template's
    /// substitution or a JSX hole; `None` when it closes nothing of these.
    fn close_brace(&mut self) -> Option<()> {
        let i = self.i;
        let frame = self.stack.pop()?;
        match frame.open {
            Open::Brace => {
                let k = frame.keys;
                // The recogniser reads an object passed to a call.
                let argument = self.stack.last().is_some_and(|f| f.open == Open::Paren);
                self.forms.shaped |= argument
                    && k & KEY_NAME != 0
                    && (k & KEY_HINTED != 0 || (k & KEY_SCHEMA != 0 && k & KEY_HANDLER != 0));
                self.forms.constant |= frame.assigned && k & KEY_NAME != 0 && k & KEY_SCHEMA != 0;
                if frame.annotations && k & KEY_HINT != 0 {
                    if let Some(parent) = self.stack.last_mut() {
                        parent.keys |= KEY_HINTED;
                    }
                }
                // What the recogniser needs of a keyed call's object (see
                // `keyed`): a hint in its `annotations`, or a schema beside a
                // handler, any of them maybe brought by a spread.
                if frame.keyed_first
                    && (k & (KEY_ANNOTATIONS | KEY_SPREAD) != 0
                        || k & KEY_SCHEMA != 0 && k & KEY_HANDLER != 0)
                {
                    if let Some(call) = self.stack.last_mut() {
                        call.keyed_object = true;
                    }
                }
                // A body, or a schema's object literal, which the recogniser reads
                // as a schema without reading inside it: left out of the parse
                // unless it holds an anchor or a binding spelling, as a block is.
                // A list-tools handler's bodies stay (the recogniser reads what
                // it returns), its tools' schemas do not.
                if frame.schema || (frame.body && !frame.kept) {
                    let mut body = Candidate::body(frame.at + 1..i, frame.body && frame.named);
                    body.returns = frame.returns;
                    self.out.push(body);
                    self.functions.push(frame.function_body);
                }
                self.i += 1;
                self.prev = Prev::Operator;
            }
            Open::Template => {
                self.i = template_end(self.bytes, i + 1, &mut self.stack)?;
                self.prev = Prev::Operand;
            }
            Open::JsxHole => {
                let state = self.elements.pop()?;
                self.jsx_from(i + 1, state)?;
            }
            _ => return None,
        }
        Some(())
    }

    /// A word starting at `i`: a keyword, a name, a number, or an object's key;
    /// `keyed` says what the token before it began (see [`Forms::keyed`]).
    fn word(&mut self, keyed: Keyed) {
        let (bytes, start) = (self.bytes, self.i);
        let mut i = start;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        self.i = i;
        let word = &bytes[start..i];
        if matches!(word, b"import" | b"require" | b"exports") {
            self.binding.push(start);
        }
        if word == b"var" {
            self.hoisted.push(start);
        }
        if word == b"return" {
            if let Some(body) = self.stack.last_mut().filter(|f| f.body && f.named) {
                body.returns |= opens_a_literal(&bytes[i..]);
            }
        }
        // `function name (`: the name is the one word allowed in between.
        self.function_pending =
            word == b"function" || (self.function_pending && self.last_was_function);
        self.last_was_function = word == b"function";
        // A declaration of types only: `interface I {`, `type T = {`.
        let declares = self.prev == Prev::Operator || self.last_was_modifier;
        self.last_was_modifier = matches!(word, b"export" | b"declare");
        if self.types && declares && matches!(word, b"interface" | b"type") {
            if let Some(at) = type_declaration_body(bytes, i, word == b"type") {
                self.typed_body = Some(at);
            }
        }
        // As the recogniser reads the handler's first argument, a name a bundler
        // suffixed (`ListToolsRequestSchema2`) included.
        if memchr::memmem::find(word, b"ListToolsRequestSchema").is_some() {
            if let Some(top) = self.stack.last_mut() {
                top.kept = true;
            }
        }
        if let Some(top) = self.stack.last_mut().filter(|f| f.open == Open::Brace) {
            if key_follows(bytes, i) {
                top.keys |= key_flag(word);
                self.key_read(word);
                self.keyed = Keyed::Key;
            }
        }
        if keyed == Keyed::Colon {
            self.keyed = Keyed::Callee;
        }
        self.prev =
            if EXPRESSION_KEYWORDS.contains(&word) || word == b"await" || word == b"function" {
                Prev::Keyword
            } else {
                Prev::Operand
            };
    }
}

/// Returns the dotted name that ends `before` (the text before a `(`), white space
/// after it left out: the callee of a call written plainly (`zod_1.z.object`).
fn callee_before(before: &[u8]) -> &[u8] {
    let before = before.trim_ascii_end();
    let start = before
        .iter()
        .rposition(|&b| !(is_ident(b) || b == b'.'))
        .map_or(0, |at| at + 1);
    &before[start..]
}

/// Steps through a template literal from `i` (past its opening backtick or a
/// `}` closing a substitution): returns the index past its closing backtick, or
/// past a `${`, pushing a frame for it.
fn template_end(bytes: &[u8], mut i: usize, stack: &mut Vec<Frame>) -> Option<usize> {
    loop {
        // The template's text up to the next byte that needs a look, at once.
        i += memchr::memchr3(b'\\', b'`', b'$', bytes.get(i..)?)?;
        match bytes[i] {
            b'\\' => i += 2,
            b'`' => return Some(i + 1),
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                stack.push(Frame::hole(
                    Open::Template,
                    i + 1,
                    stack.last().is_some_and(|f| f.kept),
                ));
                return Some(i + 2);
            }
            _ => i += 1,
        }
    }
}

/// Returns the index past a regular expression literal that starts at `at`
/// (its flags included); `None` when it is not closed on its line.
fn regex_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    let mut class = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return None,
            b'[' => {
                class = true;
                i += 1;
            }
            b']' => {
                class = false;
                i += 1;
            }
            b'/' if !class => {
                i += 1;
                while i < bytes.len() && is_ident(bytes[i]) {
                    i += 1;
                }
                return Some(i);
            }
            _ => i += 1,
        }
    }
    None
}
