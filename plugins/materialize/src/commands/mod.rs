//! The commands this plugin adds to `strata`, registered through
//! `inventory` (the CLI has no list of them): `run`, `test`, `replay`.

pub mod replay;
pub mod run;

use strata_plugin::{command, parse, Host, PluginCommand};

fn run_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| run::run(args, host))
}

fn test_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| run::test(args, host))
}

fn replay_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| replay::run(args, host))
}

inventory::submit! {
    PluginCommand {
        name: "run",
        order: 10,
        command: || command::<run::RunArgs>(
            "run",
            "Materialize the module in the warehouse (DuckDB or PostgreSQL): build, check (pins, join \
             cardinality, tests) and publish, all or nothing",
        ),
        run: run_command,
    }
}

inventory::submit! {
    PluginCommand {
        name: "test",
        order: 11,
        command: || command::<run::TestArgs>(
            "test",
            "Materialize into the `test` branch and run the declarative tests; live views \
             are never touched",
        ),
        run: test_command,
    }
}

inventory::submit! {
    PluginCommand {
        name: "replay",
        order: 12,
        command: || command::<replay::ReplayArgs>(
            "replay",
            "List recorded runs, show one, or re-execute one from its frozen inputs",
        ),
        run: replay_command,
    }
}
