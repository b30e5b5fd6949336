//! Progress bars on stderr: bytes downloaded and files counted, one bar per tree.
//!
//! Shown only when stderr is a terminal and `--quiet` is not given; otherwise every
//! call is a no-op, so piped output and logs carry no bar residue. Nothing here
//! touches the results on stdout.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::fetch::Progress;

/// Holds the bars of a run, or nothing when progress is off.
pub struct Bars {
    multi: Option<MultiProgress>,
}

impl Bars {
    /// Returns bars drawn on stderr, unless `is_quiet` or stderr is not a terminal.
    pub fn new(is_quiet: bool) -> Bars {
        let is_shown = !is_quiet && std::io::stderr().is_terminal();
        Bars {
            multi: is_shown.then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr())),
        }
    }

    /// Returns the bar of one tree, labelled `label`.
    pub fn tree(&self, label: &str) -> TreeBar {
        let bar = self.multi.as_ref().map(|multi| {
            let bar = multi.add(ProgressBar::new_spinner());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {prefix} {bytes} {msg}")
                    .expect("the template is valid"),
            );
            bar.set_prefix(label.to_string());
            bar
        });
        TreeBar {
            bar,
            files: AtomicU64::new(0),
        }
    }
}

/// Holds one tree's bar.
pub struct TreeBar {
    bar: Option<ProgressBar>,
    files: AtomicU64,
}

impl TreeBar {
    /// Ends the bar with a last word (`ok`, `error`).
    pub fn finish(&self, word: &str) {
        if let Some(bar) = &self.bar {
            let files = self.files.load(Ordering::Relaxed);
            bar.finish_with_message(format!("{files} files, {word}"));
        }
    }
}

impl Progress for TreeBar {
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
                bar.tick();
            }
        }
    }
}
