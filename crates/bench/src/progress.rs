//! The progress bar of a long run: the current step, the work done and an ETA.
//!
//! Work is counted in estimated milliseconds (a sysbench cell counts its `--time`, a loop
//! over tables its table count divided by an expected rate), so indicatif's ETA is a time
//! estimate rather than a count of unequal steps, and a short loop still moves the bar.
//! Estimates are estimates: work beyond the plan lengthens the bar instead of overflowing
//! it, and [`Progress::finish`] fills it, so a finished run always shows 100%. When stderr
//! is not a terminal (CI logs) the bar is hidden and each step is printed as a line instead.

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
        Progress::with_bar(ProgressBar::new(1), title, total_estimated_s)
    }

    fn with_bar(bar: ProgressBar, title: &str, total_estimated_s: u64) -> Progress {
        bar.set_length(ms(total_estimated_s));
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
        self.bar
            .set_length(ms(total_estimated_s).max(self.bar.position()));
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
        self.advance_ms(estimated_s.saturating_mul(1000));
    }

    /// Marks `estimated_ms` milliseconds of the planned work as done; work beyond the plan
    /// lengthens the bar (the ETA then grows) rather than passing 100%.
    pub fn advance_ms(&self, estimated_ms: u64) {
        let position = self.bar.position().saturating_add(estimated_ms);
        if position > self.bar.length().unwrap_or(0) {
            self.bar.set_length(position);
        }
        self.bar.set_position(position);
    }

    /// The share of the planned work done, in percent (0 to 100).
    pub fn percent(&self) -> u64 {
        let length = self.bar.length().unwrap_or(1).max(1);
        self.bar.position().min(length) * 100 / length
    }

    /// Prints a line above the bar (or to stderr when hidden).
    pub fn note(&self, message: &str) {
        if self.bar.is_hidden() {
            eprintln!("{message}");
        } else {
            self.bar.println(message);
        }
    }

    /// Fills the bar (the plan is done, whatever the estimates said) and leaves it shown.
    pub fn finish(&self) {
        let length = self
            .bar
            .length()
            .unwrap_or(1)
            .max(self.bar.position())
            .max(1);
        self.bar.set_length(length);
        self.bar.set_position(length);
        if self.bar.is_hidden() {
            eprintln!(
                "[{:>6.1}s] done (100%)",
                self.started.elapsed().as_secs_f64()
            );
        }
        self.bar.finish_with_message("done");
    }
}

/// Seconds of estimated work in the bar's unit; never zero, so a bar always has a length.
fn ms(seconds: u64) -> u64 {
    seconds.saturating_mul(1000).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hidden(total_s: u64) -> Progress {
        Progress::with_bar(ProgressBar::hidden(), "test", total_s)
    }

    #[test]
    fn a_finished_run_shows_100_percent_whatever_the_estimates() {
        let progress = hidden(100);
        progress.advance(14);
        assert_eq!(progress.percent(), 14);
        progress.finish();
        assert_eq!(progress.percent(), 100);
        assert_eq!(progress.bar.position(), progress.bar.length().unwrap());
    }

    #[test]
    fn work_beyond_the_plan_lengthens_the_bar() {
        let progress = hidden(10);
        progress.advance(8);
        progress.advance(8);
        assert_eq!(progress.percent(), 100);
        assert_eq!(progress.bar.length(), Some(16_000));
        // A later, smaller plan cannot put the bar behind the work already done.
        progress.set_total(5);
        assert_eq!(progress.bar.length(), Some(16_000));
    }

    #[test]
    fn milliseconds_move_a_short_bar() {
        let progress = hidden(1);
        progress.advance_ms(250);
        assert_eq!(progress.percent(), 25);
    }
}
