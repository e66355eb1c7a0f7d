//! A window's frame (`ROWS` / `RANGE BETWEEN ...`) as strata writes it
//! (`rows: [unbounded, 0]`), with DuckDB's meaning.

use sqlparser::ast as sql;

use super::{Refusal, R};

/// The frame of a call of strata function `name` as strata writes it;
/// `None` for the default frame (from the partition's start to the
/// current row and its peers), which strata's windows use unless told.
/// A ranking function (`row_number`, `rank`, `dense_rank`) reads no frame
/// in any engine: its frame is dropped. Other functions that read none in
/// strata (`lag`, `lead`, ...) are refused with one.
pub(super) fn frame(f: &sql::WindowFrame, name: &str, e: &sql::Expr) -> R<Option<String>> {
    let default = matches!(f.units, sql::WindowFrameUnits::Range)
        && matches!(f.start_bound, sql::WindowFrameBound::Preceding(None))
        && matches!(f.end_bound, None | Some(sql::WindowFrameBound::CurrentRow));
    if default || matches!(name, "row_number" | "rank" | "dense_rank") {
        return Ok(None);
    }
    if !strata_lang::catalog::lookup(name).is_some_and(|func| func.frame) {
        return Err(Refusal::at(
            format!("a window frame on {name}(), which reads no frame in strata"),
            e,
        ));
    }
    let units = match f.units {
        sql::WindowFrameUnits::Rows => "rows",
        sql::WindowFrameUnits::Range => "range",
        sql::WindowFrameUnits::Groups => {
            return Err(Refusal::at(
                "a GROUPS window frame has no strata equivalent",
                e,
            ))
        }
    };
    let start = bound(&f.start_bound, e)?;
    let end = bound(
        f.end_bound
            .as_ref()
            .unwrap_or(&sql::WindowFrameBound::CurrentRow),
        e,
    )?;
    Ok(Some(format!("{units}: [{start}, {end}]")))
}

/// One bound: `unbounded`, or a whole number of rows (or of the sort
/// key's unit), negative before the current row.
fn bound(b: &sql::WindowFrameBound, e: &sql::Expr) -> R<String> {
    let (n, sign) = match b {
        sql::WindowFrameBound::CurrentRow => return Ok("0".into()),
        sql::WindowFrameBound::Preceding(None) | sql::WindowFrameBound::Following(None) => {
            return Ok("unbounded".into())
        }
        sql::WindowFrameBound::Preceding(Some(n)) => (n, "-"),
        sql::WindowFrameBound::Following(Some(n)) => (n, ""),
    };
    match &**n {
        sql::Expr::Value(v) => match &v.value {
            sql::Value::Number(t, _) if t.parse::<u32>().is_ok() => {
                let v: u32 = t.parse().unwrap_or(0);
                Ok(if v == 0 {
                    "0".into()
                } else {
                    format!("{sign}{v}")
                })
            }
            _ => Err(frame_offset(n, e)),
        },
        _ => Err(frame_offset(n, e)),
    }
}

fn frame_offset(n: &sql::Expr, e: &sql::Expr) -> Refusal {
    Refusal::at(
        format!("a window frame offset `{n}`: strata's frames count whole numbers (no interval)"),
        e,
    )
}
