//! What a server says it lacks when it exits: the required options named in the
//! usage error of its argument parser, as argparse, click and typer, commander,
//! yargs, clap and cobra write it, and the environment variables its last words name
//! as missing, so that the survey can start it once more with a placeholder for each
//! (docs/probe.md, "Registry packages").
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

/// Returns the subcommand that starts the MCP server, when the usage among `stderr`
/// is a command group's (click's and typer's `Commands:` list, argparse's and
/// commander's alike) and one of its commands is the server: the one named `mcp`;
/// else the one described as an MCP (or Model Context Protocol) server; else the one
/// described with `MCP` at all; else, of several so described (a group of
/// transports), the one named `stdio`. Anything else is not guessed.
pub fn mcp_command(stderr: &[String]) -> Option<String> {
    let header = stderr
        .iter()
        .position(|l| matches!(l.trim(), "Commands:" | "commands:" | "Available commands:"));
    // A long usage keeps only its first and last lines (see `probe::stderr`): when
    // the header fell between them, a group's usage (`Usage: x [OPTIONS] COMMAND
    // [ARGS]...`) still ends with its commands, the indented block at the end.
    let start = match header {
        Some(at) => at + 1,
        None if stderr
            .first()
            .is_some_and(|l| l.starts_with("Usage:") && l.contains("COMMAND")) =>
        {
            let indented = |l: &String| l.starts_with(' ') || l.starts_with('\t');
            stderr.len() - stderr.iter().rev().take_while(|l| indented(l)).count()
        }
        None => return None,
    };
    let mut serving = Vec::new();
    for line in &stderr[start..] {
        if !(line.starts_with(' ') || line.starts_with('\t')) {
            break;
        }
        let mut words = line.split_whitespace();
        let Some(name) = words.next() else { continue };
        let about: Vec<&str> = words.collect();
        let about = about.join(" ");
        let is_name = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        let serves =
            name == "mcp" || about.contains("MCP") || about.contains("Model Context Protocol");
        if is_name && serves {
            let is_server = about.to_ascii_lowercase().contains("server");
            serving.push((name, is_server));
        }
    }
    let only = |pick: &dyn Fn(&str, bool) -> bool| -> Option<String> {
        let mut picked = serving.iter().filter(|(n, s)| pick(n, *s));
        match (picked.next(), picked.next()) {
            (Some((one, _)), None) => Some(one.to_string()),
            _ => None,
        }
    };
    only(&|n, _| n == "mcp")
        .or_else(|| only(&|_, is_server| is_server))
        .or_else(|| only(&|_, _| true))
        .or_else(|| only(&|n, _| n == "stdio"))
}

/// The words of a line that says something is missing from the environment.
const MISSING: [&str; 10] = [
    "environment",
    "env var",
    "must be set",
    "must be provided",
    "not set",
    "is required",
    "are required",
    "not provided",
    "please set",
    "missing",
];

/// The most variables one exit may ask for.
const MAX_VARIABLES: usize = 8;

/// Returns the environment variables the lines of `stderr` name as missing, in the
/// order named, each once: the words in upper case with an underscore
/// (`FIRECRAWL_API_KEY`) on a line that says a value is missing (`... must be
/// provided`, `... environment variable not set`, `No X or Y found in environment`).
pub fn missing_variables(stderr: &[String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for line in stderr {
        let lower = line.to_ascii_lowercase();
        if !MISSING.iter().any(|w| lower.contains(w)) {
            continue;
        }
        for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let is_name = word.len() <= 64
                && word.starts_with(|c: char| c.is_ascii_uppercase())
                && word.contains('_')
                && !word.ends_with('_')
                && word
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
            if is_name && !found.iter().any(|f| f == word) && found.len() < MAX_VARIABLES {
                found.push(word.to_string());
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_command_of_a_group_that_serves_mcp_is_read_from_its_usage() {
        let usage = |text: &str| mcp_command(&text.lines().map(String::from).collect::<Vec<_>>());
        // As click wrote them for real servers of the registry.
        let memdocs = "Usage: memdocs [OPTIONS] COMMAND [ARGS]...\n\nOptions:\n  --help  Show this message and exit.\n\nCommands:\n  cleanup        Cleanup old embeddings and memory data.\n  serve          Start MCP server for AI assistant integration.\n  stats          Show memory and documentation statistics.";
        assert_eq!(usage(memdocs).as_deref(), Some("serve"));
        // The one named `mcp` wins over another that only mentions MCP.
        let terraform = "Commands:\n  index         Manage the module index for fast lookups.\n  mcp           Start the MCP (Model Context Protocol) server.\n  resource      Retrieve and display an MCP resource by its path.\n  serve         Start the FastAPI server.";
        assert_eq!(usage(terraform).as_deref(), Some("mcp"));
        // A group of transports, as a nested group's usage lists them: stdio.
        let transports = "Usage: un-datacommons-mcp serve [OPTIONS] COMMAND [ARGS]...\n\n  Serve the MCP server in different modes.\n\nCommands:\n  http   Start the MCP server in Streamable HTTP mode.\n  stdio  Start the MCP server in stdio mode.";
        assert_eq!(usage(transports).as_deref(), Some("stdio"));
        // The header fell between the lines kept: the block that ends the usage.
        let cut = "Usage: terraform-ingest [OPTIONS] COMMAND [ARGS]...\n\n  Terraform Ingest.\n\nOptions:\n  --help     Show this message and exit.\n  index         Manage the module index for fast lookups.\n  mcp           Start the MCP (Model Context Protocol) server.\n  resource      Retrieve and display an MCP resource by its path.\n  serve         Start the FastAPI server.";
        assert_eq!(usage(cut).as_deref(), Some("mcp"));
        // The one that says it is the server wins over another that names MCP.
        let group = "Commands:\n  index     Build the index.\n  resource  Show an MCP resource.\n  serve     Start the MCP server.";
        assert_eq!(usage(group).as_deref(), Some("serve"));
        // None serves MCP, or two do: nothing is guessed.
        assert_eq!(usage("Commands:\n  context  Manage context entries.\n  todo     Manage todo list snapshots."), None);
        assert_eq!(
            usage("Commands:\n  serve  Serve MCP over HTTP.\n  run    Run an MCP tool once."),
            None
        );
        assert_eq!(
            usage("usage: x [-h]\nx: error: unrecognized arguments"),
            None
        );
    }

    #[test]
    fn the_variables_a_server_says_it_lacks_are_read_from_its_last_words() {
        let said = |lines: &[&str]| {
            missing_variables(&lines.iter().map(|l| l.to_string()).collect::<Vec<_>>())
        };
        // As real servers of the registry wrote them.
        assert_eq!(
            said(&["Either FIRECRAWL_API_KEY or FIRECRAWL_API_URL must be provided"]),
            ["FIRECRAWL_API_KEY", "FIRECRAWL_API_URL"]
        );
        assert_eq!(
            said(&["ERROR:slack-mcp:No SLACK_USER_TOKEN or SLACK_BOT_TOKEN found in environment"]),
            ["SLACK_USER_TOKEN", "SLACK_BOT_TOKEN"]
        );
        assert_eq!(
            said(&["ERROR: GOOGLE_APPLICATION_CREDENTIALS environment variable not set"]),
            ["GOOGLE_APPLICATION_CREDENTIALS"]
        );
        assert_eq!(
            said(&["2026-12-06 - pgtuner_mcp - ERROR - No database URL provided. Set DATABASE_URI environment variable or use --database-url"]),
            ["DATABASE_URI"]
        );
        // A traceback, a log line or a word in lower case asks for nothing.
        assert!(said(&[
            "Traceback (most recent call last):",
            "INFO: Started server process [2]",
            "Value error, tracker_token or tracker_iam_token must be set",
            "KeyError: 'RUNTIME_DIR'",
        ])
        .is_empty());
    }

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
