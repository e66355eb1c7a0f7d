//! W020 over small modules, through the registry (so these tests also show
//! that the rule is registered when the crate is linked).

use strata_lang::Diagnostic;

const SOURCES: &str = r#"
source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, region: string, day: date } }
source customers(ns: "shop") { columns: { customer_id: int64 primary_key, email: string unique, country: string } }
source rates(ns: "shop") { columns: { region: string primary_key, day: date primary_key, rate: float64 } }
source loose(ns: "shop") { columns: { customer_id: int64, note: string } }
contract customer_rows { customer_id: int64 nonnull unique, country: string }
model customer_dim -> contract customer_rows {
  from customers
  select { customer_id = customer_id, country = country }
}
model customer_copy {
  from customers
  select { customer_id = customer_id, country = country }
}
"#;

/// The W020 diagnostics of a model body checked against [`SOURCES`]; the
/// module must otherwise be clean.
fn w020(body: &str) -> Vec<Diagnostic> {
    let text = format!("{SOURCES}model m {{\n  {body}\n}}\n");
    let checked = strata_lang::check_text("m.strata", &text);
    assert!(!checked.has_errors(), "{body}: {:?}", checked.diagnostics);
    let mut found = strata_rules::run_lints(&checked.module);
    found.retain(|d| d.code == "W020");
    found
}

#[test]
fn the_rule_is_registered_as_a_lint_warning() {
    let rule = strata_rules::find("W020").expect("linked and registered");
    assert_eq!(rule.name, "join-could-promise-many-to-one");
    assert_eq!(rule.severity_name(), "warning");
    assert_eq!(rule.phase, strata_rules::Phase::Lint);
    assert!(rule.check.is_some());
}

#[test]
fn a_primary_key_or_unique_right_key_is_reported() {
    for body in [
        "from orders join_left customers on orders.customer_id == customers.customer_id",
        "from orders join_inner customers on customers.customer_id == orders.customer_id",
        // A right-only key bounds the matches just as well.
        "from orders join_left customers on customers.customer_id == coalesce(orders.customer_id, 0)",
        // A unique (not primary key) column.
        "from orders join_left customers on orders.region == customers.email",
        // A composite key containing a unique column is unique.
        "from orders join_left customers on orders.region == customers.email and orders.region == customers.country",
        // The whole composite primary key.
        "from orders join_left rates on orders.region == rates.region and orders.day == rates.day",
        // A model's contract declares the key.
        "from orders join_left customer_dim on orders.customer_id == customer_dim.customer_id",
    ] {
        let found = w020(body);
        assert_eq!(found.len(), 1, "{body}: {found:?}");
        assert!(!found[0].is_error());
    }
}

#[test]
fn joins_that_may_fan_out_or_already_promise_are_not_reported() {
    for body in [
        // Already promised.
        "from orders join_left customers on orders.customer_id == customers.customer_id expect many_to_one",
        // Part of a composite primary key: several rates per region.
        "from orders join_left rates on orders.region == rates.region",
        // No declared key.
        "from orders join_left loose on orders.customer_id == loose.customer_id",
        "from orders join_left customers on orders.region == customers.country",
        // A model without a contract declares nothing, whatever it reads.
        "from orders join_left customer_copy on orders.customer_id == customer_copy.customer_id",
        // Anti and semi joins never multiply rows.
        "from orders join_anti customers on orders.customer_id == customers.customer_id",
        "from orders join_semi customers on orders.customer_id == customers.customer_id",
        // Not a shape a cardinality check can count (E079 would reject it).
        "from orders join_left customers on orders.customer_id == customers.customer_id or orders.region == customers.email",
        "from orders join_left customers on orders.customer_id > customers.customer_id",
    ] {
        let found = w020(body);
        assert!(found.is_empty(), "{body}: {found:?}");
    }
}

#[test]
fn the_diagnostic_says_what_to_write_and_where() {
    let body =
        "from orders join_left rates on orders.region == rates.region and orders.day == rates.day";
    let text = format!("{SOURCES}model m {{\n  {body}\n}}\n");
    let checked = strata_lang::check_text("m.strata", &text);
    let found: Vec<Diagnostic> = strata_rules::run_lints(&checked.module)
        .into_iter()
        .filter(|d| d.code == "W020")
        .collect();
    let d = &found[0];
    let snippet = |s: strata_lang::Span| &text[s.range()];
    assert_eq!(snippet(d.span), "join_left");
    assert_eq!(
        d.label.as_deref(),
        Some("in source `rates`, (region, day) are declared primary_key")
    );
    assert_eq!(
        snippet(d.labels[0].span),
        "orders.region == rates.region and orders.day == rates.day"
    );
    assert!(d.labels[0]
        .message
        .contains("add ` expect many_to_one` after"));
    assert!(snippet(d.labels[1].span).starts_with("source rates"));
    assert!(d
        .help
        .as_deref()
        .is_some_and(|h| h.contains("`expect many_to_one`")));
}

/// The explanation follows the rules of tests/tidy/ for built-in rules:
/// its failing example reports W020, its fix checks clean.
#[test]
fn the_explanation_examples_fail_and_the_fix_passes() {
    let rule = strata_rules::find("W020").expect("registered");
    let blocks: Vec<&str> = rule
        .doc
        .split("```strata\n")
        .skip(1)
        .filter_map(|b| b.split("\n```").next())
        .collect();
    assert_eq!(blocks.len(), 2, "an example and its fix");
    assert!(rule.doc.contains("## What it means") && rule.doc.contains("## How to fix"));
    let codes = |program: &str| {
        let checked = strata_lang::check_text("example.strata", program);
        let mut diags = checked.diagnostics;
        // The other lints (no contract, no owner...) are not this rule's.
        diags.extend(
            strata_rules::run_lints(&checked.module)
                .into_iter()
                .filter(|d| d.code == "W020"),
        );
        diags.iter().map(|d| d.code).collect::<Vec<_>>()
    };
    assert_eq!(codes(blocks[0]), ["W020"]);
    assert!(codes(blocks[1]).is_empty(), "{:?}", codes(blocks[1]));
}
