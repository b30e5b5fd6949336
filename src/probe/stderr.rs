//! What a stdio server writes on stderr, kept to be shown when the probe fails: its
//! first lines and its last, with the number of lines between.
//!
//! Both ends matter. A server that fails at start-up often names the cause first and
//! then prints a long usage text (Go's `flag` package does), while one that dies later
//! says why last. Memory is bounded: at most [`HEAD`] + [`TAIL`] lines of at most
//! [`LINE_BYTES`] bytes are held, however much the server writes. This module reads and
//! renders; when the text is shown is `stdio`'s business.

use std::collections::VecDeque;
use std::io::{BufReader, Read};
use std::sync::Mutex;

use super::lines::{self, Line};
use crate::infra::messages::{count, noun};
use crate::infra::sanitize::excerpt;

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

/// Reads `stderr` to its end into `kept`, each line sanitized and cut to [`LINE_BYTES`]
/// bytes as it is read.
pub fn keep(stderr: impl Read, kept: &Mutex<Kept>) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    let mut rest = Vec::new();
    loop {
        let cut = match lines::read_line(&mut reader, &mut line, LINE_BYTES) {
            Ok(Line::End) | Err(_) => return,
            Ok(Line::Complete) => false,
            Ok(Line::TooLong) => true,
        };
        let mut text = excerpt(String::from_utf8_lossy(&line).trim_end());
        if cut {
            if !text.ends_with('…') {
                text.push('…');
            }
            // Skip the rest of the long line, a bounded piece at a time.
            while let Ok(Line::TooLong) = lines::read_line(&mut reader, &mut rest, LINE_BYTES) {}
        }
        match kept.lock() {
            Ok(mut kept) => kept.push(text),
            Err(poisoned) => poisoned.into_inner().push(text),
        }
    }
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
}
