//! What a TypeScript or JavaScript file imports and exports: `import`, `export
//! ... from`, `require` (also through compilers' interop helpers), modules imported
//! for their effect alone, and the exports compilers write for `export { x } from`
//! and `export *`: `tsc`'s `exports.x = ...`, `Object.defineProperty(exports, "x",
//! { get })` and `__exportStar(require("./x"), exports)`, a bundler's namespace
//! object (esbuild's `__export`, webpack's `__webpack_require__.d`).

use tree_sitter::Node;

use crate::tools::packages::spec_of;
use crate::tools::sdk::syntax::{children, line, text, unquote, Named};
use crate::tools::value::{FileSummary, Import, Prop, Spec, Val};

use super::values::{returned_expression, val};

/// Returns the module of `require("./x")` or `require("pkg")`, also as the
/// interop helpers of compilers wrap it (`__importStar(require("./x"))`,
/// `__importDefault(...)`, esbuild's `__toESM(...)`, under any name).
pub(super) fn require_of(value: Node, src: &[u8]) -> Option<Spec> {
    if value.kind_name() != "call_expression" {
        return None;
    }
    let function = value.field("function")?;
    let args = children(value.field("arguments")?);
    let first = args.first().copied()?;
    if text(function, src) != "require" {
        return match (args.len(), first.kind_name()) {
            (1 | 2, "call_expression")
                if first
                    .field("function")
                    .is_some_and(|f| text(f, src) == "require") =>
            {
                require_of(first, src)
            }
            _ => None,
        };
    }
    module_spec(first, src)
}

pub(super) fn destructured_imports(pattern: Node, src: &[u8], rel: &Spec, out: &mut FileSummary) {
    for p in children(pattern) {
        match p.kind_name() {
            "shorthand_property_identifier_pattern" => {
                let n = text(p, src);
                out.import(
                    n,
                    Import {
                        rel: rel.clone(),
                        name: Some(n.to_string()),
                    },
                );
            }
            "pair_pattern" => {
                if let (Some(k), Some(v)) = (p.field("key"), p.field("value")) {
                    if v.kind_name() == "identifier" {
                        out.import(
                            text(v, src),
                            Import {
                                rel: rel.clone(),
                                name: Some(text(k, src).to_string()),
                            },
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// Returns the module a string node names: relative (`./x`), or by package
/// (`@acme/core`, `@/lib/x`; see `packages`).
pub(super) fn module_spec(node: Node, src: &[u8]) -> Option<Spec> {
    if node.kind_name() != "string" {
        return None;
    }
    let spec = unquote(text(node, src))?;
    (!spec.is_empty()).then(|| spec_of(&spec))
}

/// Reads `exports.NAME = value` and `module.exports.NAME = value` (not `void 0`).
pub(super) fn commonjs_export(node: Node, src: &[u8], top: &mut Vec<(String, Val)>) {
    let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
        return;
    };
    // `exports.a = exports.b = void 0` declares; the inner assignment is read apart.
    if left.kind_name() != "member_expression"
        || text(right, src).starts_with("void")
        || right.kind_name() == "assignment_expression"
    {
        return;
    }
    let (Some(object), Some(property)) = (left.field("object"), left.field("property")) else {
        return;
    };
    // `exports.f = f` exports a function or constant the file binds already.
    if matches!(text(object, src), "exports" | "module.exports")
        && text(right, src) != text(property, src)
    {
        top.push((text(property, src).to_string(), val(right, src, 0)));
    }
}

/// Reads the exports compilers write as calls: `Object.defineProperty(exports,
/// "x", { get: function () { return m.x; } })` (`tsc`'s re-export), the star
/// re-export `__exportStar(require("./x"), exports)`, and a bundler's namespace
/// object filled by its helper (esbuild's `__export(ns, { x: () => x })`, webpack's
/// `__webpack_require__.d(...)`, under any name): `ns` is an object of those fields.
pub(super) fn compiled_export(
    node: Node,
    function: Node,
    args: &[Node],
    src: &[u8],
    out: &mut FileSummary,
    top: &mut Vec<(String, Val)>,
    namespaces: &mut Vec<(String, Val)>,
) {
    let callee = text(function, src);
    match args {
        [target, key, descriptor]
            if callee == "Object.defineProperty"
                && matches!(text(*target, src), "exports" | "module.exports") =>
        {
            let Some(key) = unquote(text(*key, src)) else {
                return;
            };
            if let Some(value) = getter(*descriptor, src) {
                top.push((key, value));
            }
        }
        [module, target] if callee.ends_with("__exportStar") && text(*target, src) == "exports" => {
            if let Some(Spec::Relative(rel)) = require_of(*module, src) {
                out.star_exports.push(rel);
            }
        }
        [target, fields]
            if target.kind_name() == "identifier" && fields.kind_name() == "object" =>
        {
            let mut props = Vec::new();
            for pair in children(*fields) {
                let (Some(k), Some(getter)) = (pair.field("key"), pair.field("value")) else {
                    return;
                };
                match (getter.kind_name(), getter.field("body")) {
                    ("arrow_function", Some(body))
                        if getter.field("parameter").is_none()
                            && getter
                                .field("parameters")
                                .is_some_and(|p| children(p).is_empty())
                            && matches!(body.kind_name(), "identifier" | "member_expression") =>
                    {
                        let key = unquote(text(k, src)).unwrap_or_else(|| text(k, src).to_string());
                        props.push(Prop::Field(key, val(body, src, 1)));
                    }
                    _ => return,
                }
            }
            if !props.is_empty() {
                namespaces.push((text(*target, src).to_string(), Val::obj(line(node), props)));
            }
        }
        _ => {}
    }
}

/// Returns the value a property descriptor gives: its `value`, or what its `get`
/// function returns.
pub(super) fn getter(descriptor: Node, src: &[u8]) -> Option<Val> {
    if descriptor.kind_name() != "object" {
        return None;
    }
    for p in children(descriptor) {
        let key = p
            .field("key")
            .or_else(|| p.field("name"))
            .map(|k| text(k, src));
        match (p.kind_name(), key) {
            ("pair", Some("value")) => return Some(val(p.field("value")?, src, 1)),
            ("pair", Some("get")) => return returned_expression(p.field("value")?, src),
            ("method_definition", Some("get")) => return returned_expression(p, src),
            _ => {}
        }
    }
    None
}

pub(super) fn import(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(rel) = node.field("source").and_then(|s| module_spec(s, src)) else {
        return;
    };
    let Some(clause) = children(node)
        .into_iter()
        .find(|c| c.kind_name() == "import_clause")
    else {
        // `import "./tools.js"`: for its effect alone.
        if let Spec::Relative(rel) = rel {
            out.reach(rel);
        }
        return;
    };
    for part in children(clause) {
        match part.kind_name() {
            // A default import: the module's `default` binding.
            "identifier" => out.import(
                text(part, src),
                Import {
                    rel: rel.clone(),
                    name: Some("default".to_string()),
                },
            ),
            "namespace_import" => {
                if let Some(id) = children(part)
                    .into_iter()
                    .find(|c| c.kind_name() == "identifier")
                {
                    out.import(
                        text(id, src),
                        Import {
                            rel: rel.clone(),
                            name: None,
                        },
                    );
                }
            }
            "named_imports" => {
                for spec in children(part) {
                    specifier(spec, src, &rel, out);
                }
            }
            _ => {}
        }
    }
}

/// Records `{ name as alias }` of an import or re-export.
pub(super) fn specifier(spec: Node, src: &[u8], rel: &Spec, out: &mut FileSummary) {
    let Some(name) = spec.field("name") else {
        return;
    };
    let local = spec.field("alias").unwrap_or(name);
    let imported = unquote(text(name, src)).unwrap_or_else(|| text(name, src).to_string());
    out.import(
        text(local, src),
        Import {
            rel: rel.clone(),
            name: Some(imported),
        },
    );
}

pub(super) fn reexport(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(rel) = node.field("source").and_then(|s| module_spec(s, src)) else {
        // `export default X`: the module's `default` binding.
        if let Some(value) = node.field("value") {
            out.bind("default", val(value, src, 0));
        }
        return;
    };
    let parts = children(node);
    let mut any = false;
    for part in &parts {
        match part.kind_name() {
            "export_clause" => {
                any = true;
                for spec in children(*part) {
                    specifier(spec, src, &rel, out);
                }
            }
            "namespace_export" => {
                any = true;
                if let Some(id) = children(*part).first() {
                    out.import(
                        text(*id, src),
                        Import {
                            rel: rel.clone(),
                            name: None,
                        },
                    );
                }
            }
            _ => {}
        }
    }
    if let (false, Spec::Relative(rel)) = (any, rel) {
        out.star_exports.push(rel);
    }
}

/// Reads `require("./x");` on its own: a module required for its effect.
pub(super) fn bare_require(node: Node, src: &[u8], out: &mut FileSummary) {
    if let Some(call) = children(node).first() {
        if let Some(Spec::Relative(rel)) = require_of(*call, src) {
            out.reach(rel);
        }
    }
}
