//! Model fingerprints: SHA-256, as 64 lowercase hex digits, of a canonical
//! serialisation of the model, so that a change to a model or to anything
//! upstream changes it, and reformatting (or editing comments) does not.
//!
//! Fingerprints are stored with every run (`_strata_runs`) and compared by
//! later builds, so the bytes hashed are spelled out here rather than left to
//! `derive(Hash)` (whose output Rust does not promise to keep across
//! compiler releases or enum edits). They are, in this order:
//!
//! ```text
//! strata-fingerprint-v2\n
//! contract <len>:<contract name>\n        or  contract -\n
//! model <len>:<canonical text>\n
//! upstream <len>:<model name> <len>:<its fingerprint>\n   (or ` -` for none)
//! ```
//!
//! with one `upstream` line per input of the model that is a model, in the
//! model's input order; `<len>` is the byte length of what follows the colon
//! (in decimal), so no field can run into the next. The canonical text is
//! the declaration's syntax tree as its derived `Serialize` describes it
//! (variant names and values, struct fields by position), spans left out ([`crate::canon`]):
//! layout, comments and `where` for `filter` do not count; the model's name
//! and contract do.
//!
//! Anything that changes these bytes for an unchanged model (a field of the
//! syntax tree added or renamed) changes every fingerprint: bump the
//! version line when doing so on purpose, and expect the pinned test in
//! `tests` below to fail until its value is updated. A stored fingerprint is
//! compared with a current one through [`compare_recorded`], which tells a
//! fingerprint of an older format (16 hex digits, before v2) from a changed
//! model.

use sha2::{Digest, Sha256};

use crate::ast::ModelDecl;
use crate::ir;

/// The first line of the bytes hashed: the version of this encoding.
pub const VERSION: &str = "strata-fingerprint-v2";

/// The number of hex digits of a fingerprint.
pub const LEN: usize = 64;

/// The bytes a model's fingerprint hashes (see the module documentation).
pub fn canonical_bytes<'u>(
    m: &ModelDecl,
    model: &ir::Model,
    upstream: impl Fn(&str) -> Option<&'u str>,
) -> Vec<u8> {
    let mut bytes = Vec::new();
    encode(m, model, upstream, &mut |b| bytes.extend_from_slice(b));
    bytes
}

/// Fingerprint of a checked model; `upstream` gives the fingerprint of each
/// model it reads (checked before it).
pub fn model_fingerprint<'u>(
    m: &ModelDecl,
    model: &ir::Model,
    upstream: impl Fn(&str) -> Option<&'u str>,
) -> String {
    let mut hasher = Sha256::new();
    encode(m, model, upstream, &mut |b| hasher.update(b));
    let mut hex = String::with_capacity(LEN);
    for b in hasher.finalize() {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    hex
}

/// Give the bytes a model's fingerprint hashes to `out`, piece by piece (so
/// that hashing them needs no copy).
fn encode<'u>(
    m: &ModelDecl,
    model: &ir::Model,
    upstream: impl Fn(&str) -> Option<&'u str>,
    out: &mut dyn FnMut(&[u8]),
) {
    out(VERSION.as_bytes());
    out(b"\ncontract ");
    field(out, model.contract.as_deref().map(str::as_bytes));
    out(b"\nmodel ");
    field(out, Some(&crate::canon::canonical(m)));
    out(b"\n");
    for input in model
        .inputs
        .iter()
        .filter(|i| i.kind == ir::InputKind::Model)
    {
        out(b"upstream ");
        field(out, Some(input.name.as_bytes()));
        out(b" ");
        field(out, upstream(&input.name).map(str::as_bytes));
        out(b"\n");
    }
}

/// `<len>:<bytes>`, or `-` for no value.
fn field(out: &mut dyn FnMut(&[u8]), value: Option<&[u8]>) {
    match value {
        Some(v) => {
            out(v.len().to_string().as_bytes());
            out(b":");
            out(v);
        }
        None => out(b"-"),
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Whether `fp` has the form of a fingerprint of the current format.
pub fn is_current_format(fp: &str) -> bool {
    fp.len() == LEN && fp.bytes().all(|b| HEX.contains(&b))
}

/// How a fingerprint recorded earlier (in a warehouse's run history)
/// compares with a model's current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// The model is the one recorded.
    Same,
    /// The model, or a model upstream of it, changed since.
    Changed,
    /// The recorded fingerprint is not of the current format (16 hex
    /// digits, as strata wrote before fingerprint v2): it cannot tell
    /// whether the model changed.
    OlderFormat,
}

/// Compare a recorded fingerprint with the current one (as
/// [`model_fingerprint`] computes it). Every comparison
/// of a stored fingerprint goes through here, so that a format change is
/// never taken for a changed model. The format is told by the recorded
/// text alone: a later format must not also be 64 lowercase hex digits
/// (give it a prefix, say), or it would compare as [`Recorded::Changed`].
pub fn compare_recorded(recorded: &str, current: &str) -> Recorded {
    if recorded == current {
        Recorded::Same
    } else if !is_current_format(recorded) {
        Recorded::OlderFormat
    } else {
        Recorded::Changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Checked;

    const SEED: &str = include_str!("../../../examples/seed/orders.strata");

    /// The seed's `enriched` model, in the current format. This value may
    /// only change on purpose: a change invalidates every fingerprint stored
    /// in users' warehouses (and, with `plan`, what is taken as up to date).
    const ENRICHED: &str = "2e07ceb606e0387314ffcf2f009f0abf3fe59f67aa9c0cad4bd04e8bb270b04c";

    fn checked(text: &str) -> Checked {
        let c = crate::check_text("orders.strata", text);
        assert!(
            !c.diagnostics.iter().any(|d| d.is_error()),
            "{:?}",
            c.diagnostics
        );
        c
    }

    fn fingerprint(c: &Checked, model: &str) -> String {
        c.module
            .models
            .iter()
            .find(|m| m.name == model)
            .map(|m| m.fingerprint.clone())
            .unwrap_or_else(|| panic!("no model {model}"))
    }

    #[test]
    fn the_seed_enriched_fingerprint_is_pinned() {
        let fp = fingerprint(&checked(SEED), "enriched");
        assert_eq!(fp, ENRICHED);
        assert!(is_current_format(&fp));
    }

    /// What `enriched` hashes, byte for byte: the format is the one the
    /// module documentation describes.
    #[test]
    fn the_seed_enriched_bytes_are_the_documented_encoding() {
        let loaded = crate::parser::parse(crate::FileId(0), SEED).0;
        let decl = loaded
            .decls
            .iter()
            .find_map(|d| match d {
                crate::ast::Decl::Model(m) if m.name.name == "enriched" => Some(m),
                _ => None,
            })
            .expect("enriched is declared");
        let c = checked(SEED);
        let model = c
            .module
            .models
            .iter()
            .find(|m| m.name == "enriched")
            .expect("enriched is checked");
        let text = concat!(
            r#"{{"enriched"},false,null,["#,
            r#"{From({"orders"})},"#,
            r#"{Join({"left",{"customers"},{Binary{"Eq","#,
            r#"{Column{{"orders"},{"customer_id"}}},"#,
            r#"{Column{{"customers"},{"customer_id"}}}}},"#,
            r#"{"many_to_one"}})},"#,
            r#"{Assign["Select",[{{"order_id"},{Column{null,{"order_id"}}}},"#,
            r#"{{"country"},{Column{{"customers"},{"country"}}}}]]}]}"#,
        );
        let expected = format!(
            "strata-fingerprint-v2\ncontract -\nmodel {}:{text}\n",
            text.len()
        );
        let bytes = canonical_bytes(decl, model, |_| None);
        assert_eq!(String::from_utf8_lossy(&bytes), expected);
        let digest = Sha256::digest(expected.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(model.fingerprint, hex);
    }

    /// A sort key or a window without a placement or frame hashes as it
    /// did before those existed (the same bytes as the old shapes), so
    /// adding them changed no recorded fingerprint.
    #[test]
    fn sorts_and_windows_without_placements_or_frames_keep_their_bytes() {
        use crate::ast::{Expr, ExprKind, SortKey};
        use crate::canon::canonical;
        #[derive(serde::Serialize)]
        struct OldSortKey {
            expr: Expr,
            desc: bool,
            asc_written: bool,
        }
        #[derive(serde::Serialize)]
        struct OldWindow {
            partition_by: Vec<Expr>,
            sort: Vec<(Expr, bool)>,
            parts_written: Vec<bool>,
            span: crate::span::Span,
        }
        let call = crate::parser::parse_expr(
            crate::FileId(0),
            "sum(x) over (partition_by: [k], sort: [a desc, b])",
        )
        .expect("parses");
        let ExprKind::Call(c) = &call.kind else {
            panic!("a call")
        };
        let w = c.over.as_deref().expect("a window");
        let old = OldWindow {
            partition_by: w.partition_by.clone(),
            sort: w.sort.iter().map(|k| (k.expr.clone(), k.desc)).collect(),
            parts_written: w.parts_written.clone(),
            span: w.span,
        };
        assert_eq!(canonical(w), canonical(&old));
        let key = SortKey {
            expr: w.sort[0].expr.clone(),
            desc: true,
            asc_written: false,
            nulls: None,
        };
        let old = OldSortKey {
            expr: key.expr.clone(),
            desc: true,
            asc_written: false,
        };
        assert_eq!(canonical(&key), canonical(&old));
        let placed = SortKey {
            nulls: Some(crate::ast::Nulls::First),
            ..key
        };
        assert_ne!(canonical(&placed), canonical(&old));
    }

    #[test]
    fn reformatting_and_comments_leave_it_unchanged() {
        let formatted = crate::fmt::format_source(crate::FileId(0), SEED).expect("formats");
        let relaid = SEED.replace(
            "model enriched {\n  from orders\n",
            "\n\nmodel   enriched{ from orders // the orders\n\n  /* each order, with its customer */\n",
        );
        assert_ne!(relaid, SEED);
        let recommented = SEED.replace(
            "# `enriched` promises each order matches at most one customer;",
            "# (edited) enriched: at most one customer per order",
        );
        assert_ne!(recommented, SEED);
        for text in [formatted, relaid, recommented] {
            assert_eq!(fingerprint(&checked(&text), "enriched"), ENRICHED, "{text}");
        }
    }

    #[test]
    fn a_change_to_the_model_or_upstream_changes_it() {
        let base =
            format!("{SEED}model spend {{ from enriched select {{ order_id = order_id }} }}\n");
        let c = checked(&base);
        let (spend, profiles) = (fingerprint(&c, "spend"), fingerprint(&c, "profiles"));
        assert_eq!(fingerprint(&c, "enriched"), ENRICHED);
        assert!(is_current_format(&spend));
        // A change to `spend` alone.
        let own = base.replace(
            "select { order_id = order_id } }",
            "select { id = order_id } }",
        );
        assert_ne!(own, base);
        let c = checked(&own);
        assert_ne!(fingerprint(&c, "spend"), spend);
        assert_eq!(fingerprint(&c, "enriched"), ENRICHED);
        // A change to `enriched`, upstream of `spend`: `spend` changes too,
        // though its own text did not; `profiles` reads no model and stays.
        let up = base.replace("expect many_to_one", "expect one_to_one");
        assert_ne!(up, base);
        let c = checked(&up);
        assert_ne!(fingerprint(&c, "enriched"), ENRICHED);
        assert_ne!(fingerprint(&c, "spend"), spend);
        assert_eq!(fingerprint(&c, "profiles"), profiles);
        // So does a contract named by the model.
        let contracted = base.replace(
            "model enriched {",
            "contract E { order_id: int64  country: string }\nmodel enriched -> contract E {",
        );
        assert_ne!(fingerprint(&checked(&contracted), "enriched"), ENRICHED);
    }

    /// A string's spaces are part of the model: the canonical text is not
    /// whitespace-collapsed.
    #[test]
    fn spaces_inside_a_string_count() {
        let with = |s: &str| {
            let text = SEED.replace(
                "select { order_id = order_id, country",
                &format!(
                    "filter customers.country != \"{s}\"\n  select {{ order_id = order_id, country"
                ),
            );
            fingerprint(&checked(&text), "enriched")
        };
        assert_ne!(with("a b"), with("a  b"));
    }

    #[test]
    fn fields_cannot_run_into_each_other() {
        let fields = |values: &[Option<&str>]| {
            let mut bytes = Vec::new();
            for v in values {
                field(&mut |b| bytes.extend_from_slice(b), v.map(str::as_bytes));
            }
            bytes
        };
        assert_ne!(
            fields(&[Some("ab"), Some("c")]),
            fields(&[Some("a"), Some("bc")])
        );
        assert_ne!(fields(&[None]), fields(&[Some("-")]));
    }

    #[test]
    fn a_recorded_fingerprint_is_same_changed_or_of_an_older_format() {
        let other = ENRICHED.replace('9', "8");
        assert_eq!(compare_recorded(ENRICHED, ENRICHED), Recorded::Same);
        assert_eq!(compare_recorded(&other, ENRICHED), Recorded::Changed);
        // What strata wrote before v2: 16 hex digits.
        assert_eq!(
            compare_recorded("6088cd087778d30e", ENRICHED),
            Recorded::OlderFormat
        );
        // Nor is anything else of the current format a changed model.
        assert_eq!(compare_recorded("", ENRICHED), Recorded::OlderFormat);
        assert_eq!(
            compare_recorded(&ENRICHED.to_uppercase(), ENRICHED),
            Recorded::OlderFormat
        );
        assert!(!is_current_format(&ENRICHED[..63]));
    }
}
