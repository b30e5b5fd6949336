//! What a stdio server writes on stderr, kept to be shown when the probe fails: its
//! first lines and its last, with the number of lines between.
//!
//! Both ends matter. A server that fails at start-up often names the cause first and
//! then prints a long usage text (Go's `flag` package does), while one that dies later
//! says why last. Memory is bounded: at most [`HEAD`] + [`TAIL`] lines of at most
//! [`LINE_BYTES`] bytes are held, however much the server writes. This module reads and
//! renders; when the text is shown is `stdio`'s business. It also finds, in an
//! installer's stderr (uv, pip, npm), the sentence saying why the install failed.

use std::collections::VecDeque;
use std::io::{BufReader, Read};
use std::sync::Mutex;

use super::bounds;
use super::lines::{self, Line};
use crate::infra::messages::{count, noun};
use crate::infra::sanitize::{excerpt, sanitize};

/// How many of the first lines are kept.
pub const HEAD: usize = 10;
/// How many of the last lines are kept.
pub const TAIL: usize = 10;
/// How many bytes of one line are read; the rest is skipped.
const LINE_BYTES: usize = 4096;

/// The first and the last lines of a stream, and how many fell between.
#[derive(Debug, Default)]
pub struct Kept {
    head: Vec<String>,
    tail: VecDeque<String>,
    between: usize,
    /// Bytes read so far.
    bytes: usize,
    /// Set when reading stopped at [`bounds::MAX_OUTPUT`] bytes.
    is_cut: bool,
}

impl Kept {
    /// Adds the next line of the stream.
    pub fn push(&mut self, line: String) {
        if self.head.len() < HEAD {
            self.head.push(line);
            return;
        }
        if self.tail.len() == TAIL {
            self.tail.pop_front();
            self.between += 1;
        }
        self.tail.push_back(line);
    }

    /// Returns how many lines the stream had.
    pub fn total(&self) -> usize {
        self.head.len() + self.between + self.tail.len()
    }

    /// Returns true when the stream passed [`bounds::MAX_OUTPUT`] bytes and reading
    /// stopped there.
    pub fn is_cut(&self) -> bool {
        self.is_cut
    }

    /// Returns the lines kept: the first ones, then the last.
    pub fn lines(&self) -> Vec<String> {
        self.head.iter().chain(&self.tail).cloned().collect()
    }

    /// Renders the lines for an error message: a clause saying how many lines there were,
    /// then one `  | ` line each, with `... N more lines ...` where lines were left out.
    pub fn render(&self) -> String {
        let total = self.total();
        if total == 0 {
            return "; it wrote nothing on stderr".to_string();
        }
        let mut text = if self.between == 0 {
            format!("; its stderr ({}):", count(total, "line", "lines"))
        } else {
            format!(
                "; its stderr ({}; the first {HEAD} and the last {TAIL}):",
                count(total, "line", "lines")
            )
        };
        let mut put = |line: &str| {
            text.push_str("\n  | ");
            text.push_str(line);
        };
        self.head.iter().for_each(|l| put(l));
        if self.between > 0 {
            let n = self.between;
            put(&format!("... {n} more {} ...", noun(n, "line", "lines")));
        }
        self.tail.iter().for_each(|l| put(l));
        text
    }
}

/// What a server's stderr says when it could not reach the network: Node's resolver
/// and socket codes, the C library's and Python's words for them, and the exception
/// names of Python's HTTP clients (`requests`, `httpx`, `aiohttp`).
const NETWORK_FAILURES: [&str; 11] = [
    "ENOTFOUND",
    "EAI_AGAIN",
    "ENETUNREACH",
    "getaddrinfo",
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Name or service not known",
    "ConnectionError",
    "ConnectError",
    "ClientConnectorError",
    "NameResolutionError",
];

/// Returns true when `line` names a failure to reach the network. A refused
/// connection is not one: the sandbox's own loopback refuses, and a server that
/// wants a local service says so that way.
pub fn is_network_failure(line: &str) -> bool {
    NETWORK_FAILURES.iter().any(|word| line.contains(word))
}

/// Returns the line of a server's stderr that says why it stopped: a line naming a
/// network failure; else the exception line of its last Python traceback (the first
/// line after `Traceback (most recent call last):` that is not indented, which Python
/// prints last); else the first line naming an error (`Error:`, `error:`, `panic:`,
/// `fatal`); else the first line that is not blank.
pub fn cause(lines: &[String]) -> Option<&str> {
    let lines: Vec<&str> = lines
        .iter()
        .map(|l| l.trim_end())
        .filter(|l| !l.trim().is_empty())
        .collect();
    if let Some(line) = lines.iter().find(|l| is_network_failure(l)) {
        return Some(line.trim());
    }
    let traceback = lines
        .iter()
        .rposition(|l| l.trim() == "Traceback (most recent call last):");
    if let Some(at) = traceback {
        let raised = lines[at + 1..]
            .iter()
            .find(|l| !l.starts_with([' ', '\t']) && !l.starts_with("..."));
        if let Some(line) = raised {
            return Some(line.trim());
        }
    }
    let is_error = |l: &&&str| {
        ["Error:", "error:", "panic:", "fatal", "Fatal", "Exception:"]
            .iter()
            .any(|word| l.contains(word))
    };
    lines
        .iter()
        .find(is_error)
        .or(lines.first())
        .map(|l| l.trim())
}

/// Reads `stderr` into `kept`, each line sanitized and cut to [`LINE_BYTES`] bytes as
/// it is read, to its end or to [`bounds::MAX_OUTPUT`] bytes, where it stops reading
/// and marks `kept` cut: a server that writes without end is stopped, not read forever.
pub fn keep(stderr: impl Read, kept: &Mutex<Kept>) {
    keep_within(stderr, kept, bounds::MAX_OUTPUT);
}

fn keep_within(stderr: impl Read, kept: &Mutex<Kept>, max: usize) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    let mut rest = Vec::new();
    let with = |f: &mut dyn FnMut(&mut Kept)| match kept.lock() {
        Ok(mut kept) => f(&mut kept),
        Err(poisoned) => f(&mut poisoned.into_inner()),
    };
    let mut bytes = 0;
    loop {
        let cut = match lines::read_line(&mut reader, &mut line, LINE_BYTES) {
            Ok(Line::End) | Err(_) => return,
            Ok(Line::Complete) => false,
            Ok(Line::TooLong) => true,
        };
        bytes += line.len();
        let mut text = excerpt(String::from_utf8_lossy(&line).trim_end());
        if cut {
            if !text.ends_with('…') {
                text.push('…');
            }
            // Skip the rest of the long line, a bounded piece at a time.
            while let Ok(Line::TooLong) = lines::read_line(&mut reader, &mut rest, LINE_BYTES) {
                bytes += rest.len();
                if bytes > max {
                    break;
                }
            }
        }
        let is_over = bytes > max;
        with(&mut |kept| {
            kept.push(text.clone());
            kept.bytes = bytes;
            kept.is_cut = is_over;
        });
        if is_over {
            return;
        }
    }
}

/// Returns the sentence in which an installer says why it failed: uv's resolver
/// explanation (the text after `╰─▶`, its wrapped lines joined), else uv's `error:`
/// line with its `Caused by:` lines, else pip's first `ERROR:` line, else the last
/// line.
pub fn installer_cause(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    if let Some(at) = lines.iter().position(|l| l.contains("╰─▶")) {
        let mut sentence = lines[at]
            .split_once("╰─▶")
            .map_or("", |(_, rest)| rest)
            .trim()
            .to_string();
        for line in &lines[at + 1..] {
            let text = line.trim();
            if text.is_empty() || text.starts_with("hint:") || text.contains('×') {
                break;
            }
            sentence.push(' ');
            sentence.push_str(text);
        }
        return sanitize(sentence);
    }
    if let Some(at) = lines.iter().position(|l| l.starts_with("error:")) {
        let mut sentence = lines[at].trim().to_string();
        // uv says why on `Caused by:` lines, and a resolver failure on a `cause:`
        // line when its stderr is not a terminal.
        for line in lines[at + 1..].iter().map(|l| l.trim()) {
            let cause = line
                .strip_prefix("Caused by:")
                .or_else(|| line.strip_prefix("cause:"));
            match cause {
                Some(cause) => {
                    sentence.push_str(": ");
                    sentence.push_str(cause.trim());
                }
                None if line.starts_with("hint:") || line.starts_with("error:") => break,
                None => {}
            }
        }
        return sanitize(sentence);
    }
    let pip = lines.iter().find(|l| l.starts_with("ERROR:"));
    // npm's first line that says something: not its error code, a bare status or
    // where its log went (or that it wrote none).
    let npm = lines.iter().find(|l| {
        l.strip_prefix("npm error ")
            .or_else(|| l.strip_prefix("npm ERR! "))
            .is_some_and(|rest| {
                let rest = rest.trim();
                !(rest.starts_with("code ")
                    || rest.starts_with("errno ")
                    || rest.starts_with("A complete log")
                    || rest.starts_with("Log files were not written")
                    || rest.bytes().all(|b| b.is_ascii_digit()))
            })
    });
    let last = lines.iter().rev().find(|l| !l.trim().is_empty());
    sanitize(pip.or(npm).or(last).map_or("", |l| l.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(n: usize) -> Kept {
        let mut kept = Kept::default();
        for i in 1..=n {
            kept.push(format!("line {i}"));
        }
        kept
    }

    #[test]
    fn a_short_stream_is_shown_whole_with_its_count_in_the_singular_or_plural() {
        assert_eq!(kept(0).render(), "; it wrote nothing on stderr");
        assert_eq!(kept(1).render(), "; its stderr (1 line):\n  | line 1");
        let all = kept(HEAD + TAIL).render();
        assert!(
            all.starts_with("; its stderr (20 lines):\n  | line 1\n"),
            "{all}"
        );
        assert!(all.ends_with("\n  | line 20"), "{all}");
        assert!(!all.contains("more"), "{all}");
    }

    #[test]
    fn a_long_stream_keeps_its_first_and_last_lines() {
        let text = kept(166).render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "; its stderr (166 lines; the first 10 and the last 10):"
        );
        assert_eq!(lines[1], "  | line 1");
        assert_eq!(lines[10], "  | line 10");
        assert_eq!(lines[11], "  | ... 146 more lines ...");
        assert_eq!(lines[12], "  | line 157");
        assert_eq!(lines[21], "  | line 166");
        assert_eq!(lines.len(), 22);
        let one = kept(HEAD + TAIL + 1).render();
        assert!(one.contains("\n  | ... 1 more line ...\n"), "{one}");
    }

    fn owned(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn the_cause_is_the_network_failure_the_raised_exception_or_the_error_line() {
        let traceback = owned(&[
            "INFO starting",
            "Traceback (most recent call last):",
            "  File \"/p/server.py\", line 3, in <module>",
            "    import missing",
            "ModuleNotFoundError: No module named 'missing'",
        ]);
        assert_eq!(
            cause(&traceback),
            Some("ModuleNotFoundError: No module named 'missing'")
        );
        let chained = owned(&[
            "Traceback (most recent call last):",
            "  File \"a.py\", line 1",
            "KeyError: 'x'",
            "",
            "During handling of the above exception, another exception occurred:",
            "",
            "Traceback (most recent call last):",
            "  File \"a.py\", line 2",
            "RuntimeError: no config",
        ]);
        assert_eq!(cause(&chained), Some("RuntimeError: no config"));
        let node = owned(&[
            "node:internal/process/promises:289",
            "            triggerUncaughtException(err, true);",
            "Error: getaddrinfo EAI_AGAIN api.example.com",
        ]);
        assert_eq!(
            cause(&node),
            Some("Error: getaddrinfo EAI_AGAIN api.example.com")
        );
        let usage = owned(&[
            "flag provided but not defined: -x",
            "Usage of server:",
            "  -v",
        ]);
        assert_eq!(cause(&usage), Some("flag provided but not defined: -x"));
        assert_eq!(cause(&[]), None);
        assert!(is_network_failure(
            "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x')"
        ));
        assert!(!is_network_failure("connect failed: ECONNREFUSED"));
    }

    #[test]
    fn a_stream_without_end_is_read_to_the_bound_only() {
        let endless = std::io::repeat(b'x').take(1 << 20);
        let lines = std::io::repeat(b'\n');
        let kept = Mutex::new(Kept::default());
        keep_within(endless.chain(lines), &kept, 64 << 10);
        let kept = kept.into_inner().unwrap();
        assert!(kept.is_cut());
        assert!(kept.bytes <= (64 << 10) + 2 * LINE_BYTES, "{}", kept.bytes);
        assert_eq!(kept.total(), 1);
        let short = Mutex::new(Kept::default());
        keep_within(&b"one\ntwo\n"[..], &short, 64 << 10);
        assert!(!short.into_inner().unwrap().is_cut());
    }

    #[test]
    fn lines_are_read_sanitized_and_cut() {
        let long = "x".repeat(LINE_BYTES * 3);
        let input = format!("first\n\u{1b}[31mred\n{long}\nlast");
        let kept = Mutex::new(Kept::default());
        keep(input.as_bytes(), &kept);
        let kept = kept.into_inner().unwrap();
        assert_eq!(kept.total(), 4);
        let text = kept.render();
        assert!(text.contains("\n  | \\u{1b}[31mred\n"), "{text}");
        assert!(text.contains("\n  | xxx"), "{text}");
        assert!(text.ends_with("\n  | last"), "{text}");
    }

    #[test]
    fn an_install_that_fails_says_why_in_the_installers_own_sentence() {
        let uv = "Using Python 3.11.7 environment at: /c/x\n  \u{d7} No solution found when resolving dependencies:\n  \u{2570}\u{2500}\u{25b6} Because the current Python version (3.11.7) does not satisfy Python>=3.12 and\n      x==1.0 depends on Python>=3.12, we can conclude that x==1.0 cannot be used.\n\n      hint: more\n";
        assert_eq!(
            installer_cause(uv),
            "Because the current Python version (3.11.7) does not satisfy Python>=3.12 and x==1.0 depends on Python>=3.12, we can conclude that x==1.0 cannot be used."
        );
        let uv = "error: Failed to fetch: `http://127.0.0.1:1/simple/x/`\n  Caused by: Request failed after 3 retries\n  Caused by: error sending request\n";
        assert_eq!(
            installer_cause(uv),
            "error: Failed to fetch: `http://127.0.0.1:1/simple/x/`: Request failed after 3 retries: error sending request"
        );
        let pip = "Looking in indexes: x\nERROR: Could not find a version that satisfies the requirement x==1.0 (from versions: none)\nERROR: No matching distribution found for x==1.0\n";
        assert_eq!(
            installer_cause(pip),
            "ERROR: Could not find a version that satisfies the requirement x==1.0 (from versions: none)"
        );
        let uv = "error: No solution found when resolving dependencies\n  cause: Because there is no version of x==1.0 and you require x==1.0, we can conclude that your requirements are unsatisfiable.\nhint: `x` was filtered by `exclude-newer`\n";
        assert_eq!(
            installer_cause(uv),
            "error: No solution found when resolving dependencies: Because there is no version of x==1.0 and you require x==1.0, we can conclude that your requirements are unsatisfiable."
        );
        let npm = "npm error Log files were not written due to the config logs-max=0\nnpm error code E404\nnpm error 404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@a%2fb\nnpm error A complete log of this run can be found in: /x.log\n";
        assert_eq!(
            installer_cause(npm),
            "npm error 404 Not Found - GET https://registry.npmjs.org/@a%2fb"
        );
        assert_eq!(installer_cause("one\nlast words\n\n"), "last words");
    }
}
