//! Exit codes, the same for every command (docs/commands.md lists them).

/// Success.
pub const OK: i32 = 0;
/// The module has errors (parse, type, rule).
pub const MODULE_ERRORS: i32 = 1;
/// Usage error (bad flags or arguments).
pub const USAGE: i32 = 2;
/// A data check failed (pin, join cardinality, declarative test).
pub const DATA_CHECK: i32 = 3;
/// Environment failure: file or warehouse cannot be opened, database error, lock held.
pub const ENVIRONMENT: i32 = 4;
