//! Names as an SDK derives them when the source gives none: the C# SDK's from a
//! `[McpServerTool]` method, laravel/mcp's from a tool class (docs/method.md,
//! "What a tool definition is, per family"). Each function redoes the SDK's own
//! rule on the identifier the source spells; nothing here reads a syntax tree.

/// Returns the name the C# SDK gives a `[McpServerTool]` method without `Name`
/// (`AIFunctionMcpServerTool.DeriveName`, since 0.3.0-preview.2): the method's
/// name without an `Async` suffix when it returns `Task`, `ValueTask` or
/// `IAsyncEnumerable`, each run of characters other than ASCII letters and digits
/// made one `_` and trimmed, then `JsonNamingPolicy.SnakeCaseLower`.
pub(crate) fn csharp_method(method: &str, returns: &str) -> String {
    let mut name = method;
    if is_async_type(returns) && name.len() > "Async".len() {
        name = name.strip_suffix("Async").unwrap_or(name);
    }
    let mut cleaned = String::with_capacity(name.len());
    for c in name.chars() {
        match c.is_ascii_alphanumeric() {
            true => cleaned.push(c),
            false if !cleaned.ends_with('_') => cleaned.push('_'),
            false => {}
        }
    }
    let cleaned = cleaned.trim_matches('_');
    match cleaned.is_empty() {
        true => snake_case_lower(method),
        false => snake_case_lower(cleaned),
    }
}

/// Returns true for a return type the C# SDK takes for an async method's:
/// `Task`, `ValueTask`, `Task<T>`, `ValueTask<T>`, `IAsyncEnumerable<T>`, qualified
/// or not.
fn is_async_type(returns: &str) -> bool {
    let (base, generic) = match returns.split_once('<') {
        Some((base, _)) => (base.trim(), true),
        None => (returns.trim(), false),
    };
    let last = base.rsplit('.').next().unwrap_or(base);
    matches!(last, "Task" | "ValueTask") || (generic && last == "IAsyncEnumerable")
}

/// Returns `name` as .NET's `JsonNamingPolicy.SnakeCaseLower` converts it
/// (`JsonSeparatorNamingPolicy`), for the ASCII names the C# SDK hands it: an
/// upper-case letter after a lower-case letter or a digit starts a word, and so
/// does the last of a run of capitals followed by a lower-case letter
/// (`XMLReader`: `xml_reader`); digits join the word before them; any other
/// character is written as it is and starts afresh.
fn snake_case_lower(name: &str) -> String {
    #[derive(PartialEq)]
    enum State {
        Start,
        Upper,
        LowerOrDigit,
    }
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    let mut state = State::Start;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if state == State::LowerOrDigit || (state == State::Upper && next_lower) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            state = State::Upper;
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
            state = State::LowerOrDigit;
        } else {
            out.push(c);
            state = State::Start;
        }
    }
    out
}

/// Returns the name laravel/mcp gives a tool class without `#[Name]`, `$name` or
/// `name()` (`Primitive::name`, and `Tool::name` since 0.1.0):
/// `Str::kebab(class_basename($this))`, a `-` before every capital but the first
/// character, then lower case (`GetAbsoluteUrl`: `get-absolute-url`).
pub(crate) fn laravel_class(class: &str) -> String {
    let basename = class.rsplit('\\').next().unwrap_or(class);
    let mut out = String::with_capacity(basename.len() + 4);
    for (i, c) in basename.chars().enumerate() {
        if i > 0 && c.is_ascii_uppercase() {
            out.push('-');
        }
        out.extend(c.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csharp_methods_are_named_as_the_sdk_names_them() {
        let cases = [
            ("GetBills", "Task<string>", "get_bills"),
            ("GetBillsAsync", "Task<string>", "get_bills"),
            ("GetBillsAsync", "string", "get_bills_async"),
            ("SearchAsync", "ValueTask", "search"),
            ("StreamAsync", "IAsyncEnumerable<int>", "stream"),
            ("Async", "Task", "async"),
            ("XMLReader", "string", "xml_reader"),
            ("SHA512Hash", "string", "sha512_hash"),
            ("Get_Bill_ById", "string", "get_bill_by_id"),
            ("echo", "string", "echo"),
            (
                "GetV2Data",
                "System.Threading.Tasks.Task<Result>",
                "get_v2_data",
            ),
        ];
        for (method, returns, want) in cases {
            assert_eq!(csharp_method(method, returns), want, "{method}: {returns}");
        }
    }

    #[test]
    fn laravel_classes_are_named_as_the_package_names_them() {
        assert_eq!(laravel_class("GetAbsoluteUrl"), "get-absolute-url");
        assert_eq!(laravel_class("Tinker"), "tinker");
        assert_eq!(laravel_class("ListRoutesTool"), "list-routes-tool");
        assert_eq!(laravel_class("HTTPClient"), "h-t-t-p-client");
        assert_eq!(
            laravel_class("App\\Mcp\\Tools\\Weather2Day"),
            "weather2-day"
        );
    }
}
