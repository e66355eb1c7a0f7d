// mimalloc (version 2, built with its `no_thp` feature): checking allocates
// many small, short-lived values, which mimalloc serves faster than glibc's
// allocator (bench/README.md). `no_thp` keeps it from asking for transparent
// huge pages, which on a virtual machine that hands free memory back to its
// host must be brought back whole after every pause.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(strata_cli::main_with_args(std::env::args_os()));
}
