//! Checker tests: representative programs with the reference's verdicts
//! and schemas, and the join-cardinality shape table: which `on`
//! conjuncts give key pairs, right-only keys, or E079.

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
        "carrier_name: string nonnull, shipped_on: date nonnull, n: int64 nonnull, total: money(USD) nonnull, first_id: int64 nonnull"
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
fn join_right_full_and_cross_make_the_sides_that_may_miss_nullable() {
    for (join, expected) in [
        (
            "join_right carriers on shipments.carrier_id == carriers.carrier_id",
            "id: int64, name: string nonnull",
        ),
        (
            "join_full carriers on shipments.carrier_id == carriers.carrier_id",
            "id: int64, name: string",
        ),
        (
            "join_cross carriers",
            "id: int64 nonnull, name: string nonnull",
        ),
    ] {
        let src = format!(
            "{SHIPMENTS}
model m {{
  from shipments
  let sid = shipment_id
  {join}
  select {{ id = sid, name = carriers.carrier_name }}
}}"
        );
        let c = assert_ok(&src);
        assert_eq!(schema(&c, "m"), expected, "{join}");
    }
}

#[test]
fn right_and_full_joins_take_promises_with_the_same_keys_as_left() {
    for kind in ["join_right", "join_full"] {
        let (c, s) = shape(&format!(
            "from o {kind} c on o.cid == c.cid expect one_to_one"
        ));
        assert_eq!(s, keys(&["cid"], &["cid"]), "{kind}");
        assert!(!c.has_errors(), "{kind}: {:?}", codes(&c));
    }
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

/// The schema is in `select` order (strata-lang keeps a same-name output at
/// its input's place and puts renamed ones last): group keys first, then the
/// assignments in statement order, a name assigned twice where it was first
/// assigned; `derive` appends.
#[test]
fn schema_order_is_select_order() {
    let c = assert_ok(
        r#"source s(ns: "l", dataset: "s") { columns: { id: int64, first_name: string, last_name: string, x: int64, y: string } }
model m { from s select { y = y, z = 1, x = x } }
model people { from s select { customer_id = id, first_name = first_name, surname = last_name, x = x } }
model twice { from s select { a = x, y = y, a = id } derive { b = 2 } }
model grouped { from s group { y, first_name } ( aggregate { n = count() } ) }"#,
    );
    assert_eq!(schema(&c, "m"), "y: string, z: int64 nonnull, x: int64");
    assert_eq!(
        schema(&c, "people"),
        "customer_id: int64, first_name: string, surname: string, x: int64"
    );
    assert_eq!(schema(&c, "twice"), "a: int64, y: string, b: int64 nonnull");
    assert_eq!(
        schema(&c, "grouped"),
        "y: string, first_name: string, n: int64 nonnull"
    );
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

const FX: &str = r#"
source o(ns: "l") { columns: { id: int64 nonnull, cid: int64, amount: decimal(6, 2), day: date, at: timestamp, tags: array(string), u: uuid, j: json, ok: bool, price: money, f: float64 } }
source c(ns: "l") { columns: { cid: int64 nonnull primary_key, country: string } }
model m {
  from o
  join_left c on o.cid == c.cid expect many_to_one
  select { id = id, country = c.country, amount = amount }
  sort { id }
}
model n { from m group { country } ( aggregate { total = sum(amount) } ) }
"#;

/// The error messages of `src` after [`FX`], each with the text it points at.
fn fixture_errors(src: &str) -> Vec<(&'static str, String, String)> {
    let text = format!("{FX}{src}");
    let c = check(&text);
    c.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.code, d.message.clone(), text[d.span.range()].to_string()))
        .collect()
}

#[test]
fn fixture_tests_type_their_rows() {
    let c = assert_ok(&format!(
        r#"{FX}
test m "every type" {{
  given o(id, cid, amount, day, at, tags, u, j, ok, price, f) {{
    (1, 10, 1234.5, "2024-02-29", "2024-02-29 23:59:59.5", ["a", null], "123e4567-e89b-12d3-a456-426614174000", "{{\"a\": [1]}}", true, 10, 2)
    (-2, null, -0.01, null, "2024-01-01T00:00", [], null, "null", false, 9.99, 1.5)
  }}
  given c(cid) {{ (10) }}
  expect rows(country, id) {{ (null, 1), (null, -2) }}
  expect row_count == 2
}}
test n "grouped" {{
  given m(country, amount) {{ ("ES", 1.5) }}
  expect rows {{}}
}}
"#
    ));
    let t = &c.module.tests[0];
    assert_eq!(t.name.as_deref(), Some("every type"));
    let fx = t.fixture.as_ref().expect("a checked fixture");
    assert!(fx.ordered);
    assert_eq!(fx.inputs.len(), 2);
    assert_eq!(fx.inputs[0].name, "o");
    assert_eq!(fx.inputs[0].columns.len(), 11);
    assert_eq!(fx.inputs[1].given, [0]);
    let exp = fx.expected.as_ref().expect("expect rows");
    let cols: Vec<&str> = exp.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(cols, ["country", "id"]);
    assert_eq!(exp.rows.len(), 2);
    // `expect rows {}` compares every output column; n does not sort.
    let fx = c.module.tests[1].fixture.as_ref().expect("fixture");
    assert!(!fx.ordered);
    assert_eq!(fx.expected.as_ref().map(|e| e.columns.len()), Some(2));
    // A test without `given` is no fixture test.
    let c = assert_ok(&format!("{FX} test m {{ expect row_count > 0 }}"));
    assert!(!c.module.tests[0].is_fixture && c.module.tests[0].fixture.is_none());
}

#[test]
fn fixture_errors_have_codes_at_their_spans() {
    let e = fixture_errors(
        r#"test m "x" { given o(id) { (1) } given payments(cid) { (1) } expect rows(id) {} }"#,
    );
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!(e[1].0, "E110");
    assert_eq!(e[1].2, "payments");
    assert_eq!(
        e[1].1,
        "the test gives rows for 'payments', which model 'm' does not read"
    );
    assert_eq!(e[0].0, "E111");
    assert_eq!(e[0].2, "\"x\"");
    assert_eq!(
        e[0].1,
        "the fixture test of 'm' gives no rows for 'c', which the model reads"
    );
    let e = fixture_errors(r#"test m { given o(id, idd, id) { (1, 2, 3) } given c {} }"#);
    let got: Vec<(&str, &str)> = e.iter().map(|(c, _, at)| (*c, at.as_str())).collect();
    assert_eq!(got, [("E112", "idd"), ("E025", "id")]);
    assert_eq!(e[0].1, "source 'o' has no column 'idd'");
    let e = fixture_errors(r#"test m { given o(id, cid) { (1) (1, 2, 3) } given c {} }"#);
    let got: Vec<(&str, &str)> = e.iter().map(|(c, _, at)| (*c, at.as_str())).collect();
    assert_eq!(got, [("E114", "(1)"), ("E114", "(1, 2, 3)")]);
    assert_eq!(
        e[0].1,
        "this row has 1 value but the column list has 2 (id, cid)"
    );
    let e = fixture_errors(
        r#"test m { given o(id, amount, day, at, u, j, tags, ok, f, price) {
          (1.5, 1.234, "2023-02-29", "2024-01-01 25:00", "xyz", "{", [1], "true", "2", 0.001)
          (null, 12345.6, 20240101, "2024-01-01+01", "123e4567-e89b-12d3-a456-42661417400", "[]", "a", 1, true, "1")
        } given c {} }"#,
    );
    let got: Vec<(&str, &str)> = e.iter().map(|(c, _, at)| (*c, at.as_str())).collect();
    assert_eq!(
        got,
        [
            ("E113", "1.5"),
            ("E113", "1.234"),
            ("E113", "\"2023-02-29\""),
            ("E113", "\"2024-01-01 25:00\""),
            ("E113", "\"xyz\""),
            ("E113", "\"{\""),
            ("E113", "1"),
            ("E113", "\"true\""),
            ("E113", "\"2\""),
            ("E113", "0.001"),
            ("E113", "null"),
            ("E113", "12345.6"),
            ("E113", "20240101"),
            ("E113", "\"2024-01-01+01\""),
            ("E113", "\"123e4567-e89b-12d3-a456-42661417400\""),
            ("E113", "\"a\""),
            ("E113", "1"),
            ("E113", "true"),
            ("E113", "\"1\""),
        ],
        "{e:#?}"
    );
    assert_eq!(e[0].1, "1.5 is not an integer, and column 'id' is int64");
    assert_eq!(
        e[1].1,
        "1.234 has 3 decimal places, more than 2 in column 'amount' (decimal(6,2))"
    );
    assert_eq!(
        e[10].1,
        "column 'id' of source 'o' is never null, and the test gives null"
    );
    assert_eq!(
        e[11].1,
        "12345.6 has 5 digits before the point, more than 4 in column 'amount' (decimal(6,2))"
    );
    // The expected rows: output columns, their types and nullability.
    let e = fixture_errors(
        r#"test m { given o {} given c {} expect rows(idx, country) { (1, "x") } }
           test m { given o {} given c {} expect rows(id) { (null) } expect rows(id) {} }"#,
    );
    let got: Vec<(&str, &str)> = e.iter().map(|(c, _, at)| (*c, at.as_str())).collect();
    assert_eq!(got, [("E092", "idx"), ("E113", "null"), ("E025", "rows")]);
    assert_eq!(
        e[1].1,
        "column 'id' of model 'm' is never null, and the test gives null"
    );
    // Checks in the wrong kind of test, and a repeated given.
    let e = fixture_errors(
        r#"test m { expect rows(id) { (1) } }
           test m { given o {} given c {} given o {} expect id in n.country }"#,
    );
    let got: Vec<(&str, &str)> = e.iter().map(|(c, _, at)| (*c, at.as_str())).collect();
    assert_eq!(
        got,
        [
            ("E115", "expect rows(id) { (1) }"),
            ("E025", "o"),
            ("E115", "expect id in n.country")
        ]
    );
    // A severity is for tests of materialized data.
    let e = fixture_errors(r#"test m { severity: warn given o {} given c {} }"#);
    let got: Vec<(&str, &str)> = e.iter().map(|(c, _, at)| (*c, at.as_str())).collect();
    assert_eq!(got, [("E115", "severity: warn")]);
    // An unknown model is E091 whatever the test holds.
    let e = fixture_errors(r#"test zz "x" { given o(id) { (1) } }"#);
    assert_eq!(e.iter().map(|x| x.0).collect::<Vec<_>>(), ["E091"]);
}

// --- join cardinality: the `on` shapes E079 accepts and rejects ---------

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
                ShapeViolation::Cross => "cross",
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
        ("from o join_cross c expect many_to_one", "cross"),
        ("from o join_cross c expect one_to_one", "cross"),
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
    let src = include_str!("../../../../examples/seed/orders.strata");
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

/// A large module, its models checked on several threads a dependency level
/// at a time, gives the same result every time: every
/// model in dependency order, the same fingerprints, and exactly the errors
/// of the broken models, in source order (a model reading a broken one is
/// still checked against its schema).
#[test]
fn large_modules_check_the_same_on_several_threads() {
    let models = 1124;
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

/// A root file with an import between its declarations: its models are all
/// checked, and the comments come in file order, each file's in the text's
/// order.
#[test]
fn imports_keep_the_comments_in_file_order() {
    let dir = dir_with_lib(
        "comments",
        &format!("# lib\n{OC}\nmodel shared {{ from o select {{ x = cid }} }}\n"),
    );
    let mut root = String::new();
    let n = 200;
    for i in 0..n {
        if i == 100 {
            root.push_str("import lib\n");
        }
        root.push_str(&format!(
            "# model {i}\nmodel m{i} {{\n  from shared # reads shared\n  select {{ y = x }}\n}}\n"
        ));
    }
    let path = dir.join("root.strata");
    std::fs::write(&path, &root).expect("write root");
    let checked = crate::check_files(&[path], &crate::LoadOptions::default());
    assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
    assert_eq!(checked.module.models.len(), n + 1);
    assert_eq!(checked.comments.len(), 2 * n + 1);
    let at: Vec<_> = checked
        .comments
        .iter()
        .map(|c| (c.span.file, c.span.start))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Frames and NULL placements: what checks, what is E066, and the SQL
/// they lower to.
#[test]
fn window_frames_and_nulls_placement() {
    let c = assert_ok(&format!(
        "{OC} model m {{ from o select {{
            id = id,
            running = sum(v) over (partition_by: [cid], sort: [id nulls_first], rows: [unbounded, 0]),
            moving = avg(v) over (sort: [id desc nulls_last], rows: [-2, 2]),
            near = count() over (sort: [id], range: [-10, 0]),
            whole = last_value(s) over (partition_by: [cid], rows: [unbounded, unbounded]),
            last = last_value(s) over (sort: [id], range: [0, unbounded]),
            rn = row_number() over (sort: [v nulls_first])
        }} sort {{ v desc nulls_first, id }} }}"
    ));
    let m = &c.module.models[0];
    let d = crate::sql::Dialect::DuckDb;
    let sql = crate::sql::lower_model(
        &c.module,
        m,
        d,
        &|i| d.ident(&i.name),
        crate::sql::RunValues::NONE,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    for part in [
        "ORDER BY \"o\".\"id\" ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
        "ORDER BY \"o\".\"id\" DESC NULLS LAST ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)",
        "RANGE BETWEEN 10 PRECEDING AND CURRENT ROW)",
        "PARTITION BY \"o\".\"cid\" ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
        "RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
        "ROW_NUMBER() OVER (ORDER BY \"o\".\"v\" ASC NULLS FIRST)",
        "ORDER BY \"o\".\"v\" DESC NULLS FIRST, \"o\".\"id\" ASC NULLS LAST",
    ] {
        assert!(sql.contains(part), "{part} not in {sql}");
    }
    let e066 = |body: &str, message: &str| {
        let c = assert_codes(
            &format!("{OC} model m {{ from o select {{ {body} }} }}"),
            &["E066"],
        );
        let d = &c.diagnostics[0];
        assert!(d.message.contains(message), "{}", d.message);
        let text = format!("{OC} model m {{ from o select {{ {body} }} }}");
        let at = &text[d.span.range()];
        assert!(at.starts_with("rows:") || at.starts_with("range:"), "{at}");
    };
    e066(
        "r = row_number() over (sort: [id], rows: [unbounded, 0])",
        "row_number() takes no frame",
    );
    e066(
        "r = lag(v) over (sort: [id], rows: [-1, 0])",
        "lag() takes no frame",
    );
    e066(
        "r = sum(v) over (sort: [id], rows: [1, -1])",
        "starts after it ends (rows: [1, -1])",
    );
    e066("r = sum(v) over (rows: [-1, 0])", "needs the window's sort");
    e066(
        "r = sum(v) over (range: [unbounded, unbounded])",
        "needs the window's sort",
    );
    e066(
        "r = sum(v) over (sort: [s], range: [-1, 0])",
        "single int64",
    );
    e066(
        "r = sum(v) over (sort: [id, v], range: [-1, 0])",
        "single int64",
    );
    // A frame on a function that is no window function at all: E065.
    assert_codes(
        &format!(
            "{OC} model m {{ from o select {{ u = upper(s) over (sort: [id], rows: [-1, 0]) }} }}"
        ),
        &["E065"],
    );
}

/// A filter keeping the first row of each `row_number()` partition makes
/// the model unique on the partition's keys (SQL's QUALIFY), unless a row
/// can repeat after it.
#[test]
fn a_first_row_per_partition_filter_is_unique_on_its_keys() {
    let keys = |src: &str| -> Vec<Vec<String>> {
        let c = assert_ok(&format!("{OC} {src}"));
        let m = c.module.models.iter().find(|m| m.name == "m").expect("m");
        m.unique_by_construction()
            .into_iter()
            .filter(|(_, how)| *how == crate::ir::UniqueBy::FirstPerPartition)
            .map(|(k, _)| k.iter().map(|n| n.to_string()).collect())
            .collect()
    };
    let rn = "rn = row_number() over (partition_by: [cid, a], sort: [id desc])";
    assert_eq!(
        keys(&format!(
            "model m {{ from o select {{ customer = cid, a = a, {rn} }} filter rn == 1 }}"
        )),
        [["customer", "a"]]
    );
    // `1 == rn` inside an `and`, the keys renamed after the filter.
    assert_eq!(
        keys(&format!(
            "model m {{ from o derive {{ {rn} }} filter v > 0 and 1 == rn select {{ k1 = cid, k2 = a }} }}"
        )),
        [["k1", "k2"]]
    );
    // Not when: a key is not output, another rank is kept, the filter is
    // an `or`, a join follows, or a key is redefined.
    for src in [
        format!("model m {{ from o select {{ customer = cid, {rn} }} filter rn == 1 }}"),
        format!("model m {{ from o select {{ customer = cid, a = a, {rn} }} filter rn == 2 }}"),
        format!("model m {{ from o select {{ customer = cid, a = a, {rn} }} filter rn == 1 or v > 0 }}"),
        format!("model m {{ from o select {{ cid = cid, a = a, {rn} }} filter rn == 1 join_left c on o.cid == c.cid }}"),
        format!("model m {{ from o select {{ cid = cid, {rn} }} filter rn == 1 select {{ a = a + 1 }} }}"),
        "model m { from o select { cid = cid, a = a, r = rank() over (partition_by: [cid, a], sort: [id]) } filter r == 1 }".to_string(),
    ] {
        assert_eq!(keys(&src), Vec::<Vec<String>>::new(), "{src}");
    }
}

/// A frame or a NULL placement changes a model's fingerprint; a window or
/// sort without either keeps the one it had before they existed (the
/// pinned fingerprint in `fingerprint.rs` covers a model without them).
#[test]
fn frames_and_nulls_placements_change_the_fingerprint() {
    let fp = |body: &str| {
        let c = assert_ok(&format!("{OC} model m {{ from o {body} }}"));
        c.module.models[0].fingerprint.clone()
    };
    let plain = fp("select { r = sum(v) over (sort: [id]) } sort { id }");
    let variants = [
        fp("select { r = sum(v) over (sort: [id], rows: [unbounded, 0]) } sort { id }"),
        fp("select { r = sum(v) over (sort: [id], rows: [-1, 0]) } sort { id }"),
        fp("select { r = sum(v) over (sort: [id], range: [-1, 0]) } sort { id }"),
        fp("select { r = sum(v) over (sort: [id nulls_first]) } sort { id }"),
        fp("select { r = sum(v) over (sort: [id]) } sort { id nulls_first }"),
        fp("select { r = sum(v) over (sort: [id]) } sort { id nulls_last }"),
    ];
    for (i, v) in variants.iter().enumerate() {
        assert_ne!(&plain, v, "variant {i}");
        for w in &variants[i + 1..] {
            assert_ne!(v, w);
        }
    }
}

#[test]
fn rows_and_series_give_typed_columns_and_read_nothing() {
    let c = check(
        r#"
model statuses {
  rows(code: int64 nonnull, label: string) { (1, "placed") (2, null) }
  filter code > 0
}
model days { series day from cast("2024-01-01", "date") to current_date() step 2 weeks }
model n { series n from 1 to 10 step 2 derive { n = n, half = n / 2 } }
"#,
    );
    assert_eq!(codes(&c), Vec::<&str>::new(), "{:?}", c.diagnostics);
    assert_eq!(schema(&c, "statuses"), "code: int64 nonnull, label: string");
    assert_eq!(schema(&c, "days"), "day: date nonnull");
    assert_eq!(schema(&c, "n"), "n: int64 nonnull, half: float64 nonnull");
    let m = c
        .module
        .models
        .iter()
        .find(|m| m.name == "statuses")
        .expect("model statuses");
    assert!(m.inputs.is_empty());
    assert!(m
        .lineage
        .iter()
        .all(|l| l.from.is_empty() && l.how == "literal"));
}

#[test]
fn rows_and_series_errors_are_coded() {
    let cases = [
        // A row of the wrong width, a value of the wrong type.
        (
            r#"model m { rows(a: int64, b: string) { (1) } }"#,
            vec!["E114"],
        ),
        (
            r#"model m { rows(a: int64, b: string) { ("x", "y") } }"#,
            vec!["E113"],
        ),
        (
            r#"model m { rows(a: int64 nonnull) { (null) } }"#,
            vec!["E113"],
        ),
        (
            r#"model m { rows(a: int64, a: string) { (1, "x") } }"#,
            vec!["E025"],
        ),
        // An input besides.
        (
            r#"source s(ns: "a") { columns: { a: int64 } } model m { from s rows(a: int64) { (1) } }"#,
            vec!["E120"],
        ),
        (
            r#"source s(ns: "a") { columns: { a: int64 } } model m { rows(a: int64) { (1) } from s }"#,
            vec!["E120"],
        ),
        (
            r#"model m { series a from 1 to 2 series b from 1 to 2 }"#,
            vec!["E120"],
        ),
        // Bounds of two types, a column in a bound, a unit on integers, a
        // zero step, an unknown unit, a type that does not count.
        (
            r#"model m { series d from cast("2024-01-01", "date") to 10 }"#,
            vec!["E120"],
        ),
        (r#"model m { series d from 1 to d }"#, vec!["E120"]),
        (
            r#"model m { series d from 1 to 5 step 1 days }"#,
            vec!["E120"],
        ),
        (r#"model m { series d from 1 to 5 step 0 }"#, vec!["E120"]),
        (
            r#"model m { series d from cast("2024-01-01", "date") to current_date() step 1 fortnights }"#,
            vec!["E071"],
        ),
        (r#"model m { series d from "a" to "b" }"#, vec!["E120"]),
        (
            r#"model m { rows(a: nosuchtype) { (1) } filter b > 1 }"#,
            vec!["E078"],
        ),
    ];
    for (src, want) in cases {
        let c = check(src);
        assert_eq!(codes(&c), want, "{src}: {:?}", c.diagnostics);
        for d in &c.diagnostics {
            assert!(d.span.end > d.span.start, "{src}: no span on {d:?}");
        }
    }
}

#[test]
fn a_changed_literal_or_bound_changes_the_fingerprint() {
    let fp = |src: &str| {
        let c = check(src);
        assert_eq!(codes(&c), Vec::<&str>::new(), "{:?}", c.diagnostics);
        c.module.models[0].fingerprint.clone()
    };
    let rows = "model m { rows(a: int64) { (1) } }";
    assert_ne!(fp(rows), fp("model m { rows(a: int64) { (2) } }"));
    assert_eq!(
        fp(rows),
        fp("model m {\n  rows(a: int64) {\n    (1)\n  }\n}")
    );
    let series = "model m { series n from 1 to 10 }";
    assert_ne!(fp(series), fp("model m { series n from 1 to 11 }"));
    assert_ne!(fp(series), fp("model m { series n from 1 to 10 step 2 }"));
}
