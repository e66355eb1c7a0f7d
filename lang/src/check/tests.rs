//! Checker tests: the representative programs of the reference notes
//! (section 7) with their verdicts and schemas, and the join-cardinality
//! shape table (JOIN-CARDINALITY.md section 3).

use super::Extras;
use crate::ir::{JoinKeys, ShapeViolation};
use crate::Checked;

fn check(src: &str) -> Checked {
    crate::check_text("t.strata", src)
}

fn codes(c: &Checked) -> Vec<&'static str> {
    c.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect()
}

fn schema(c: &Checked, model: &str) -> String {
    let m = c
        .module
        .models
        .iter()
        .find(|m| m.name == model)
        .unwrap_or_else(|| panic!("no model {model}"));
    m.columns
        .iter()
        .map(|c| {
            if c.nullable {
                format!("{}: {}", c.name, c.ty)
            } else {
                format!("{}: {} nonnull", c.name, c.ty)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[track_caller]
fn assert_ok(src: &str) -> Checked {
    let c = check(src);
    assert!(
        !c.has_errors(),
        "unexpected errors: {:?}",
        c.diagnostics
            .iter()
            .map(|d| (d.code, &d.message))
            .collect::<Vec<_>>()
    );
    c
}

#[track_caller]
fn assert_codes(src: &str, expected: &[&str]) -> Checked {
    let c = check(src);
    assert_eq!(
        codes(&c),
        expected,
        "messages: {:?}",
        c.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
    c
}

const SHIPMENTS: &str = r#"
source shipments(ns: "l", dataset: "s") {
  columns: { shipment_id: int64 nonnull, carrier_id: int64 nonnull, fee: money nonnull, shipped_on: date nonnull, region: string nonnull }
}
source carriers(ns: "l", dataset: "c") {
  columns: { carrier_id: int64 nonnull, carrier_name: string nonnull, surcharge: money }
}
"#;

#[test]
fn p1_contract_filter_let_select_pipeline() {
    let c = assert_ok(
        r#"
source shipments(ns: "logistics", dataset: "shipments") {
  columns: {
    shipment_id: int64 nonnull primary_key,
    region:      string nonnull,
    fee:         money(EUR) nonnull,
    is_void:     bool,
  }
}
contract LiveShipment {
  shipment_id : int64 nonnull primary_key
  region      : string nonnull enum {NORTH, SOUTH}
  fee         : money(EUR) nonnull
}
model live_shipments -> contract LiveShipment {
  owner: "ops"
  from shipments
  filter coalesce(is_void, false) == false   # drop voided rows
  let region_code = upper(region)
  select { shipment_id = shipment_id, region = region_code, fee = fee }
}
pipeline nightly { env: prod, models: [live_shipments] }
"#,
    );
    assert_eq!(
        schema(&c, "live_shipments"),
        "shipment_id: int64 nonnull, region: string nonnull, fee: money(EUR) nonnull"
    );
}

#[test]
fn p2_join_group_having_sort_take() {
    let src = format!(
        "{SHIPMENTS}
model carrier_daily {{
  from shipments
  join_inner carriers on shipments.carrier_id == carriers.carrier_id expect many_to_one
  let extra = coalesce(carriers.surcharge, 0)
  group {{ carriers.carrier_name, shipped_on }} (
    aggregate {{ n = count(), total = sum(fee + extra), first_id = min(shipment_id) }}
    filter n > 1
  )
  sort {{ shipped_on desc, carrier_name }}
  take 100
}}"
    );
    let c = assert_ok(&src);
    assert_eq!(
        schema(&c, "carrier_daily"),
        "shipped_on: date nonnull, carrier_name: string nonnull, n: int64 nonnull, total: money(USD) nonnull, first_id: int64 nonnull"
    );
}

#[test]
fn join_left_makes_right_side_nullable() {
    let src = format!(
        "{SHIPMENTS}
model m {{
  from shipments
  join_left carriers on shipments.carrier_id == carriers.carrier_id
  select {{ id = shipment_id, name = carriers.carrier_name }}
}}"
    );
    let c = assert_ok(&src);
    assert_eq!(schema(&c, "m"), "id: int64 nonnull, name: string");
}

#[test]
fn p3_to_p8_single_errors() {
    assert_codes(
        &format!("{SHIPMENTS} model named {{ from shipments join_inner carriers on shipments.carrier_id == carriers.carrier_id select {{ name = carrier_name }} }}"),
        &["E040"],
    );
    assert_codes(
        &format!("{SHIPMENTS} model pricey {{ from shipments filter fee > 100 }}"),
        &["E051"],
    );
    assert_ok(&format!(
        "{SHIPMENTS} model pricey {{ from shipments filter fee > cast(100, \"money\") }}"
    ));
    assert_codes(
        &format!("{SHIPMENTS} model by_region {{ from shipments group {{ region }} ( aggregate {{ x2 = avg(fee) * 2 }} ) }}"),
        &["E050"],
    );
    assert_codes(
        &format!("{SHIPMENTS} model bad {{ from shipments filter row_number() over (partition_by: [region], sort: [shipped_on desc]) == 1 }}"),
        &["E065"],
    );
    assert_ok(&format!(
        "{SHIPMENTS} model ranked {{ from shipments select {{ shipment_id = shipment_id, region = region, rn = row_number() over (partition_by: [region], sort: [shipped_on desc]) }} }}
         model latest {{ from ranked filter rn == 1 }}"
    ));
    assert_codes(
        r#"source eu(ns: "l", dataset: "eu") { columns: { id: int64 nonnull, region: string } }
source us(ns: "l", dataset: "us") { columns: { region: string, id: int64 nonnull } }
model eu_m { from eu }
model us_m { from us }
model all_m { from eu_m union all us_m }"#,
        &["E077"],
    );
    assert_codes(
        r#"source carriers(ns: "l", dataset: "c") { columns: { carrier_id: int64 nonnull, carrier_name: string } }
contract Carrier { carrier_id: int64 nonnull  carrier_name: string nonnull }
model carrier_dim -> contract Carrier { from carriers }"#,
        &["E012"],
    );
}

#[test]
fn p11_passthrough_after_join_uses_our_rule() {
    let c = assert_ok(
        r#"source events(ns: "l", dataset: "e") { columns: { id: int64 nonnull, kind: string } }
source refs(ns: "l", dataset: "r") { columns: { id: int64 nonnull, note: string } }
model joined { from events join_left refs on events.id == refs.id }"#,
    );
    assert_eq!(
        schema(&c, "joined"),
        "id: int64 nonnull, kind: string, refs_id: int64, note: string"
    );
}

#[test]
fn schema_order_is_scope_order() {
    let c = assert_ok(
        r#"source s(ns: "l", dataset: "s") { columns: { x: int64, y: string } }
model m { from s select { y = y, z = 1, x = x } }"#,
    );
    assert_eq!(schema(&c, "m"), "x: int64, y: string, z: int64 nonnull");
}

#[test]
fn all_errors_are_reported_in_source_order() {
    let c = check(
        r#"source s(ns: "l", dataset: "s") { columns: { x: int64, y: string } }
model a { from s select { q = nope } }
model b { from s filter y > 1 }
model c { from nowhere }"#,
    );
    assert_eq!(codes(&c), ["E040", "E051", "E020"]);
}

#[test]
fn duplicates_cycles_and_unknowns() {
    assert_codes(
        r#"source s(ns: "l") { columns: { x: int64 } }
source s(ns: "l") { columns: { x: int64 } }"#,
        &["E025"],
    );
    assert_codes(
        r#"source o(ns: "l") { columns: { x: int64 } }
model o { from o }"#,
        &["F001"],
    );
    assert_codes("model a { from b } model b { from a }", &["F001"]);
    assert_codes(r#"source s(ns: "l") model m { from s }"#, &["E021"]);
    assert_codes(r#"source s(ns: "l") { columns: { m: struct } }"#, &["E078"]);
    assert_codes("domain a = b domain b = a", &["E078"]);
    assert_codes(
        r#"source s(ns: "l") { columns: { x: int64 } } model m -> contract Nope { from s }"#,
        &["E061"],
    );
}

#[test]
fn functions_and_operators() {
    let base = r#"source s(ns: "l") { columns: { i: int64, f: float64, t: string, d: date, ts: timestamp, b: bool, m: money, e: money(EUR), j: json } }"#;
    let ok = [
        "x = upper(t)",
        "x = i + f",
        "x = i / i",
        "x = m * 2",
        "x = m + m",
        "x = t + t",
        "x = t || t",
        "x = coalesce(i, 0)",
        "x = if(b, 1, 2)",
        "x = case(i > 1, \"a\", \"b\")",
        "x = date_add(d, days: 7)",
        "x = date_trunc(d, month)",
        "x = date_diff(d, d, day)",
        "x = cast(i, \"string\")",
        "x = json_get(j, \"a\")",
        "x = concat(t, i)",
        "x = substring(t, 1, 2)",
        "x = not b",
        "x = -i",
    ];
    for o in ok {
        assert_ok(&format!("{base} model q {{ from s select {{ {o} }} }}"));
    }
    let bad = [
        ("x = upper(i)", "E063"),
        ("x = upper(t, t)", "E062"),
        ("x = frobnicate(t)", "E059"),
        ("x = m + 1", "E053"),
        ("x = m + e", "E053"),
        ("x = b and i", "E052"),
        ("x = d < ts", "E051"),
        ("x = coalesce(t, 1)", "E058"),
        ("x = if(i, 1, 2)", "E090"),
        ("x = count(i)", "E056"),
        ("x = i * *", "E064"),
        ("x = date_add(d, 7)", "E072"),
        ("x = date_add(d, hours: 1)", "E071"),
        ("x = date_diff(d, ts, day)", "E073"),
        ("x = json_get(j, \"a.b\")", "E074"),
        ("x = upper(t: t)", "E072"),
        ("x = cast(i)", "E062"),
        ("x = cast(i, \"decimal\")", "E063"),
        ("x = sum(distinct i) over ()", "E096"),
        ("x = upper(t) over ()", "E065"),
        ("x = [1, 2]", "E055"),
        ("x = nope.i", "E041"),
        ("x = s.nope", "E040"),
    ];
    for (o, code) in bad {
        assert_codes(
            &format!("{base} model q {{ from s select {{ {o} }} }}"),
            &[code],
        );
    }
}

#[test]
fn setops_dedup_expand_incremental() {
    let base = r#"source s(ns: "l") { columns: { id: int64 nonnull, tags: array(string), ts: timestamp nonnull, k: string } }
model a { from s select { id = id, k = k } }
model b { from s select { id = id, k = k } }"#;
    assert_ok(&format!("{base} model u {{ from a union b }}"));
    assert_codes(&format!("{base} model u {{ from a union s }}"), &["E076"]);
    assert_codes(
        &format!("{base} model u {{ from a select {{ id = id }} union b }}"),
        &["E076"],
    );
    assert_codes(
        &format!("{base} model u {{ from a dedup dedup by id }}"),
        &["E076"],
    );
    assert_codes(
        &format!("{base} model u {{ from a dedup by nope }}"),
        &["E076"],
    );
    assert_ok(&format!("{base} model x {{ from s expand tags as tag select {{ id = id, tag = upper(tag) }} dedup by tag }}"));
    assert_codes(&format!("{base} model x {{ from s expand id }}"), &["E075"]);
    assert_codes(
        &format!("{base} model x {{ from s incremental merge_strategy: append cdc_column: ts group {{ k }} ( aggregate {{ n = count() }} ) }}"),
        &["E087", "E088"],
    );
    assert_codes(
        &format!("{base} model x {{ from s incremental merge_strategy: merge }}"),
        &["E086"],
    );
}

#[test]
fn declarative_tests_are_checked() {
    let base = r#"source s(ns: "l") { columns: { id: int64 nonnull, k: string } }
model m { from s }"#;
    assert_ok(&format!(
        "{base} test m {{ expect row_count > 0; expect id >= 0; expect k == \"a\" }}"
    ));
    assert_codes(
        &format!("{base} test zz {{ expect row_count > 0 }}"),
        &["E091"],
    );
    assert_codes(&format!("{base} test m {{ expect nope == 1 }}"), &["E092"]);
    assert_codes(
        &format!("{base} test m {{ expect id == \"1\" }}"),
        &["E094"],
    );
    assert_codes(
        &format!("{base} test m {{ expect id in nope.id }}"),
        &["E101"],
    );
    assert_codes(
        &format!("{base} test m {{ expect id in m.nope }}"),
        &["E102"],
    );
}

// --- join cardinality: JOIN-CARDINALITY.md section 3 ---------------------

const OC: &str = r#"
source o(ns: "a") { columns: { cid: int64, id: int64 nonnull, s: string, v: int64, email: string, a: int64, b: int64 } }
source c(ns: "a") { columns: { cid: int64 nonnull, id2: int64, w: string, flag: bool, a: int64, b: int64 } }
source d(ns: "a") { columns: { x: int64, y: int64 } }
"#;

fn shape(body: &str) -> (Checked, Option<Result<JoinKeys, Vec<ShapeViolation>>>) {
    let c = check(&format!("{OC} model m {{ {body} }}"));
    let shape = c
        .module
        .models
        .iter()
        .find(|m| m.name == "m")
        .and_then(|m| m.joins.iter().rev().find(|j| j.expect.is_some()))
        .and_then(|j| j.shape.clone());
    (c, shape)
}

fn keys(l: &[&str], r: &[&str]) -> Option<Result<JoinKeys, Vec<ShapeViolation>>> {
    Some(Ok(JoinKeys {
        left: l.iter().map(crate::Name::new).collect(),
        right: r.iter().map(crate::Name::new).collect(),
    }))
}

fn violation_kind(s: &Option<Result<JoinKeys, Vec<ShapeViolation>>>) -> Vec<&'static str> {
    match s {
        Some(Err(v)) => v
            .iter()
            .map(|v| match v {
                ShapeViolation::AntiSemi => "anti_semi",
                ShapeViolation::Exotic { .. } => "exotic",
                ShapeViolation::NotEquiKey { .. } => "not_equi",
                ShapeViolation::NoRightKey => "no_right_key",
                ShapeViolation::OneToOneWithoutPair => "no_pair",
            })
            .collect(),
        _ => vec![],
    }
}

#[test]
fn cardinality_pairs_either_order_and_bare() {
    for on in ["o.cid == c.cid", "c.cid == o.cid", "cid == c.cid"] {
        let (_, s) = shape(&format!("from o join_left c on {on} expect one_to_one"));
        assert_eq!(s, keys(&["cid"], &["cid"]), "{on}");
    }
}

#[test]
fn cardinality_right_only_keys() {
    let cases = [
        (
            "from o join_left c on c.cid == 2 expect many_to_one",
            vec!["cid"],
        ),
        (
            "from o join_left c on upper(s) == c.w expect many_to_one",
            vec!["w"],
        ),
        (
            "from o let z = cid join_left c on z == c.cid expect many_to_one",
            vec!["cid"],
        ),
        (
            "from o let cid = cid + 1 join_left c on cid == c.cid expect many_to_one",
            vec!["cid"],
        ),
        (
            "from o join_left d on o.a == d.x join_left c on d.y == c.cid expect many_to_one",
            vec!["cid"],
        ),
    ];
    for (body, right) in cases {
        let (c, s) = shape(body);
        assert!(!c.has_errors(), "{body}: {:?}", codes(&c));
        assert_eq!(s, keys(&[], &right), "{body}");
        // Right-only keys are not enough for one_to_one.
        let (_, s) = shape(&body.replace("many_to_one", "one_to_one"));
        assert_eq!(violation_kind(&s), ["no_pair"], "{body}");
    }
}

#[test]
fn cardinality_composite_mixed_dedup_and_left_filters() {
    let (_, s) = shape("from o join_left c on o.cid == c.cid and o.id == c.id2 expect one_to_one");
    assert_eq!(s, keys(&["cid", "id"], &["cid", "id2"]));
    let (_, s) =
        shape("from o join_left c on o.cid == c.cid and c.w == upper(s) expect many_to_one");
    assert_eq!(s, keys(&["cid"], &["cid", "w"]));
    let (_, s) =
        shape("from o join_left c on o.cid == c.cid and c.cid == o.cid expect many_to_one");
    assert_eq!(s, keys(&["cid"], &["cid"]));
    let (_, s) = shape("from o join_left c on o.cid == c.cid and v > 1 and o.id == 5 and o.a == o.b expect many_to_one");
    assert_eq!(s, keys(&["cid"], &["cid"]));
    let (_, s) = shape(
        "from o join_inner c on o.cid == c.cid and (o.v > 1 or o.id == 2) expect many_to_one",
    );
    assert_eq!(s, keys(&["cid"], &["cid"]));
}

#[test]
fn cardinality_violations() {
    let cases = [
        (
            "from o join_left c on o.cid == c.cid + 1 expect many_to_one",
            "exotic",
        ),
        (
            "from o join_left c on upper(c.w) == o.s expect many_to_one",
            "exotic",
        ),
        (
            "from o join_left c on c.cid == c.id2 expect many_to_one",
            "exotic",
        ),
        (
            "from o join_left c on c.cid == c.cid expect many_to_one",
            "exotic",
        ),
        (
            "from o join_left c on o.cid > c.cid expect many_to_one",
            "not_equi",
        ),
        (
            "from o join_left c on o.cid != c.cid expect many_to_one",
            "not_equi",
        ),
        (
            "from o join_left c on o.cid == c.cid and not c.flag expect many_to_one",
            "not_equi",
        ),
        (
            "from o join_left c on o.cid == c.cid or o.id == c.cid expect many_to_one",
            "not_equi",
        ),
        (
            "from o join_left c on o.cid == c.cid and startswith(c.w, \"x\") expect many_to_one",
            "not_equi",
        ),
        (
            "from o join_left c on o.id == 5 expect many_to_one",
            "no_right_key",
        ),
        (
            "from o join_left c on o.cid == o.id expect one_to_one",
            "no_right_key",
        ),
        (
            "from o join_anti c on o.cid == c.cid expect many_to_one",
            "anti_semi",
        ),
        (
            "from o join_semi c on o.cid == c.cid expect one_to_one",
            "anti_semi",
        ),
    ];
    for (body, kind) in cases {
        let (c, s) = shape(body);
        assert_eq!(violation_kind(&s), [kind], "{body}");
        // The front-end itself reports no error: E079 is the rule's job.
        assert!(!c.has_errors(), "{body}: {:?}", codes(&c));
    }
}

#[test]
fn cardinality_suppressed_by_type_errors_and_absent_when_unannotated() {
    let (c, s) = shape("from o join_left c on o.s == c.cid expect many_to_one");
    assert_eq!(codes(&c), ["E051"]);
    assert_eq!(s, None);
    let c = assert_ok(&format!(
        "{OC} model m {{ from o join_left c on o.cid > c.cid }}"
    ));
    assert!(c.module.models[0]
        .joins
        .iter()
        .all(|j| j.shape.is_none() && j.expect.is_none()));
}

/// The keys `expect many_to_one` would count on an unannotated join: the
/// same analysis, kept for rules that suggest the promise.
#[test]
fn unannotated_joins_keep_their_implied_keys() {
    let implied = |body: &str| {
        let c = assert_ok(&format!("{OC} model m {{ {body} }}"));
        let join = c.module.models[0].joins.first().cloned();
        join.and_then(|j| j.implied_keys)
    };
    let some = |l: &[&str], r: &[&str]| match keys(l, r) {
        Some(Ok(k)) => Some(k),
        _ => None,
    };
    assert_eq!(
        implied("from o join_left c on o.cid == c.cid"),
        some(&["cid"], &["cid"])
    );
    assert_eq!(
        implied("from o join_inner c on o.a == c.a and c.b == o.b and c.w == \"x\""),
        some(&["a", "b"], &["a", "b", "w"])
    );
    assert_eq!(implied("from o join_left c on o.cid > c.cid"), None);
    assert_eq!(implied("from o join_anti c on o.cid == c.cid"), None);
    assert_eq!(
        implied("from o join_left c on o.cid == c.cid expect many_to_one"),
        None,
        "an annotated join has `shape` instead"
    );
}

#[test]
fn contextual_words_stay_names() {
    assert_ok(
        r#"source many_to_one(ns: "a") { columns: { one_to_one: int64 } }
model one_to_one { from many_to_one select { many_to_one = one_to_one } }"#,
    );
}

#[test]
fn seed_example_checks_clean_with_keys() {
    let src = include_str!("../../../examples/seed/orders.strata");
    let c = assert_ok(src);
    for m in &c.module.models {
        let j = &m.joins[0];
        assert_eq!(
            j.keys(),
            keys(&["customer_id"], &["customer_id"])
                .and_then(Result::ok)
                .as_ref()
        );
    }
    assert_eq!(schema(&c, "enriched"), "order_id: int64, country: string");
    assert_eq!(
        schema(&c, "profiles"),
        "order_id: int64, customer_id: int64, amount: float64, customers_customer_id: int64, country: string"
    );
}

#[test]
fn fingerprints_ignore_layout_and_follow_upstream() {
    let a = assert_ok(&format!(
        "{OC} model m {{ from o select {{ x = cid }} }} model n {{ from m }}"
    ));
    let b = assert_ok(&format!(
        "{OC}\n# comment\nmodel m {{\n  from o\n  select {{ x = cid }}\n}}\nmodel n {{ from m }}"
    ));
    let c = assert_ok(&format!(
        "{OC} model m {{ from o select {{ x = id }} }} model n {{ from m }}"
    ));
    let fp = |k: &Checked, n: &str| {
        k.module
            .models
            .iter()
            .find(|m| m.name == n)
            .map(|m| m.fingerprint.clone())
    };
    assert_eq!(fp(&a, "m"), fp(&b, "m"));
    assert_eq!(fp(&a, "n"), fp(&b, "n"));
    assert_ne!(fp(&a, "m"), fp(&c, "m"));
    assert_ne!(
        fp(&a, "n"),
        fp(&c, "n"),
        "upstream change must change downstream fingerprint"
    );
    assert_eq!(fp(&a, "m").map(|f| f.len()), Some(crate::fingerprint::LEN));
}

#[test]
fn errors_downstream_of_a_failed_model_are_still_reported() {
    // The upstream failure is in a filter: its schema is complete, so the
    // downstream model's own unknown column is reported too.
    assert_codes(
        r#"source s(ns: "l") { columns: { x: int64, y: string } }
model a { from s filter y > 1 }
model b { from a select { q = nope } }"#,
        &["E051", "E040"],
    );
    // An upstream output that failed hides nothing else but itself.
    assert_codes(
        r#"source s(ns: "l") { columns: { x: int64, y: string } }
model a { from s select { x = x, z = nope } }
model b { from a select { q = z, r = also_nope } }"#,
        &["E040"],
    );
}

/// Each model's name and fingerprint, in the IR's order.
fn named_fingerprints(c: &Checked) -> Vec<(String, String)> {
    c.module
        .models
        .iter()
        .map(|m| (m.name.clone(), m.fingerprint.clone()))
        .collect()
}

/// A fresh directory for test `name` holding `lib.strata` with `lib`.
fn dir_with_lib(name: &str, lib: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("strata-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("lib.strata"), lib).expect("write lib");
    dir
}

/// A module checked without fingerprints, then given them by
/// `fill_fingerprints`, has the fingerprints of a plain check: with
/// imports, a model declared twice (in the root and in an import, either
/// first), a dependency cycle and upstream models declared after their
/// readers.
#[test]
fn filled_fingerprints_are_those_of_a_check() {
    use crate::load::LoadOptions;
    let dir = dir_with_lib(
        "fill-fp",
        &format!("{OC}\nmodel shared {{ from o select {{ x = cid }} }}\nmodel dup {{ from o }}\n"),
    );
    for root in [
        "import lib\nmodel dup { from shared }\nmodel n { from dup join_left m on dup.x == m.x }\nmodel m { from shared }\n",
        "model dup { from o }\nimport lib\nmodel c1 { from c2 }\nmodel c2 { from c1 }\nmodel r { from c1 }\n",
        "import lib\nmodel late { from early select { y = x } }\nmodel early { from shared where x > 1 }\n",
    ] {
        let path = dir.join("root.strata");
        std::fs::write(&path, root).expect("write root");
        let full = crate::check_files(std::slice::from_ref(&path), &LoadOptions::default());
        let skip = LoadOptions {
            skip_fingerprints: true,
            ..LoadOptions::default()
        };
        let mut filled = crate::check_files(&[path], &skip);
        assert!(filled.module.models.iter().all(|m| m.fingerprint.is_empty()), "{root}");
        super::fill_fingerprints(&mut filled);
        assert!(full.module.models.len() >= 3, "{root}");
        assert!(full.module.models.iter().all(|m| m.fingerprint.len() == crate::fingerprint::LEN), "{root}");
        assert_eq!(named_fingerprints(&filled), named_fingerprints(&full), "{root}");
        assert_eq!(filled.diagnostics, full.diagnostics, "{root}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fingerprints_survive_formatting() {
    let src = format!("{OC}\nmodel m {{ from o where cid > 1 select {{ x = (cid + 1) }} }}");
    let formatted = crate::fmt::format_source(crate::FileId(0), &src).expect("formats");
    let a = assert_ok(&src);
    let b = assert_ok(&formatted);
    assert_eq!(
        a.module.models[0].fingerprint,
        b.module.models[0].fingerprint
    );
}

/// `check_text` skims model bodies while loading; when a skimmed body does
/// not parse, it checks a full parse instead: the diagnostics are the same
/// as [`check_text_fully_parsed`]'s, including for a model declared twice
/// whose second body does not parse (a full parse drops that declaration,
/// so there is no E025).
#[test]
fn a_skimmed_body_that_does_not_parse_is_checked_as_fully_parsed() {
    use super::{check_loaded, check_text, check_text_fully_parsed};
    use crate::load::{self, LoadOptions};
    let head = "source s(ns: \"n\", dataset: \"d\") {\n  columns: { x: int64 }\n}\n";
    for body in [
        "model a { from s filter x > }\nmodel b { from a }\n",
        "model a { from s }\nmodel a { from s select { y = } }\n",
        "model a { from s }\nmodel b { from a join_left c on }\nmodel c { from s }\n",
    ] {
        let text = format!("{head}{body}");
        let options = LoadOptions::default();
        let skimmed = load::load_text_with("m.strata".into(), &text, &options, true);
        assert!(!skimmed.deferred.is_empty());
        assert!(check_loaded(skimmed, Extras::all()).is_none(), "{body}");
        let checked = check_text("m.strata", &text);
        let full = check_text_fully_parsed("m.strata", &text);
        assert_eq!(checked.diagnostics, full.diagnostics, "{body}");
        assert!(checked.diagnostics.iter().any(|d| d.code == "ParseError"));
        assert!(checked.diagnostics.iter().all(|d| d.code != "E025"));
    }
    // A valid module is checked from the skim, as a full parse would be.
    let text =
        format!("{head}model a {{ from s }}\nmodel b {{ from a join_left s on a.x == s.x }}\n");
    let skimmed = check_loaded(
        load::load_text_with("m.strata".into(), &text, &LoadOptions::default(), true),
        Extras::all(),
    );
    let full = check_text_fully_parsed("m.strata", &text);
    let skimmed = skimmed.expect("every body parses");
    assert_eq!(skimmed.diagnostics, full.diagnostics);
    let fingerprints = |c: &Checked| -> Vec<String> {
        c.module
            .models
            .iter()
            .map(|m| m.fingerprint.clone())
            .collect()
    };
    assert_eq!(fingerprints(&skimmed), fingerprints(&full));
}

/// The skimmed bodies are matched to their models walking both in order; a
/// model whose body was lexed instead (it holds non-ASCII text), or a list
/// out of that order (which the loader never makes), still gives every
/// model its own body.
#[test]
fn skimmed_bodies_find_their_models_in_any_order() {
    use super::{check_loaded, check_text_fully_parsed};
    use crate::load::{self, LoadOptions};
    let text = "source s(ns: \"n\", dataset: \"d\") {\n  columns: { x: int64, y: string }\n}\n\
                model a { from s select { x = x } }\n\
                model d { from s select { café = x } }\n\
                model b { from s select { x = x, y = y } }\n\
                model c { from a join_left b on a.x == b.x }\n";
    let load = || load::load_text_with("m.strata".into(), text, &LoadOptions::default(), true);
    let schemas = |c: &Checked| -> Vec<String> {
        c.module
            .models
            .iter()
            .map(|m| {
                format!(
                    "{}: {:?}",
                    m.name,
                    m.columns
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                )
            })
            .collect()
    };
    let in_order = check_loaded(load(), Extras::all()).expect("every body parses");
    let mut reversed = load();
    // One file, in one part.
    assert_eq!(reversed.deferred.len(), 1);
    let bodies = &mut reversed.deferred[0].1;
    assert_eq!(bodies.len(), 3);
    bodies.reverse();
    let reversed = check_loaded(reversed, Extras::all()).expect("every body parses");
    assert_eq!(schemas(&in_order), schemas(&reversed));
    assert_eq!(in_order.diagnostics, reversed.diagnostics);
    let full = check_text_fully_parsed("m.strata", text);
    assert_eq!(schemas(&in_order), schemas(&full));
    assert!(
        schemas(&full).contains(&"d: [\"café\"]".to_string()),
        "{:?}",
        schemas(&full)
    );
}

/// A module large enough to be checked on several threads gives the same
/// result every time, whatever order the threads take the models in: every
/// model in dependency order, the same fingerprints, and exactly the errors
/// of the broken models, in source order (a model reading a broken one is
/// still checked against its schema).
#[test]
fn large_modules_check_the_same_on_several_threads() {
    let models = 4 * super::MODELS_PER_THREAD + 100;
    let mut src = String::from(
        "source s(ns: \"a\", dataset: \"b\") { columns: { id: int64 nonnull primary_key, v: float64 } }\n",
    );
    let mut broken = Vec::new();
    for i in 0..models {
        // Each model reads one or two earlier ones, declared in reverse
        // dependency order half of the time.
        let from = if i == 0 {
            "s".to_string()
        } else {
            format!("m{}", (i * 7) % i)
        };
        let join = if i > 2 {
            format!(
                "\n  join_left m{} on m{}.id == id expect many_to_one",
                i / 3,
                i / 3
            )
        } else {
            String::new()
        };
        let bad = i % 97 == 5;
        if bad {
            broken.push(format!("m{i}"));
        }
        let filter = if bad { "nope > 1" } else { "v > 1.0" };
        src.push_str(&format!(
            "model m{i} {{\n  from {from}{join}\n  filter {filter}\n  select {{ id = id, v = v * 2.0 }}\n}}\n"
        ));
    }
    let runs: Vec<Checked> = (0..3).map(|_| check(&src)).collect();
    let first = &runs[0];
    assert_eq!(first.module.models.len(), models);
    let position = |name: &str| first.module.models.iter().position(|m| m.name == name);
    for m in &first.module.models {
        for input in &m.inputs {
            if let Some(p) = position(&input.name) {
                assert!(
                    p < position(&m.name).unwrap_or(0),
                    "{} before {}",
                    input.name,
                    m.name
                );
            }
        }
    }
    let errors: Vec<(&str, u32)> = first
        .diagnostics
        .iter()
        .map(|d| (d.code, d.span.start))
        .collect();
    assert_eq!(errors.len(), broken.len(), "{errors:?}");
    assert!(errors.iter().all(|(code, _)| *code == "E040"));
    assert!(errors.windows(2).all(|w| w[0].1 < w[1].1));
    for (d, name) in first.diagnostics.iter().zip(&broken) {
        let model_start = src.find(&format!("model {name} {{")).unwrap_or(0);
        assert!(d.span.start as usize > model_start, "{name}");
    }
    for other in &runs[1..] {
        assert_eq!(named_fingerprints(other), named_fingerprints(first));
        assert_eq!(other.diagnostics, first.diagnostics);
    }
}

/// Checked with `outputs_only`, every program of the corpus, and a module
/// large enough to be checked on several threads, gives the diagnostics,
/// inputs, columns and joins of a full check, with no steps, lineage or
/// output references left.
#[test]
fn outputs_only_keeps_the_diagnostics_and_outputs() {
    use crate::load::LoadOptions;
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(&corpus)
        .expect("tests/corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "strata"))
        .collect();
    paths.sort();
    assert!(paths.len() > 400, "{}", paths.len());
    let dir = std::env::temp_dir().join(format!("strata-outputs-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let large = dir.join("large.strata");
    let mut src = format!("{OC}\n");
    for i in 0..4 * super::MODELS_PER_THREAD {
        let from = if i == 0 {
            "o".to_string()
        } else {
            format!("m{}", i / 2)
        };
        let filter = if i % 101 == 7 { "nope > 1" } else { "cid > 1" };
        src.push_str(&format!(
            "model m{i} {{ from {from} where {filter} select {{ cid = cid, x = cid * 2 }} }}\n"
        ));
    }
    std::fs::write(&large, src).expect("write large");
    paths.push(large);
    let outputs_only = LoadOptions {
        outputs_only: true,
        ..LoadOptions::default()
    };
    let mut models = 0;
    for path in &paths {
        let full = crate::check_files(std::slice::from_ref(path), &LoadOptions::default());
        let kept = crate::check_files(std::slice::from_ref(path), &outputs_only);
        let name = path.display();
        assert_eq!(kept.diagnostics, full.diagnostics, "{name}");
        assert_eq!(kept.module.models.len(), full.module.models.len(), "{name}");
        for (k, f) in kept.module.models.iter().zip(&full.module.models) {
            // (Debug: inputs are not comparable.)
            assert_eq!(
                format!("{:?}", (&k.name, &k.inputs, &k.columns, &k.joins, k.ok)),
                format!("{:?}", (&f.name, &f.inputs, &f.columns, &f.joins, f.ok)),
                "{name}"
            );
            assert!(
                k.steps.is_empty()
                    && k.step_spans.is_empty()
                    && k.lineage.is_empty()
                    && k.output_refs.is_empty(),
                "{name}: {}",
                k.name
            );
            models += usize::from(!f.steps.is_empty());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(models > 4 * super::MODELS_PER_THREAD, "{models}");
}

/// A large root file is loaded in parts, with an imported file's
/// declarations between two of them: its models are all checked, and the
/// comments come in file order, each file's in the text's order.
#[test]
fn a_file_loaded_in_parts_keeps_its_imports_and_comments_in_order() {
    use crate::load::{self, LoadOptions};
    let dir = dir_with_lib(
        "parts",
        &format!("# lib\n{OC}\nmodel shared {{ from o select {{ x = cid }} }}\n"),
    );
    let mut root = String::new();
    let mut i = 0;
    while root.len() < 3 * 128 * 1024 {
        if i == 1000 {
            root.push_str("import lib\n");
        }
        root.push_str(&format!(
            "# model {i}\nmodel m{i} {{\n  from shared # reads shared\n  select {{ y = x }}\n}}\n"
        ));
        i += 1;
    }
    let path = dir.join("root.strata");
    std::fs::write(&path, &root).expect("write root");
    let options = LoadOptions::default();
    let loaded = load::load_files_with(std::slice::from_ref(&path), &options, true);
    assert!(loaded.files.len() > 3, "{} parts", loaded.files.len());
    let checked = crate::check_files(&[path], &options);
    assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
    assert_eq!(checked.module.models.len(), i + 1);
    assert_eq!(checked.comments.len(), 2 * i + 1);
    let at: Vec<_> = checked
        .comments
        .iter()
        .map(|c| (c.span.file, c.span.start))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]));
    let _ = std::fs::remove_dir_all(&dir);
}
