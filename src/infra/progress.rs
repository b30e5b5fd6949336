//! Progress on stderr: one line per tree being counted (bytes received, files
//! counted) above one line for the whole run (trees done of total, failures so far,
//! bytes received, an estimate of the time left).
//!
//! Bars are drawn only when stderr is a terminal. Elsewhere (a batch engine's log)
//! a plain line for the whole run is written every few seconds and once at the end,
//! so a long survey can be followed from its log. `--quiet` silences both. A tree's
//! line is cleared once it is done, so a survey of thousands of trees shows only the
//! ones in flight. Nothing here touches the results on stdout.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::infra::messages;

/// Reports the progress of reading one archive to whoever displays it.
pub trait Progress: Sync {
    /// Called when reading an archive starts (again, on a retry), with its size in
    /// bytes when known.
    fn start(&self, length: Option<u64>);
    /// Called with the number of archive bytes received so far.
    fn bytes(&self, total: u64);
    /// Called after each file is counted.
    fn file(&self);
}

/// Ignores progress.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: Option<u64>) {}
    fn bytes(&self, _: u64) {}
    fn file(&self) {}
}

/// Holds the bars of a run, or nothing when progress is off.
pub struct Bars {
    multi: Option<(MultiProgress, ProgressBar)>,
    /// For a log: when the last plain line was written, and how often to write one.
    log: Option<(Mutex<Instant>, Duration)>,
    started: Instant,
    trees: u64,
    done: AtomicU64,
    failed: AtomicU64,
    bytes: AtomicU64,
}

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Display {
    /// Nothing at all.
    Quiet,
    /// Bars on a terminal; a plain line every `interval` in a log.
    Auto { interval: Duration },
}

impl Bars {
    /// Returns the progress display for a run of `trees` trees: bars when stderr is
    /// a terminal, plain periodic lines when it is not, nothing when quiet.
    pub fn new(display: Display, trees: usize) -> Bars {
        let interval = match display {
            Display::Quiet => None,
            Display::Auto { interval } => Some(interval),
        };
        let is_terminal = std::io::stderr().is_terminal();
        let multi = (interval.is_some() && is_terminal).then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let total = multi.add(ProgressBar::new(trees as u64));
            total.set_style(
                // The rate is in the message, of trees counted: indicatif's own
                // `{per_sec}` would count failed trees too.
                ProgressStyle::with_template("[{bar:30}] {pos}/{len} trees, {msg} (eta {eta})")
                    .expect("the template is valid")
                    .progress_chars("=> "),
            );
            total.set_message("0 failed, 0 B, 0.0 trees counted/s");
            (multi, total)
        });
        let log = interval
            .filter(|_| !is_terminal)
            .map(|every| (Mutex::new(Instant::now()), every));
        Bars {
            multi,
            log,
            started: Instant::now(),
            trees: trees as u64,
            done: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    /// Returns the whole run's progress as one plain line.
    fn summary(&self) -> String {
        self.summary_after(self.started.elapsed().as_secs_f64())
    }

    /// Returns the bar's message after `elapsed` seconds: failures, bytes
    /// received and the rate of trees counted (see [`Bars::summary_after`]).
    fn bar_message_after(&self, elapsed: f64) -> String {
        format!(
            "{} failed, {}, {:.1} trees counted/s",
            self.failed.load(Ordering::Relaxed),
            indicatif::HumanBytes(self.bytes.load(Ordering::Relaxed)),
            self.counted_per_sec(elapsed)
        )
    }

    /// Returns how many trees were counted per second over `elapsed` seconds: a
    /// failed tree is done, and counts toward the time left, but eight refused
    /// connections are no throughput.
    fn counted_per_sec(&self, elapsed: f64) -> f64 {
        let done = self.done.load(Ordering::Relaxed);
        let failed = self.failed.load(Ordering::Relaxed);
        per_sec(done.saturating_sub(failed), elapsed)
    }

    /// Returns the progress line after `elapsed` seconds. The rate is of trees
    /// counted ([`Bars::counted_per_sec`]); the time left is estimated from every
    /// tree done.
    fn summary_after(&self, elapsed: f64) -> String {
        let done = self.done.load(Ordering::Relaxed);
        let failed = self.failed.load(Ordering::Relaxed);
        let rate = per_sec(done, elapsed);
        let eta = match (rate > 0.0, self.trees.saturating_sub(done)) {
            (_, 0) => "done".to_string(),
            (true, left) => format!("eta {}", clock(left as f64 / rate)),
            (false, _) => "eta unknown".to_string(),
        };
        format!(
            "progress: {done}/{} trees, {failed} failed, {} received, {:.1} trees counted/s, {}, {} elapsed",
            self.trees,
            indicatif::HumanBytes(self.bytes.load(Ordering::Relaxed)),
            self.counted_per_sec(elapsed),
            eta,
            clock(elapsed),
        )
    }

    /// Writes the plain line to a log when its interval has passed (or `always`).
    fn log_line(&self, always: bool) {
        let Some((last, every)) = &self.log else {
            return;
        };
        let Ok(mut last) = last.lock() else { return };
        if always || last.elapsed() >= *every {
            *last = Instant::now();
            messages::note(self.summary());
        }
    }

    /// Returns the bar of one tree, labelled `label`, placed above the total.
    pub fn tree(&self, label: &str) -> TreeBar<'_> {
        let bar = self.multi.as_ref().map(|(multi, total)| {
            let bar = multi.insert_before(total, ProgressBar::new_spinner());
            bar.set_style(spinner_style());
            bar.set_prefix(label.to_string());
            bar
        });
        TreeBar {
            bars: self,
            bar,
            files: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    /// Clears every bar once the run is over, before the table is printed; a log
    /// gets its last line.
    pub fn finish(&self) {
        if let Some((multi, total)) = &self.multi {
            total.finish_and_clear();
            let _ = multi.clear();
        }
        self.log_line(true);
    }
}

/// Returns `n` per second over `elapsed` seconds; 0 before any time has passed.
fn per_sec(n: u64, elapsed: f64) -> f64 {
    if elapsed > 0.0 {
        n as f64 / elapsed
    } else {
        0.0
    }
}

/// Returns seconds as `1h02m03s`, `2m03s` or `3s`.
fn clock(secs: f64) -> String {
    let secs = secs.round() as u64;
    match (secs / 3600, secs / 60 % 60, secs % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {prefix} {bytes} {msg}").expect("the template is valid")
}

/// Holds one tree's bar.
pub struct TreeBar<'b> {
    bars: &'b Bars,
    bar: Option<ProgressBar>,
    files: AtomicU64,
    /// Bytes of this tree's current attempt seen so far.
    bytes: AtomicU64,
}

impl TreeBar<'_> {
    /// Clears the line and counts `trees` trees read from it as done (several
    /// subfolders of one archive), failed or not.
    pub fn finish_trees(&self, trees: u64, is_ok: bool) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        let bars = self.bars;
        bars.done.fetch_add(trees, Ordering::Relaxed);
        if !is_ok {
            bars.failed.fetch_add(trees, Ordering::Relaxed);
        }
        if let Some((_, total)) = &bars.multi {
            total.set_message(bars.bar_message_after(bars.started.elapsed().as_secs_f64()));
            total.inc(trees);
        }
        bars.log_line(false);
    }
}

impl Progress for TreeBar<'_> {
    fn start(&self, length: Option<u64>) {
        self.bytes.store(0, Ordering::Relaxed);
        let Some(bar) = &self.bar else { return };
        bar.set_position(0);
        match length {
            Some(length) => {
                bar.set_length(length);
                bar.set_style(
                    ProgressStyle::with_template(
                        "{spinner} {prefix} [{bar:20}] {bytes}/{total_bytes} {msg}",
                    )
                    .expect("the template is valid")
                    .progress_chars("=> "),
                );
            }
            None => bar.set_style(spinner_style()),
        }
    }

    fn bytes(&self, total: u64) {
        let before = self.bytes.swap(total, Ordering::Relaxed);
        self.bars
            .bytes
            .fetch_add(total.saturating_sub(before), Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.set_position(total);
        }
    }

    fn file(&self) {
        let files = self.files.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(bar) = &self.bar {
            if files % 64 == 0 {
                bar.set_message(format!("{files} files"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_trees_failures_and_bytes() {
        let bars = Bars::new(Display::Quiet, 3);
        for (ok, bytes) in [(true, 2048u64), (false, 10)] {
            let tree = bars.tree("t");
            tree.start(None);
            tree.bytes(bytes / 2);
            tree.bytes(bytes);
            tree.finish_trees(1, ok);
        }
        let line = bars.summary();
        assert!(
            line.starts_with("progress: 2/3 trees, 1 failed, 2.01 KiB received"),
            "{line}"
        );
        assert!(line.contains("eta "), "{line}");
    }

    #[test]
    fn failed_trees_are_no_throughput() {
        let bars = Bars::new(Display::Quiet, 10);
        for _ in 0..8 {
            bars.tree("t").finish_trees(1, false);
        }
        let line = bars.summary_after(7.0);
        assert!(line.contains("8/10 trees, 8 failed"), "{line}");
        assert!(line.contains(", 0.0 trees counted/s,"), "{line}");
        bars.tree("t").finish_trees(2, true);
        let line = bars.summary_after(4.0);
        assert!(line.contains(", 0.5 trees counted/s,"), "{line}");
        assert!(line.contains(", done,"), "{line}");
    }

    #[test]
    fn the_bar_shows_the_rate_of_trees_counted_not_of_trees_done() {
        let bars = Bars::new(Display::Quiet, 10);
        for _ in 0..8 {
            bars.tree("t").finish_trees(1, false);
        }
        assert_eq!(
            bars.bar_message_after(7.0),
            "8 failed, 0 B, 0.0 trees counted/s"
        );
        bars.tree("t").finish_trees(2, true);
        assert_eq!(
            bars.bar_message_after(4.0),
            "8 failed, 0 B, 0.5 trees counted/s"
        );
        assert_eq!(
            bars.bar_message_after(0.0),
            "8 failed, 0 B, 0.0 trees counted/s"
        );
    }

    #[test]
    fn clock_reads_like_a_clock() {
        assert_eq!(clock(3.0), "3s");
        assert_eq!(clock(123.0), "2m03s");
        assert_eq!(clock(3723.0), "1h02m03s");
    }
}
