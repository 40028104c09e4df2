//! The progress bar of a long run: the current step, the work done and an ETA.
//!
//! Work is counted in estimated seconds (a sysbench cell counts its `--time`, a loop over
//! tables its table count divided by an expected rate), so indicatif's ETA is a time
//! estimate rather than a count of unequal steps. When stderr is not a terminal (CI logs)
//! the bar is hidden and each step is printed as a line instead.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar over estimated seconds of work.
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
}

impl Progress {
    /// A bar for `total_estimated_s` seconds of work.
    pub fn new(title: &str, total_estimated_s: u64) -> Progress {
        let bar = ProgressBar::new(total_estimated_s.max(1));
        let style = ProgressStyle::with_template(
            "{prefix} [{elapsed_precise}] {wide_bar} {percent:>3}% ETA {eta} | {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(title.to_string());
        if !bar.is_hidden() {
            bar.enable_steady_tick(Duration::from_millis(500));
        }
        Progress {
            bar,
            started: Instant::now(),
        }
    }

    /// Sets the planned work once the experiment knows its plan.
    pub fn set_total(&self, total_estimated_s: u64) {
        self.bar.set_length(total_estimated_s.max(1));
    }

    /// Announces the step now running.
    pub fn step(&self, message: &str) {
        if self.bar.is_hidden() {
            eprintln!(
                "[{:>6.1}s] {}",
                self.started.elapsed().as_secs_f64(),
                message
            );
        }
        self.bar.set_message(message.to_string());
    }

    /// Updates the bar's message without logging a line (for counts within a step).
    pub fn update(&self, message: String) {
        self.bar.set_message(message);
    }

    /// Marks `estimated_s` seconds of the planned work as done.
    pub fn advance(&self, estimated_s: u64) {
        self.bar.inc(estimated_s);
    }

    /// Prints a line above the bar (or to stderr when hidden).
    pub fn note(&self, message: &str) {
        if self.bar.is_hidden() {
            eprintln!("{message}");
        } else {
            self.bar.println(message);
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
