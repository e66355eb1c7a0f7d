//! A progress display on stderr while models build and checks run: only on
//! a terminal, never when stderr is redirected.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A spinner naming the current step; inert when stderr is not a terminal.
pub struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    pub fn new() -> Bar {
        if !std::io::stderr().is_terminal() {
            return Bar { bar: None };
        }
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed:>4} {msg}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(120));
        Bar { bar: Some(bar) }
    }
}

impl Default for Bar {
    fn default() -> Self {
        Bar::new()
    }
}

impl strata_plugin::Progress for Bar {
    fn step(&self, label: &str) {
        if let Some(b) = &self.bar {
            b.set_message(label.to_string());
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
