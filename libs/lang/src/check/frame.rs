//! Window frames (`rows: [start, end]`, `range: [start, end]`): which
//! functions take one and which frames engines run (E066).

use strata_codes as codes;

use crate::ast::{Frame, FrameBound, FrameUnit};
use crate::catalog::{self, Function};
use crate::diag::Diagnostic;
use crate::ir::{SortKey, TFrame};
use crate::types::Type;

/// The frame of a call of `func` whose window sorts by `sort`, or the E066
/// saying why no engine would run it.
pub(super) fn check(
    func: &Function,
    frame: &Frame,
    sort: &[SortKey],
) -> Result<TFrame, Diagnostic> {
    let name = func.name;
    let unit = frame.unit.word();
    let fail = |msg: String, help: String| {
        Err(Diagnostic::new(&codes::E066, frame.span, msg).with_help(help))
    };
    if !func.frame {
        let framed: Vec<&str> = catalog::functions()
            .filter(|f| f.window && f.frame)
            .map(|f| f.name)
            .collect();
        return fail(
            format!("{name}() takes no frame: it reads its whole partition in order"),
            format!("drop `{unit}: [..]`; a frame goes on {}", framed.join(", ")),
        );
    }
    if let (FrameBound::Offset(s), FrameBound::Offset(e)) = (frame.start, frame.end) {
        if s > e {
            return fail(
                format!("the frame starts after it ends ({unit}: [{s}, {e}])"),
                "write the earlier bound first: negative offsets are before the current row, positive after it".into(),
            );
        }
    }
    let whole = frame.start == FrameBound::Unbounded && frame.end == FrameBound::Unbounded;
    if sort.is_empty() && (frame.unit == FrameUnit::Range || !whole) {
        return fail(
            format!("a {unit}: frame needs the window's sort: to say which rows come before"),
            "add `sort: [key]` to the over(..)".into(),
        );
    }
    let offset = |b: FrameBound| matches!(b, FrameBound::Offset(v) if v != 0);
    if frame.unit == FrameUnit::Range && (offset(frame.start) || offset(frame.end)) {
        let one_int = sort.len() == 1 && sort[0].expr.ty == Type::Int64;
        if !one_int {
            return fail(
                "a range: frame with an offset measures it in the one sort key, which must be a single int64".into(),
                "sort the window by one int64 key, or count rows instead: `rows: [..]`".into(),
            );
        }
    }
    Ok(TFrame {
        unit: frame.unit,
        start: frame.start,
        end: frame.end,
    })
}
