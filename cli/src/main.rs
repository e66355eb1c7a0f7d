// mimalloc (version 2): checking allocates many small, short-lived values,
// and mimalloc serves them with transparent huge pages and without the lock
// contention glibc's arenas have between threads: `strata check` of 2,000
// models takes ~31 ms instead of ~48 ms (bench/README.md). Memory stays in
// budget because model bodies are only skimmed while loading and parsed just
// before each model is checked (`strata_lang::parser::parse_deferred`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(strata_cli::main_with_args(std::env::args_os()));
}
