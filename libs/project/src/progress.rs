//! The progress a long command reports as it works (the CLI shows it as a
//! spinner on a terminal; a library only reports it).

/// Receives progress while a command works.
pub trait Progress {
    /// A step starts: `label` says what (`build enriched`, `check ...`).
    fn step(&self, label: &str);
    /// Everything is done (or failed).
    fn finish(&self);
}

/// Progress that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn step(&self, _label: &str) {}
    fn finish(&self) {}
}
