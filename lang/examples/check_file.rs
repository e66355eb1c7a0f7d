//! Check one module file and print how long each phase took: a profiling
//! aid for the front-end alone (`cargo run --release -p strata-lang
//! --example check_file -- FILE`); `bench/` measures the whole CLI.
//!
//! It does what `strata check` does: mimalloc, no fingerprints, only the
//! outputs kept, and the result is not freed.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: check_file FILE");
        std::process::exit(2);
    };
    let start = Instant::now();
    let options = strata_lang::LoadOptions {
        skip_fingerprints: true,
        outputs_only: true,
        ..strata_lang::LoadOptions::default()
    };
    let checked = strata_lang::check_files(&[path.into()], &options);
    let elapsed = start.elapsed();
    println!(
        "{} models, {} diagnostics, {:.1} ms",
        checked.module.models.len(),
        checked.diagnostics.len(),
        elapsed.as_secs_f64() * 1000.0
    );
    std::mem::forget(checked);
}
