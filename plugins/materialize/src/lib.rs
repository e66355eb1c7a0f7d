//! The materialize plugin: the warehouse commands of `strata` — `run`,
//! `test`, `plan`, `replay`, `rollback`, `branches`, `gc` — registered
//! through `inventory` (the CLI has no list of them). Each parses its
//! arguments, calls the lifecycle (`strata-lifecycle`, on the engines of
//! `strata-engine`) and renders what it did.

pub mod args;
mod backfill;
mod branches;
mod fixtures;
mod gc;
mod metrics;
mod openlineage;
mod plan;
mod profile;
mod replay;
mod report;
mod rollback;
mod run;
mod status;

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
            "Materialize the module in the warehouse (DuckDB, PostgreSQL or Spark): build, check (pins, join \
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
            "Run the fixture tests (each model on the rows its test gives, no warehouse \
             needed), then materialize into the `test` branch and run the declarative tests; \
             live views are never touched",
        )
        .after_long_help(run::TEST_HELP),
        run: test_command,
    }
}

inventory::submit! {
    PluginCommand {
        name: "replay",
        order: 13,
        command: || command::<replay::ReplayArgs>(
            "replay",
            "List recorded runs, show one, or re-execute one from its frozen inputs",
        ),
        run: replay_command,
    }
}

fn rollback_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| rollback::rollback(args, host))
}

fn branches_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| branches::branches(args, host))
}

fn gc_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| gc::gc(args, host))
}

inventory::submit! {
    PluginCommand {
        name: "rollback",
        order: 14,
        command: || command::<rollback::RollbackArgs>(
            "rollback",
            "Point the live views back at an earlier run's snapshots, in one transaction \
             (recorded as a run of its own)",
        ),
        run: rollback_command,
    }
}

inventory::submit! {
    PluginCommand {
        name: "branches",
        order: 15,
        command: || command::<branches::BranchesArgs>(
            "branches",
            "List the warehouse's branches: each model's live and staged views and the runs \
             they show",
        ),
        run: branches_command,
    }
}

inventory::submit! {
    PluginCommand {
        name: "gc",
        order: 16,
        command: || command::<gc::GcArgs>(
            "gc",
            "List (and with --apply drop) the snapshots and frozen inputs that no kept run \
             needs",
        ),
        run: gc_command,
    }
}

fn plan_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| plan::plan(args, host))
}

inventory::submit! {
    PluginCommand {
        name: "plan",
        order: 12,
        command: || command::<plan::PlanArgs>(
            "plan",
            "Say which models a run would rebuild and why (changed model, changed input, \
             never built, upstream rebuilt); builds nothing",
        ),
        run: plan_command,
    }
}

fn status_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| status::status(args, host))
}

fn profile_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| profile::profile(args, host))
}

const STATUS_ABOUT: &str = "One screen on a module and its warehouse: each model's contract, \
     fingerprint, freshness and reads; protected columns read downstream; the last runs";

inventory::submit! {
    PluginCommand {
        name: "status",
        order: 17,
        command: || command::<status::StatusArgs>("status", STATUS_ABOUT),
        run: status_command,
    }
}

inventory::submit! {
    PluginCommand {
        name: "dashboard",
        order: 17,
        command: || command::<status::StatusArgs>(
            "dashboard",
            "The reference's name for `strata status` (the same command)",
        ),
        run: status_command,
    }
}

inventory::submit! {
    PluginCommand {
        name: "profile",
        order: 18,
        command: || command::<profile::ProfileArgs>(
            "profile",
            "Where the time goes: parse, check, rules and each model's SQL; with --run, \
             each model's build, rows and checks in the warehouse, most expensive first",
        ),
        run: profile_command,
    }
}

fn backfill_command(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse(matches).map_or_else(|code| code, |args| backfill::backfill(args, host))
}

inventory::submit! {
    PluginCommand {
        name: "backfill",
        order: 13,
        command: || command::<backfill::BackfillArgs>(
            "backfill",
            "Re-run a past run with corrected sources (every other source from the run's \
             frozen inputs), every check included; recorded as its backfill with the reason",
        ),
        run: backfill_command,
    }
}
