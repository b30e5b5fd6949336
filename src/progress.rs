//! Progress bars on stderr: one line per tree being counted (bytes received, files
//! counted) above one line for the whole run (trees done, trees failed).
//!
//! Shown only when stderr is a terminal and `--quiet` is not given; otherwise every
//! call is a no-op, so piped output and logs carry no bar residue. A tree's line is
//! cleared once it is done, so a survey of thousands of trees shows only the ones
//! in flight. Nothing here touches the results on stdout.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

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
    failed: AtomicU64,
}

impl Bars {
    /// Returns bars drawn on stderr for a run of `trees` trees, unless `is_quiet`
    /// or stderr is not a terminal.
    pub fn new(is_quiet: bool, trees: usize) -> Bars {
        let is_shown = !is_quiet && std::io::stderr().is_terminal();
        let multi = is_shown.then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let total = multi.add(ProgressBar::new(trees as u64));
            total.set_style(
                ProgressStyle::with_template("[{bar:30}] {pos}/{len} trees {msg}")
                    .expect("the template is valid")
                    .progress_chars("=> "),
            );
            (multi, total)
        });
        Bars {
            multi,
            failed: AtomicU64::new(0),
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
        }
    }

    /// Clears every bar once the run is over, before the table is printed.
    pub fn finish(&self) {
        if let Some((multi, total)) = &self.multi {
            total.finish_and_clear();
            let _ = multi.clear();
        }
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
}

impl TreeBar<'_> {
    /// Clears the tree's line and counts the tree as done, failed or not.
    pub fn finish(&self, is_ok: bool) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if let Some((_, total)) = &self.bars.multi {
            if !is_ok {
                let failed = self.bars.failed.fetch_add(1, Ordering::Relaxed) + 1;
                total.set_message(format!("({failed} failed)"));
            }
            total.inc(1);
        }
    }
}

impl Progress for TreeBar<'_> {
    fn start(&self, length: Option<u64>) {
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
