fn main() {
    std::process::exit(strata_cli::main_with_args(std::env::args_os()));
}
