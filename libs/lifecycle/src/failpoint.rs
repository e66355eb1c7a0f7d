//! Test hooks: with `STRATA_FAILPOINT_<POINT>_MS=n` set, a command says so
//! on stderr and sleeps `n` ms at that point, so that a test can kill it at
//! the worst moment (`before commit`, `before publish`, `before changes`).

/// With `STRATA_FAILPOINT_<POINT>_MS=n` set (`point` in upper case, spaces
/// as `_`), say so on stderr and sleep `n` ms.
pub fn failpoint(point: &str) {
    let var = format!(
        "STRATA_FAILPOINT_{}_MS",
        point.to_ascii_uppercase().replace(' ', "_")
    );
    if let Some(ms) = std::env::var(var).ok().and_then(|v| v.parse::<u64>().ok()) {
        eprintln!("strata: failpoint {point}: sleeping {ms} ms");
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}
