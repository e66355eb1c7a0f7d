//! Models that read nothing (`rows`, `series`) end to end: built in
//! dependency order with nothing frozen for them, joined to a source, their
//! literals part of the fingerprint, and shown by graph and lineage.

use crate::support::*;

on_every_engine!(a_calendar_and_a_rows_model_join_orders_on_every_engine,);

const MODULE: &str = r#"source orders(ns: "a") { columns: { order_id: int64, customer_id: int64, amount: float64 } }
model calendar {
  series d from cast("2024-02-27", "date") to cast("2024-03-02", "date")
}
model months {
  series month from cast("2024-01-01", "date") to cast("2024-04-30", "date") step 1 months
}
model tiers {
  rows(customer_id: int64 nonnull, tier: string nonnull) {
    (10, "gold")
    (20, "silver")
  }
}
model daily {
  from calendar
  join_cross orders
  join_left tiers on orders.customer_id == tiers.customer_id expect many_to_one
  filter date_part(d, day) == orders.order_id + 26
  select { d = d, order_id = orders.order_id, tier = tiers.tier }
}
"#;

fn a_calendar_and_a_rows_model_join_orders_on_every_engine(kind: Kind) {
    let dir = workdir("generated");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(&dir, "m.strata", MODULE);
    write(
        &dir,
        "orders.csv",
        "order_id,customer_id,amount\n1,10,5.0\n2,20,7.5\n3,,1.0\n4,10,2.0\n",
    );
    let run = || {
        wh.strata(&[
            "run",
            "m.strata",
            "-o",
            "wh.duckdb",
            "--source",
            "orders=orders.csv",
        ])
    };
    let first = run();
    assert_exit(&first, 0);
    // Leap day included, both bounds included.
    assert_eq!(wh.query("SELECT d FROM v_calendar ORDER BY d").len(), 5);
    assert_eq!(
        wh.query(&format!(
            "SELECT CAST({m} AS {t}) FROM v_months ORDER BY {m}",
            m = wh.ident("month"),
            t = wh.type_name("VARCHAR")
        )),
        ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01"]
    );
    // Day 26 + order_id: 2024-02-27 is order 1, 02-28 order 2, 02-29
    // order 3 (no tier); order 4 would be February 30th.
    assert_eq!(
        wh.query(&format!(
            "SELECT CAST(d AS {t}), order_id, tier FROM v_daily ORDER BY d, order_id",
            t = wh.type_name("VARCHAR")
        )),
        ["2024-02-27|1|gold", "2024-02-28|2|silver", "2024-02-29|3|",]
    );
    // A changed literal changes the model: the next run rebuilds it.
    write(
        &dir,
        "m.strata",
        &MODULE.replace("\"gold\"", "\"platinum\""),
    );
    assert_exit(&run(), 0);
    assert_eq!(
        wh.query("SELECT tier FROM v_daily WHERE order_id = 1"),
        ["platinum"]
    );
    // Graph and lineage show the generated models with no upstream.
    let graph = strata(&dir, &["graph", "m.strata"]);
    assert_exit(&graph, 0);
    let lineage = strata(&dir, &["lineage", "m.strata", "daily.tier", "--upstream"]);
    assert_exit(&lineage, 0);
    assert!(
        text(&lineage).contains("tiers.tier -> daily.tier"),
        "{}",
        text(&lineage)
    );
    let generated = strata(&dir, &["lineage", "m.strata", "tiers.tier", "--upstream"]);
    assert_exit(&generated, 0);
    assert!(
        text(&generated).contains("no column edges"),
        "{}",
        text(&generated)
    );
}
