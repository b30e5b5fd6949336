//! Reads lines of bounded length, so that no message from a server, however long, is
//! held in memory whole past the `--max-message` limit.
//!
//! Owns only the reading: what a line means is the transports' business.

use std::io::{self, BufRead};

/// What one call of [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line is in the buffer, with its `\n` when the input had one.
    Complete,
    /// The input ended before any byte of a new line.
    End,
    /// The line is longer than the limit; the buffer holds only its start.
    TooLong,
}

/// Reads the next line into `buf` (cleared first), reading at most `max` bytes of it
/// beyond the ending `\n` or `\r\n`.
pub fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    buf.clear();
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            return Ok(if buf.is_empty() {
                Line::End
            } else {
                Line::Complete
            });
        }
        let (take, ends) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        // Room for the line ending, which is not part of the message.
        if buf.len() + take > max.saturating_add(2) {
            let room = max.saturating_add(2).saturating_sub(buf.len()).min(take);
            buf.extend_from_slice(&available[..room]);
            reader.consume(room);
            return Ok(Line::TooLong);
        }
        buf.extend_from_slice(&available[..take]);
        reader.consume(take);
        if ends {
            let content = buf.len() - 1 - usize::from(buf.ends_with(b"\r\n"));
            return Ok(if content > max {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn lines(input: &[u8], max: usize, capacity: usize) -> Vec<(Line, Vec<u8>)> {
        let mut reader = BufReader::with_capacity(capacity, input);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            let line = read_line(&mut reader, &mut buf, max).expect("reading memory");
            let stop = line != Line::Complete;
            out.push((line, buf.clone()));
            if stop {
                return out;
            }
        }
    }

    #[test]
    fn lines_up_to_the_limit_pass_whatever_the_buffer_size() {
        for capacity in [1, 2, 3, 7, 64] {
            let got = lines(b"abc\r\nde\nfgh", 3, capacity);
            assert_eq!(
                got,
                [
                    (Line::Complete, b"abc\r\n".to_vec()),
                    (Line::Complete, b"de\n".to_vec()),
                    (Line::Complete, b"fgh".to_vec()),
                    (Line::End, Vec::new()),
                ],
                "capacity {capacity}"
            );
        }
    }

    #[test]
    fn a_longer_line_stops_after_at_most_the_limit_and_its_ending() {
        for capacity in [1, 4, 64] {
            let got = lines(b"ab\nabcdefgh\nz\n", 4, capacity);
            assert_eq!(got[0], (Line::Complete, b"ab\n".to_vec()));
            assert_eq!(got[1].0, Line::TooLong, "capacity {capacity}");
            assert!(got[1].1.len() <= 6, "capacity {capacity}: {:?}", got[1].1);
            let got = lines(b"abcde\n", 4, capacity);
            assert_eq!(got[0].0, Line::TooLong);
            let got = lines(b"abcd\n", 4, capacity);
            assert_eq!(got[0], (Line::Complete, b"abcd\n".to_vec()));
        }
    }
}
