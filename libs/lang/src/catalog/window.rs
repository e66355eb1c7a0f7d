//! Window functions: one value per row from the rows of its window
//! (`over (partition_by: [..], sort: [..])`), which they need. The ranking
//! and offset functions read the whole partition and take no frame;
//! `first_value` and `last_value` read their frame (`rows: [..]`).

use super::ArgKind::*;
use super::Returns::*;
use super::{Family, Function, Sql, SCALAR};

const WIN: Function = Function {
    family: Family::Window,
    window: true,
    min_args: 0,
    max_args: Some(0),
    kinds: &[Any],
    ..SCALAR
};

pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "row_number",
        example: "row_number() over (partition_by: [k], sort: [i])",
        returns: Int64NonNull,
        signature: "row_number()",
        summary: "the row's position in its window's order, from 1, ties numbered apart",
        sql: Sql::Same("ROW_NUMBER"),
        ..WIN
    },
    Function {
        name: "rank",
        example: "rank() over (partition_by: [k], sort: [i])",
        returns: Int64NonNull,
        signature: "rank()",
        summary: "the row's rank in its window's order, ties sharing one and leaving gaps",
        sql: Sql::Same("RANK"),
        ..WIN
    },
    Function {
        name: "dense_rank",
        example: "dense_rank() over (partition_by: [k], sort: [i])",
        returns: Int64NonNull,
        signature: "dense_rank()",
        summary: "the row's rank in its window's order, ties sharing one, without gaps",
        sql: Sql::Same("DENSE_RANK"),
        ..WIN
    },
    Function {
        name: "lag",
        example: "lag(i, 1) over (partition_by: [k], sort: [i])",
        min_args: 1,
        max_args: Some(3),
        returns: SameNullable,
        signature: "lag(x, offset, default)",
        summary:
            "x of the row offset (default 1) rows before, or default (null) where there is none",
        sql: Sql::Same("LAG"),
        ..WIN
    },
    Function {
        name: "lead",
        example: "lead(i, 1, 0) over (partition_by: [k], sort: [i])",
        min_args: 1,
        max_args: Some(3),
        returns: SameNullable,
        signature: "lead(x, offset, default)",
        summary:
            "x of the row offset (default 1) rows after, or default (null) where there is none",
        sql: Sql::Same("LEAD"),
        ..WIN
    },
    Function {
        name: "first_value",
        frame: true,
        example: "first_value(s) over (partition_by: [k], sort: [i])",
        min_args: 1,
        max_args: Some(1),
        returns: SameA1,
        signature: "first_value(x)",
        summary: "x of the window's first row",
        sql: Sql::Same("FIRST_VALUE"),
        ..WIN
    },
    Function {
        name: "last_value",
        frame: true,
        example: "last_value(s) over (partition_by: [k], sort: [i])",
        min_args: 1,
        max_args: Some(1),
        returns: SameA1,
        signature: "last_value(x)",
        summary: "x of the window's last row (with a sort, the current row's last peer)",
        sql: Sql::Same("LAST_VALUE"),
        ..WIN
    },
];
