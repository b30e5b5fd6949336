//! What a server's argument parser says it lacks: the required options named in the
//! usage error it exits with, as argparse, click and typer, commander, yargs, clap and
//! cobra write it, so that the survey can start it once more with a placeholder for
//! each (docs/probe.md, "Registry packages").
//!
//! It reads stderr lines; it starts nothing and decides nothing about the run.

/// Returns the options (`--name`, `-n`) the usage error among `stderr` names as
/// required and missing, in the order named, each once; none when no line is such an
/// error. A positional argument is not named: where it goes cannot be read.
pub fn required_options(stderr: &[String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut push = |word: &str| {
        let word = word.trim().trim_matches(|c| "'\"`.,:;()[]<>".contains(c));
        let word = word.split(['=', ' ', '<']).next().unwrap_or("");
        if is_option(word) && !found.iter().any(|f| f == word) {
            found.push(word.to_string());
        }
    };
    for (i, line) in stderr.iter().enumerate() {
        let line = line.trim();
        // argparse: "error: the following arguments are required: --a/-a, --b"
        if let Some(rest) = after(line, "the following arguments are required:") {
            rest.split(',')
                .filter_map(|named| named.split('/').find(|w| w.trim().starts_with("--")))
                .for_each(&mut push);
        }
        // argparse's exclusive group: "error: one of the arguments --a --b is required":
        // the first is given.
        else if let Some(rest) = after(line, "one of the arguments") {
            let named = rest.split("is required").next().unwrap_or("");
            if let Some(first) = named.split_whitespace().next() {
                push(first);
            }
        }
        // clap: "error: the following required arguments were not provided:" and the
        // arguments on the lines after it, indented.
        else if line.contains("the following required arguments were not provided") {
            stderr[i + 1..]
                .iter()
                .take_while(|l| l.starts_with(' ') || l.starts_with('\t'))
                .for_each(|l| push(l.trim()));
        }
        // click and typer: "Error: Missing option '--name'." (or "'-n' / '--name'")
        else if let Some(rest) = after(line, "Missing option") {
            rest.split('/').map(str::trim).for_each(&mut push);
        }
        // commander: "error: required option '--name <value>' not specified"
        else if let Some(rest) = after(line, "required option") {
            let named = rest.split("not specified").next().unwrap_or("");
            named.split(',').for_each(&mut push);
        }
        // yargs: "Missing required argument: name" or "arguments: a, b"
        else if let Some(rest) = after(line, "Missing required argument")
            .map(|r| r.trim_start_matches('s').trim_start_matches(':'))
        {
            for name in rest.split(',') {
                push(&format!("--{}", name.trim()));
            }
        }
        // cobra: `required flag(s) "name", "other" not set`
        else if let Some(rest) = after(line, "required flag(s)") {
            let named = rest.split("not set").next().unwrap_or("");
            for name in named.split(',') {
                let name = name.trim().trim_matches('"');
                push(&format!("--{name}"));
            }
        }
    }
    found
}

/// Returns what follows `marker` in `line`, ASCII case-insensitively.
fn after<'l>(line: &'l str, marker: &str) -> Option<&'l str> {
    let at = line
        .to_ascii_lowercase()
        .find(&marker.to_ascii_lowercase())?;
    Some(&line[at + marker.len()..])
}

/// Returns true for an option's word: `-x` or `--word`, letters, digits, `-` and `_`.
fn is_option(word: &str) -> bool {
    let name = match word.strip_prefix("--") {
        Some(name) => name,
        None => match word.strip_prefix('-') {
            Some(name) if name.len() == 1 => name,
            _ => return false,
        },
    };
    !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(String::from).collect()
    }

    #[test]
    fn each_parsers_usage_error_names_its_required_options() {
        for (said, want) in [
            (
                "usage: mcpcap [-h] --pcap-path PCAP_PATH\nmcpcap: error: the following arguments are required: --pcap-path",
                &["--pcap-path"][..],
            ),
            (
                "usage: x [-h] --username U --password P\nx: error: the following arguments are required: --username, --password, target",
                &["--username", "--password"][..],
            ),
            (
                "allstacks-mcp: error: the following arguments are required: --username/-u, --password/-p",
                &["--username", "--password"][..],
            ),
            (
                "mcpcap: error: one of the arguments --pcap-path --pcap-url is required",
                &["--pcap-path"][..],
            ),
            (
                "Usage: srv [OPTIONS]\nTry 'srv --help' for help.\n\nError: Missing option '--api-key'.",
                &["--api-key"][..],
            ),
            ("Error: Missing option '-k' / '--key'.", &["-k", "--key"][..]),
            (
                "error: required option '--token <value>' not specified",
                &["--token"][..],
            ),
            ("Missing required argument: workspace", &["--workspace"][..]),
            ("Missing required arguments: a, b", &["--a", "--b"][..]),
            (
                "error: the following required arguments were not provided:\n  --db <DB>\n  --port <PORT>\n\nUsage: srv --db <DB> --port <PORT>",
                &["--db", "--port"][..],
            ),
            (
                "Error: required flag(s) \"org\", \"region\" not set",
                &["--org", "--region"][..],
            ),
        ] {
            assert_eq!(required_options(&lines(said)), want, "{said}");
        }
    }

    #[test]
    fn other_failures_name_no_option() {
        for said in [
            "Traceback (most recent call last):\nKeyError: 'API_KEY'",
            "error: the following arguments are required: path",
            "Error: Missing option '--$(touch x)'",
            "",
        ] {
            assert!(required_options(&lines(said)).is_empty(), "{said}");
        }
    }
}
