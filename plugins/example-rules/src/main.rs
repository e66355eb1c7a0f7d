//! `strata-example`: the `strata` command line with the example rules
//! linked in. Every command works as in `strata`; `check` also reports W020.

// Naming the rule crate links it, and its `#[rule]` registrations with it.
extern crate strata_example_rules;

fn main() {
    std::process::exit(strata_cli::main_with_args(std::env::args_os()));
}
