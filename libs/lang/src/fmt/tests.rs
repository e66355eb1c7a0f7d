//! Formatter tests: expected output for every construct, and the
//! properties (idempotence, same AST, same comments) on every case and on
//! every `.strata` file of the repository.

use super::*;
use crate::ast::*;
use crate::parser::parse;
use crate::span::FileId;

// -------------------------------------------------------------------------
// Property checks

fn parse_ok(src: &str, what: &str) -> File {
    let (file, diags) = parse(FileId(0), src);
    let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
    assert!(
        errors.is_empty(),
        "{what} does not parse: {errors:?}\n--- text ---\n{src}"
    );
    file
}

/// `Span { .. }` in a Debug dump replaced by `_`.
fn erase_spans(dump: &str) -> String {
    let mut out = String::with_capacity(dump.len());
    let mut rest = dump;
    while let Some(i) = rest.find("Span { file: ") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        match after.find(" }") {
            Some(j) => {
                out.push('_');
                rest = &after[j + 2..];
            }
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

fn norm_expr(e: &mut Expr) {
    match &mut e.kind {
        ExprKind::Call(c) => {
            for a in &mut c.args {
                norm_expr(&mut a.value);
            }
            if let Some(w) = &mut c.over {
                let mut order = Vec::new();
                for p in &w.parts_written {
                    if !order.contains(p) {
                        order.push(*p);
                    }
                }
                w.parts_written = order;
                for x in &mut w.partition_by {
                    norm_expr(x);
                }
                for k in &mut w.sort {
                    norm_expr(&mut k.expr);
                }
            }
        }
        ExprKind::Unary { operand, .. } => norm_expr(operand),
        ExprKind::Binary { lhs, rhs, .. } => {
            norm_expr(lhs);
            norm_expr(rhs);
        }
        ExprKind::List(items) => items.iter_mut().for_each(norm_expr),
        ExprKind::Comprehension { element, iter, .. } => {
            norm_expr(element);
            norm_expr(iter);
        }
        ExprKind::Model(m) => norm_items(&mut m.items),
        _ => {}
    }
}

fn norm_items(items: &mut [Item]) {
    for it in items {
        match &mut it.kind {
            ItemKind::Filter { expr, where_kw } => {
                *where_kw = false;
                norm_expr(expr);
            }
            ItemKind::Join(j) => j.on.iter_mut().for_each(norm_expr),
            ItemKind::Let { expr, .. } => norm_expr(expr),
            ItemKind::Series(s) => {
                norm_expr(&mut s.start);
                norm_expr(&mut s.end);
            }
            ItemKind::Assign(_, assigns) => {
                for a in assigns {
                    norm_expr(&mut a.expr);
                }
            }
            ItemKind::Group(g) => {
                g.keys.iter_mut().for_each(norm_expr);
                norm_items(&mut g.body);
            }
            ItemKind::Sort(keys) => {
                for k in keys {
                    norm_expr(&mut k.expr);
                }
            }
            ItemKind::Dedup { by: Some(keys) } => keys.iter_mut().for_each(norm_expr),
            ItemKind::PartitionBy { exprs, freshness } => {
                exprs.iter_mut().for_each(norm_expr);
                if let Some(inc) = freshness.as_mut().and_then(|f| f.incremental.as_mut()) {
                    norm_incremental(inc);
                }
            }
            ItemKind::Freshness(f) => {
                if let Some(inc) = &mut f.incremental {
                    norm_incremental(inc);
                }
            }
            ItemKind::Incremental(inc) => norm_incremental(inc),
            _ => {}
        }
    }
}

fn norm_incremental(inc: &mut Incremental) {
    if let Some(keys) = &mut inc.merge_keys {
        keys.iter_mut().for_each(norm_expr);
    }
}

/// The AST without spans, comments and the normalisations the formatter
/// makes (`where`, fn body braces, repeated window parts).
fn normalized(file: &File) -> String {
    let mut decls = file.decls.clone();
    for d in &mut decls {
        match d {
            Decl::Model(m) => norm_items(&mut m.items),
            Decl::Fn(f) => {
                f.braced = true;
                norm_expr(&mut f.body);
            }
            Decl::Generator(e) => norm_expr(e),
            Decl::Pipeline(p) => p.models.iter_mut().for_each(norm_expr),
            _ => {}
        }
    }
    erase_spans(&format!("{decls:?}"))
}

/// The comments' texts, sorted, without the `\r` of CRLF line endings.
fn comment_texts(file: &File) -> Vec<String> {
    let mut v: Vec<String> = file
        .comments
        .iter()
        .map(|c| {
            c.text
                .replace("\r\n", "\n")
                .trim_end_matches('\r')
                .to_string()
        })
        .collect();
    v.sort();
    v
}

/// Formats `src` and checks: the output parses to the same AST (spans and
/// comments aside), keeps every comment, and formats to itself.
fn formatted(src: &str) -> String {
    let f1 = parse_ok(src, "input");
    let out = format_file(&f1, src);
    let f2 = parse_ok(&out, "formatted output");
    let (n1, n2) = (normalized(&f1), normalized(&f2));
    if n1 != n2 {
        let at = n1
            .char_indices()
            .zip(n2.chars())
            .find(|((_, a), b)| a != b)
            .map_or(n1.len().min(n2.len()), |((i, _), _)| i);
        let from = n1[..at].char_indices().rev().nth(200).map_or(0, |(i, _)| i);
        panic!(
            "formatting changed the AST\n--- input ---\n{src}\n--- output ---\n{out}\n\
             --- input AST from the difference ---\n{}\n--- output AST ---\n{}",
            n1[from..].chars().take(600).collect::<String>(),
            n2[from..].chars().take(600).collect::<String>()
        );
    }
    assert_eq!(
        comment_texts(&f1),
        comment_texts(&f2),
        "formatting changed the comments\n--- input ---\n{src}\n--- output ---\n{out}"
    );
    let again = format_file(&f2, &out);
    assert_eq!(
        out, again,
        "not idempotent\n--- input ---\n{src}\n--- first ---\n{out}\n--- second ---\n{again}"
    );
    // Comments are verbatim: only the code must not end a line with blanks.
    let mut code = out.clone().into_bytes();
    for c in &f2.comments {
        for b in &mut code[c.span.range()] {
            if !matches!(*b, b'\n' | b'\r') {
                *b = b'c';
            }
        }
    }
    let code = String::from_utf8_lossy(&code);
    assert!(
        !code
            .lines()
            .any(|l| l.ends_with([' ', '\t', '\r']) || l.starts_with('\t')),
        "trailing whitespace or tab indentation\n{out}"
    );
    out
}

/// Formats `input`, checks the properties and the expected text.
#[track_caller]
fn check(input: &str, expected: &str) {
    let out = formatted(input);
    assert_eq!(
        out, expected,
        "\n--- input ---\n{input}\n--- got ---\n{out}\n--- expected ---\n{expected}"
    );
}

#[test]
fn every_repository_strata_file() {
    let files = crate::test_files::repository_strata_files();
    let mut checked = 0;
    for path in &files {
        let Ok(src) = std::fs::read_to_string(path) else {
            continue;
        };
        let (_, diags) = parse(FileId(0), &src);
        if diags.iter().any(|d| d.is_error()) {
            // Parse-error fixtures: format_source must refuse them.
            assert!(
                format_source(FileId(0), &src).is_err(),
                "{}",
                path.display()
            );
            continue;
        }
        let out = std::panic::catch_unwind(|| formatted(&src));
        assert!(
            out.is_ok(),
            "formatter property failed on {}",
            path.display()
        );
        checked += 1;
    }
    // Not an assertion on the count: the corpus may be empty in a checkout.
    eprintln!("formatted {checked} of {} files", files.len());
}

// -------------------------------------------------------------------------
// Declarations

#[test]
fn source_args_columns_and_props() {
    check(
        r#"source orders(ns:"app",dataset:orders){columns:{id:int64 nonnull primary_key,amount:decimal(10 2);tags:array(array(string))
  cur: money(EUR)  m: money} owner: "team" retention: 30, "odd key": x}"#,
        r#"source orders(ns: "app", dataset: orders) {
  columns: {
    id: int64 nonnull primary_key
    amount: decimal(10, 2)
    tags: array(array(string))
    cur: money(EUR)
    m: money
  }
  owner: "team"
  retention: 30
  "odd key": x
}
"#,
    );
}

#[test]
fn source_property_keyed_by_a_comma_keeps_the_comma_before_it() {
    // The parser reads a `,` after an entry as the separator: an entry
    // followed by a property whose key is `,` must keep one.
    check(
        "source s() { columns: {} , , : x , , : y , \",\": z , : : , }",
        "source s() {\n  columns: {},\n  ,: x,\n  ,: y\n  \",\": z\n  :: ,\n}\n",
    );
    check("source s() { , : x }", "source s() {\n  ,: x\n}\n");
}

#[test]
fn source_without_body_and_with_empty_columns() {
    check(
        "source a()\nsource b() {}\nsource c(ns: x) { columns: {} }\n",
        "source a()\n\nsource b()\n\nsource c(ns: x) {\n  columns: {}\n}\n",
    );
}

#[test]
fn contract_annotations_and_types() {
    check(
        r#"contract C { a: int64 nonnull unique  b: string enum {A, "b c", 1, "d"} classification: pii
 c: string classification: "sensitive data" protected  d: my_domain, e: uuid; f: json g: bool h: date i: timestamp j: float64 }"#,
        r#"contract C {
  a: int64 nonnull unique
  b: string enum { A, "b c", 1, "d" } classification: pii
  c: string classification: "sensitive data" protected
  d: my_domain
  e: uuid
  f: json
  g: bool
  h: date
  i: timestamp
  j: float64
}
"#,
    );
}

#[test]
fn instant_and_float32_types() {
    check(
        "source s() { columns: { at: timestamptz nonnull, w: float32, l: array(timestamptz) } }\ndomain weight = float32\n",
        "source s() {\n  columns: {\n    at: timestamptz nonnull\n    w: float32\n    l: array(timestamptz)\n  }\n}\n\ndomain weight = float32\n",
    );
}

#[test]
fn empty_bodies() {
    check(
        "contract C {}\nmodel m {}\ntest m {}\npipeline p {}\n",
        "contract C {}\n\nmodel m {}\n\ntest m {}\n\npipeline p {}\n",
    );
}

#[test]
fn imports_and_domains_keep_runs() {
    check(
        "import a.b\nimport c\n\nimport d\ndomain x = int64\ndomain y = decimal(12,2)\nmodel m { from s }\ndomain z = x\n",
        "import a.b\nimport c\n\nimport d\n\ndomain x = int64\ndomain y = decimal(12, 2)\n\nmodel m {\n  from s\n}\n\ndomain z = x\n",
    );
}

#[test]
fn model_every_clause() {
    check(
        r#"model "all clauses" -> contract C { owner: "me" description: "d" from a
join_left b on a.id == b.id expect many_to_one join_inner c on a.id == c.id expect one_to_one
join_anti d on a.id == d.id join_semi e on a.id == e.id join_right f on a.id == f.id
join_full g on a.id==g.id expect one_to_one join_cross h expect many_to_one
where x > 1 filter y let z = x * 2 select { a = x, b = y } derive {} aggregate { n = count(*) }
sort { a, b asc nulls_first, c desc nulls_last } take 10 take 5 .. 10 expand tags as tag expand t2 union u union all v
intersect w except y dedup dedup by a, b + 1
partition_by [d, e] freshness 1h, 24h freshness_column: ts
freshness: daily, "0 0 * * *" freshness_column: ts incremental merge_strategy: upsert merge_keys: [id, k] cdc_column: ts
incremental incremental merge_strategy: append partition_by [] }"#,
        r#"model "all clauses" -> contract C {
  owner: "me"
  description: "d"
  from a
  join_left b on a.id == b.id expect many_to_one
  join_inner c on a.id == c.id expect one_to_one
  join_anti d on a.id == d.id
  join_semi e on a.id == e.id
  join_right f on a.id == f.id
  join_full g on a.id == g.id expect one_to_one
  join_cross h expect many_to_one
  filter x > 1
  filter y
  let z = x * 2
  select { a = x, b = y }
  derive {}
  aggregate { n = count(*) }
  sort { a, b asc nulls_first, c desc nulls_last }
  take 10
  take 5..10
  expand tags as tag
  expand t2
  union u
  union all v
  intersect w
  except y
  dedup
  dedup by a, b + 1
  partition_by [d, e] freshness: 1h, 24h freshness_column: ts
  freshness: daily, "0 0 * * *"
    freshness_column: ts
    incremental merge_strategy: upsert merge_keys: [id, k] cdc_column: ts
  incremental
  incremental merge_strategy: append
  partition_by []
}
"#,
    );
}

#[test]
fn group_clause() {
    check(
        "model m { from s group { k1, t.k2, } ( where n > 1 aggregate { n = count(), total = sum(x) } sort { n desc } take 3 ) group {} () }",
        r#"model m {
  from s
  group { k1, t.k2 } (
    filter n > 1
    aggregate { n = count(), total = sum(x) }
    sort { n desc }
    take 3
  )
  group {} ()
}
"#,
    );
}

#[test]
fn freshness_values() {
    check(
        "model m { freshness 7 freshness 1 h owner: \"x\" freshness: weekly, incremental }",
        "model m {\n  freshness: 7\n  freshness: 1h\n  owner: \"x\"\n  freshness: weekly, incremental\n}\n",
    );
}

#[test]
fn pipeline_entries() {
    check(
        r#"pipeline nightly env: prod { models: [a, b, by_country(countries())], sources: { orders: from(ns: "dev", dataset: orders_dev,), customers, } }"#,
        r#"pipeline nightly {
  env: prod
  models: [a, b, by_country(countries())]
  sources: {
    orders: from(ns: "dev", dataset: orders_dev)
    customers
  }
}
"#,
    );
}

#[test]
fn pipeline_keys_in_any_order() {
    check(
        "pipeline p { sources: { s } models: [m] env: dev }",
        "pipeline p {\n  env: dev\n  models: [m]\n  sources: {\n    s\n  }\n}\n",
    );
}

#[test]
fn test_checks() {
    check(
        r#"test m { expect row_count > 0; expect a == 1.50 expect b != "x\"y"; expect c >= true expect d <= null; expect e < 2 expect f in other.g }"#,
        r#"test m {
  expect row_count > 0
  expect a == 1.50
  expect b != "x\"y"
  expect c >= true
  expect d <= null
  expect e < 2
  expect f in other.g
}
"#,
    );
}

#[test]
fn fixture_tests_line_up_their_rows() {
    check(
        r#"test m "a name" { expect row_count == 2; given o(a,b,  c,) { (1, "x", -2.50) (10_000,null , [1,2]), ( - 3, "\t", []) } given p {} expect rows(a) {(1),(2)} expect rows {} }"#,
        r#"test m "a name" {
  expect row_count == 2
  given o(a, b, c) {
    (1,      "x",  -2.50)
    (10_000, null, [1, 2])
    (-3,     "\t", [])
  }
  given p {}
  expect rows(a) {
    (1)
    (2)
  }
  expect rows {}
}
"#,
    );
    // A severity first, on its own line, its comment kept.
    check(
        "test m { severity :warn; # dbt: warn\n expect row_count > 0 }",
        "test m {\n  severity: warn # dbt: warn\n  expect row_count > 0\n}\n",
    );
    // Comments stay with their rows.
    check(
        "test m {\n  given o(a) { # the inputs\n    (1) # one\n    // two\n    (2)\n  }\n}\n",
        "test m {\n  given o(a) { # the inputs\n    (1) # one\n    // two\n    (2)\n  }\n}\n",
    );
}

#[test]
fn fn_decls_generators_and_model_values() {
    check(
        r#"fn countries() -> List<Str> ["FR", "DE",]
fn by_country(cs: List<Str>, n: int64) -> List<Model> { [ model "m_${c}" -> contract C { owner: "x" from t where t.country == c let y = 1 derive { z = y } take 5 join_left u on t.id == u.id } for c in cs ] }
by_country(countries(), 3)"#,
        r#"fn countries() -> List<Str> {
  ["FR", "DE"]
}

fn by_country(cs: List<Str>, n: int64) -> List<Model> {
  [
    model "m_${c}" -> contract C {
      owner: "x"
      from t
      filter t.country == c
      let y = 1
      derive { z = y }
      take 5
      join_left u on t.id == u.id
    }
    for c in cs
  ]
}

by_country(countries(), 3)
"#,
    );
}

#[test]
fn fn_templates_and_short_comprehension() {
    check(
        r#"fn names(xs: List<Str>) -> List<Str> { [ "n_${x}\t${x}" + concat("a", x) for x in xs ] }"#,
        "fn names(xs: List<Str>) -> List<Str> {\n  [\"n_${x}\\t${x}\" + concat(\"a\", x) for x in xs]\n}\n",
    );
}

// -------------------------------------------------------------------------
// Expressions

fn expr_check(input: &str, expected: &str) {
    let src = format!("model m {{ filter {input} }}");
    let out = formatted(&src);
    let want = format!("model m {{\n  filter {expected}\n}}\n");
    assert_eq!(out, want, "\n--- input ---\n{input}");
    let e = crate::parser::parse_expr(FileId(0), input);
    match e {
        Ok(e) => assert_eq!(format_expr(&e), expected),
        Err(d) => panic!("{d:?}"),
    }
}

#[test]
fn minimal_parentheses() {
    expr_check("not (x > 1)", "not (x > 1)");
    expr_check("(not x) > 1", "not x > 1");
    expr_check("(a + b) * c", "(a + b) * c");
    expr_check("a + (b * c)", "a + b * c");
    expr_check("(a - b) - c", "a - b - c");
    expr_check("a - (b - c)", "a - (b - c)");
    expr_check("a / (b * c) % d", "a / (b * c) % d");
    expr_check("((a or b)) and c", "(a or b) and c");
    expr_check("a or (b and c)", "a or b and c");
    expr_check("(a < b) < c", "a < b < c");
    expr_check("a < (b < c)", "a < (b < c)");
    expr_check("x in (a || b)", "x in a || b");
    expr_check("(x in a) == b", "x in a == b");
    expr_check("-(a + b) * -c", "-(a + b) * -c");
    expr_check("- -x", "- -x");
    expr_check("-(-(x))", "- -x");
    expr_check("not not x", "not not x");
    expr_check("-.5 + 1.50 + (1_000)", "-.5 + 1.50 + 1000");
}

#[test]
fn literals_calls_and_windows() {
    expr_check(
        r#"f( "a\nb\t\"q\"\\" , "$\{x}", true, false, null )"#,
        r#"f("a\nb\t\"q\"\\", "$\{x}", true, false, null)"#,
    );
    expr_check(
        "count( distinct x ) + count(*)",
        "count(distinct x) + count(*)",
    );
    expr_check("date_add(d, days: 7)", "date_add(d, days: 7)");
    expr_check(
        r#"date_trunc(d, month) < date_trunc(d, "year") and date_diff(a, b, day) > 1"#,
        "date_trunc(d, month) < date_trunc(d, year) and date_diff(a, b, day) > 1",
    );
    expr_check(
        r#"date_part(ts , "isodow") + date_part(d, year)"#,
        "date_part(ts, isodow) + date_part(d, year)",
    );
    expr_check(
        "round( x , 2 ) + mod(i, 3) + greatest(a, b, 0)",
        "round(x, 2) + mod(i, 3) + greatest(a, b, 0)",
    );
    expr_check(
        "row_number() over (sort: [a desc, b], partition_by: [k]) > 1",
        "row_number() over (sort: [a desc, b], partition_by: [k]) > 1",
    );
    expr_check(
        "rank() over (partition_by: [a], partition_by: [b]) + lag(x) over () > 0",
        "rank() over (partition_by: [a, b]) + lag(x) over () > 0",
    );
    // Placements as written; the frame last, its bounds as numbers.
    expr_check(
        "sum(x) over (rows: [ - 2 , 0 ], sort: [a desc  nulls_first, b nulls_last], partition_by: [k])",
        "sum(x) over (sort: [a desc nulls_first, b nulls_last], partition_by: [k], rows: [-2, 0])",
    );
    expr_check(
        "last_value(x) over (range: [unbounded,unbounded], sort: [t])",
        "last_value(x) over (sort: [t], range: [unbounded, unbounded])",
    );
    expr_check(
        "count() over (rows: [unbounded, unbounded])",
        "count() over (rows: [unbounded, unbounded])",
    );
    // An ordered aggregate's sort: [..], its last argument.
    expr_check(
        r#"string_agg( s , ", " ,sort: [k  desc nulls_first, s] ) || strptime(t,"%Y")"#,
        r#"string_agg(s, ", ", sort: [k desc nulls_first, s]) || strptime(t, "%Y")"#,
    );
    expr_check("percentile_cont(x , 0.9)", "percentile_cont(x, 0.9)");
}

#[test]
fn long_lines_break() {
    check(
        "model m { select { aaaaaaaaaa = bbbbbbbbbbbbbbbbbb, cccccccccccccccc = dddddddddddddddddddddd, eeeeeeeeeeeee = fffffffffff } }",
        r#"model m {
  select {
    aaaaaaaaaa = bbbbbbbbbbbbbbbbbb,
    cccccccccccccccc = dddddddddddddddddddddd,
    eeeeeeeeeeeee = fffffffffff,
  }
}
"#,
    );
    check(
        "model m { filter aaaaaaaaaaaaaaaaaaaa == 1 and bbbbbbbbbbbbbbbbbbbbbbbbb == 2 and cccccccccccccccccccccc > 3 or ddddddddddd }",
        r#"model m {
  filter aaaaaaaaaaaaaaaaaaaa == 1 and bbbbbbbbbbbbbbbbbbbbbbbbb == 2 and cccccccccccccccccccccc > 3
    or ddddddddddd
}
"#,
    );
    check(
        "model m { filter aaaaaaaaaaaaaaaaaaaa == 1 and bbbbbbbbbbbbbbbbbbbbbbbbb == 2 and (ccccccccccccccccccccccc > 3 or d) }",
        r#"model m {
  filter aaaaaaaaaaaaaaaaaaaa == 1
    and bbbbbbbbbbbbbbbbbbbbbbbbb == 2
    and (ccccccccccccccccccccccc > 3 or d)
}
"#,
    );
    check(
        "model m { let x = some_function_name(first_argument_value, second_argument_value, third_argument_value_xyzw_more) }",
        r#"model m {
  let x = some_function_name(
    first_argument_value,
    second_argument_value,
    third_argument_value_xyzw_more
  )
}
"#,
    );
}

#[test]
fn select_fits_exactly_in_the_width() {
    // 2 + "select { " + name + " = x }" = 100 columns.
    let name = "a".repeat(100 - 17);
    let src = format!("model m {{ select {{ {name} = x }} }}");
    let out = formatted(&src);
    assert!(
        out.contains(&format!("  select {{ {name} = x }}\n")),
        "{out}"
    );
    let name = "a".repeat(101 - 17);
    let src = format!("model m {{ select {{ {name} = x }} }}");
    let out = formatted(&src);
    assert!(
        out.contains(&format!("  select {{\n    {name} = x,\n  }}\n")),
        "{out}"
    );
}

// -------------------------------------------------------------------------
// Comments

#[test]
fn comments_leading_trailing_and_end_of_file() {
    check(
        r#"# header

// about s
source s() { columns: { a: int64 // the key
  # b's comment
  b: string, /* c */ c: bool } }
model m { // opening
  from s # trailing
  /* block
     kept verbatim */
  filter a > 1

  // after a blank line
  select { x = a, // on x
    y = b }
  // before the end
}
// end of file
"#,
        r#"# header

// about s
source s() {
  columns: {
    a: int64 // the key
    # b's comment
    b: string /* c */
    c: bool
  }
}

model m { // opening
  from s # trailing
  /* block
     kept verbatim */
  filter a > 1

  // after a blank line
  select {
    x = a, // on x
    y = b,
  }
  // before the end
}
// end of file
"#,
    );
}

#[test]
fn comments_inside_expressions_move_before_the_clause() {
    check(
        "model m {\n  filter a > 1 /* inner */ and b\n  let x = f(a, // why\n    b)\n  select { y = g(/* c */ 1) }\n}\n",
        r#"model m {
  /* inner */
  filter a > 1 and b
  let x = f(
    a, // why
    b
  )
  select {
    y = g( /* c */
      1
    ),
  }
}
"#,
    );
}

#[test]
fn comments_in_pipeline_and_test() {
    check(
        r#"pipeline p { // the pipeline
  env: dev // environment
  // the models
  models: [a, // first
   b]
  sources: { s: from(ns: "x") # override
  }
}
test m {
  # count
  expect row_count > 0 // at least one
}"#,
        r#"pipeline p { // the pipeline
  env: dev // environment
  // the models
  models: [
    a, // first
    b,
  ]
  sources: {
    s: from(ns: "x") # override
  }
}

test m {
  # count
  expect row_count > 0 // at least one
}
"#,
    );
}

#[test]
fn comments_between_declarations_and_in_headers() {
    check(
        "model m // trailing the name\n{ from s }\n\n\n// about n\n\nmodel /* name */ n { from m }\nfn /* f */ f(/* p */ x: Int) -> /* r */ Int { x // body\n}\n",
        r#"model m { // trailing the name
  from s
}

// about n

/* name */
model n {
  from m
}

/* f */
/* r */
fn f( /* p */
  x: Int
) -> Int {
  x // body
}
"#,
    );
}

#[test]
fn comment_only_file() {
    check(
        "// just a comment\n\n/* and a block */\n",
        "// just a comment\n\n/* and a block */\n",
    );
    check("", "");
}

#[test]
fn two_line_comments_never_share_a_line() {
    check(
        "model m { from s } // one\n// two\nmodel n { from m }",
        "model m {\n  from s\n} // one\n\n// two\nmodel n {\n  from m\n}\n",
    );
}

// -------------------------------------------------------------------------
// API

#[test]
fn format_source_refuses_parse_errors() {
    assert!(format_source(FileId(0), "model m { filter a = 1 }").is_err());
    assert_eq!(
        format_source(FileId(0), "model m{from s}"),
        Ok("model m {\n  from s\n}\n".to_string())
    );
}

#[test]
fn format_model_ignores_comments_and_layout() {
    let a = parse_ok(
        "model m -> contract C { from s // c\n where x > (1) select {a=x} }",
        "a",
    );
    let b = parse_ok(
        "\n\n// before\nmodel m -> contract C {\n  from s\n  /* c */ filter x > 1\n  select { a = x, }\n}",
        "b",
    );
    let (Some(Decl::Model(ma)), Some(Decl::Model(mb))) = (a.decls.first(), b.decls.first()) else {
        panic!("no model");
    };
    let text = format_model(ma);
    assert_eq!(text, format_model(mb));
    assert_eq!(
        text,
        "model m -> contract C {\n  from s\n  filter x > 1\n  select { a = x }\n}"
    );
}

// -------------------------------------------------------------------------
// Comments at every token boundary of every repository file

/// `src` with `make(n)` inserted before every token whose index `i`
/// satisfies `pick(i)` (never inside a token, so the program is unchanged).
fn with_comments(
    src: &str,
    pick: impl Fn(usize) -> bool,
    make: impl Fn(usize) -> String,
) -> String {
    let lexed = crate::lexer::lex(FileId(0), src);
    let mut out = String::new();
    let mut last = 0;
    for (i, t) in lexed.tokens.iter().enumerate() {
        let at = t.span.start as usize;
        if !pick(i) || at < last {
            continue;
        }
        out.push_str(&src[last..at]);
        out.push_str(&make(i));
        last = at;
    }
    out.push_str(&src[last..]);
    out
}

fn parseable_repository_files() -> Vec<String> {
    let files = crate::test_files::repository_strata_files();
    files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter(|s| !parse(FileId(0), s).1.iter().any(|d| d.is_error()))
        .collect()
}

#[test]
fn comments_at_every_token_boundary() {
    let styles: [&dyn Fn(usize) -> String; 7] = [
        &|i| format!("/* b{i} */ "),
        &|i| format!("// l{i}\n"),
        &|i| format!("\n# own{i}\n\n"),
        &|i| format!("/* multi\n   line {i} */"),
        &|i| format!("/* x{i} */ // y{i}\n"),
        &|i| format!("\n\n\n// z{i}\n/* w{i} */\n\n"),
        &|i| format!(" #a{i}\n//b{i}\n"),
    ];
    for src in parseable_repository_files() {
        let plain = parse_ok(&src, "input");
        for (k, make) in styles.iter().enumerate() {
            for r in 0..4 {
                // r == 3: a comment at every boundary.
                let text = with_comments(&src, |i| r == 3 || (i + k) % 3 == r, make);
                let out = std::panic::catch_unwind(|| formatted(&text));
                assert!(out.is_ok(), "comment style {k}, offset {r}:\n{text}");
                // A model's canonical text ignores comments and layout.
                let commented = parse_ok(&text, "commented");
                for (a, b) in plain.decls.iter().zip(&commented.decls) {
                    if let (Decl::Model(a), Decl::Model(b)) = (a, b) {
                        assert_eq!(format_model(a), format_model(b), "{text}");
                    }
                }
            }
        }
    }
}

#[test]
fn one_comment_at_each_boundary() {
    let src = r#"source s(ns: "a") { columns: { a: int64 nonnull enum { x, "y" }, b: decimal(1, 2) } p: 1 }
model m -> contract C { owner: "o" from s join_left t on s.a == t.a expect one_to_one
  filter not (a > 1) let c = f(a, k: 2) over (partition_by: [a], sort: [b desc])
  group { a } ( aggregate { n = count(distinct b) } sort { n desc } take 1 .. 2 )
  dedup by a partition_by [a] freshness 1h freshness_column: b incremental merge_keys: [a] }
pipeline p env: e { models: [m, g(1)] sources: { s: from(ns: "b") } }
test m { expect row_count > 0; expect a in m.b }
test m "f" { given s(a, b) { (1, -2.5) ("x", [null]) } expect rows(a) { (true) } }
fn g(x: Int) -> List<Model> [model "m_${x}" { from s where a == x } for y in [1, 2]]
g(3)
domain d = array(money(EUR))
import a.b
"#;
    let n = crate::lexer::lex(FileId(0), src).tokens.len();
    for at in 0..n {
        for make in [|_| "/* c */ ".to_string(), |_| "// c\n".to_string()] {
            let text = with_comments(src, |i| i == at, make);
            let out = std::panic::catch_unwind(|| formatted(&text));
            assert!(out.is_ok(), "comment before token {at}:\n{text}");
        }
    }
}

#[test]
fn deep_nesting_and_large_files() {
    // Nesting close to the parser's limit.
    let depth = 150;
    let e = format!("{}x{}", "(a + ".repeat(depth), ")".repeat(depth));
    formatted(&format!("model m {{ filter {e} > 1 }}"));
    let e = format!("{}x{}", "not -".repeat(depth / 2), "");
    formatted(&format!("model m {{ filter {e} }}"));
    // Many declarations, each with comments.
    let mut src = String::new();
    for i in 0..2000 {
        src.push_str(&format!(
            "// model {i}\nmodel m{i} {{ from s{i} filter a > {i} /* why */ select {{ a = a, b = b + {i} }} }} # end\n"
        ));
    }
    let start = std::time::Instant::now();
    let f = parse_ok(&src, "large");
    let out = format_file(&f, &src);
    let took = start.elapsed();
    assert!(out.lines().count() > 10_000);
    assert!(took.as_secs() < 5, "formatting 2000 models took {took:?}");
}

#[test]
fn output_does_not_depend_on_layout() {
    for src in parseable_repository_files() {
        let lexed = crate::lexer::lex(FileId(0), &src);
        let words: Vec<&str> = lexed
            .tokens
            .iter()
            .map(|t| &src[t.span.range()])
            .filter(|w| !w.is_empty())
            .collect();
        let one_line = words.join(" ");
        let one_per_line = words.join("\n");
        let a = formatted(&one_line);
        let b = formatted(&one_per_line);
        assert_eq!(a, b, "layout changed the output:\n{one_line}");
    }
}

#[test]
fn crlf_tabs_and_bom() {
    check(
        "// a\r\nmodel m {\r\n\tfrom s // b\r\n\r\n\tfilter x == \"l1\r\nl2\"\r\n}\r\n",
        "// a\r\nmodel m {\r\n  from s // b\r\n\r\n  filter x == \"l1\r\\nl2\"\r\n}\r\n",
    );
    check(
        "/* a\r\n b */\r\nmodel m { from s }",
        "/* a\r\n b */\r\nmodel m {\r\n  from s\r\n}\r\n",
    );
    check(
        "model m { from s }\n// lf first\r\n",
        "model m {\n  from s\n}\n// lf first\n",
    );
    check(
        "\u{feff}// bom\nmodel m { from s }",
        "// bom\nmodel m {\n  from s\n}\n",
    );
}

#[test]
fn numbers_as_written() {
    check(
        "model m { filter a == 1_000 and b == 1_0.5_0 take 1_0 } test m { expect a == 1_000 }",
        "model m {\n  filter a == 1_000 and b == 1_0.5_0\n  take 10\n}\n\ntest m {\n  expect a == 1_000\n}\n",
    );
}

// -------------------------------------------------------------------------
// Programs drawn from the grammar

/// How many grammar samples the round trip covers: `sample_program(seed, 0)`
/// for every seed below this (`STRATA_FMT_SAMPLES` and
/// `STRATA_FMT_SAMPLE_START` widen or move the range).
const SAMPLES: u64 = 10_000;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// parse -> format -> parse -> format on grammar samples: the output parses
/// to the same AST, keeps every comment and formats to itself.
#[test]
fn grammar_samples_round_trip() {
    let start = env_u64("STRATA_FMT_SAMPLE_START", 0);
    let count = env_u64("STRATA_FMT_SAMPLES", SAMPLES);
    let mut failed = Vec::new();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for seed in start..start + count {
        let text = crate::grammar::sample_program(seed, 0);
        if let Err(e) = std::panic::catch_unwind(|| formatted(&text)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failed.push((seed, msg));
        }
    }
    std::panic::set_hook(hook);
    let seeds: Vec<u64> = failed.iter().map(|(s, _)| *s).collect();
    assert!(
        failed.is_empty(),
        "{} of {count} samples fail (seeds {seeds:?}); the first:\nseed {}: {}",
        failed.len(),
        failed[0].0,
        failed[0].1
    );
}

/// Every nesting form, as deep as the parser accepts: the output must
/// re-parse (the printer may not add levels the input did not have).
#[test]
fn nesting_at_the_parser_limit_reformats() {
    // (open, leaf, close) repeated inside `filter`, or a whole program.
    let forms: &[(&str, &str, &str)] = &[
        ("(", "x", ")"),
        ("not ", "x", ""),
        ("- ", "x", ""),
        ("-(", "x", ")"),
        ("not (a and ", "x", ")"),
        ("a - (", "x", ")"),
        ("a * (b + ", "x", ")"),
        ("(a + ", "x", ") * b"),
        ("-(a + ", "x", ")"),
        ("[", "x", "]"),
        ("f(", "x", ")"),
        ("f(k: ", "x", ")"),
        ("[a, ", "x", "]"),
        ("[", "x", " for v in vs]"),
        ("[v for v in ", "x", "]"),
        ("model m { filter ", "x", " }"),
        ("model m { derive { a = ", "x", " } }"),
        ("f(x) over (partition_by: [", "x", "])"),
        ("f(x) over (sort: [", "x", " desc])"),
        ("- -(", "x", ")"),
        ("not -(", "x", ")"),
    ];
    let programs = |n: usize| -> Vec<String> {
        let mut out: Vec<String> = forms
            .iter()
            .map(|(o, l, c)| format!("model m {{ filter {}{l}{} }}", o.repeat(n), c.repeat(n)))
            .collect();
        let ty = format!("{}int64{}", "array(".repeat(n), ")".repeat(n));
        out.push(format!("contract c {{ a: {ty} }}"));
        out.push(format!("domain d = {ty}"));
        let fty = format!("{}Int{}", "List<".repeat(n), ">".repeat(n));
        out.push(format!("fn f(x: {fty}) -> {fty} x"));
        out
    };
    let count = programs(0).len();
    for k in 0..count {
        let parses = |n: usize| {
            let src = &programs(n)[k];
            !parse(FileId(0), src).1.iter().any(|d| d.is_error())
        };
        assert!(parses(1), "{}", programs(1)[k]);
        // The deepest that parses (the limit is monotonic in n).
        let (mut lo, mut hi) = (1, 2 * crate::parser::MAX_DEPTH as usize);
        assert!(!parses(hi), "form {k} never hits the limit");
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if parses(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let src = &programs(lo)[k];
        let out = std::panic::catch_unwind(|| formatted(src));
        assert!(out.is_ok(), "form {k} at depth {lo}:\n{src}");
    }
}

/// Cases the grammar samples found (each was not idempotent before).
#[test]
fn comments_found_by_the_grammar_samples() {
    // Around an empty columns block (seed 7).
    check(
        "source s() {// a\n// b\ncolumns: {}, p: 1 }",
        "source s() { // a\n  // b\n  columns: {}\n  p: 1\n}\n",
    );
    // Before a model value inside an expression: before the entry (seed 54).
    check(
        "fn f(x: Int) -> List<Model> { 1 + // c\n model n { from s } }",
        "fn f(x: Int) -> List<Model> {\n  // c\n  1\n    + model n {\n      from s\n    }\n}\n",
    );
    check(
        "fn f(x: Int) -> List<Model> { 1 + model // c\n n { from s } }",
        "fn f(x: Int) -> List<Model> {\n  // c\n  1\n    + model n {\n      from s\n    }\n}\n",
    );
    // A CRLF line comment after `(` (seed 31).
    check(
        "fn f( // c\r\n x: Int) -> Int x\r\n",
        "fn f( // c\r\n  x: Int\r\n) -> Int {\r\n  x\r\n}\r\n",
    );
    // A lone CR ends the line of the comment after it (seed 326).
    check(
        "model m { from s\r// c\n\nfilter a }",
        "model m {\n  from s\n  // c\n\n  filter a\n}\n",
    );
    // A byte-order mark is not code before the first comment (seed 2246).
    check("\u{feff}// a\n\n// b", "// a\n\n// b\n");
    // No blank line at the start of a body (seed 128).
    check("model m {\n\n  // only\n}", "model m {\n  // only\n}\n");
    // A comment ending in blanks, skipped backwards (seed 83421).
    check(
        "pipeline p { sources: {\n# x \n s: from(a: 1) } }",
        "pipeline p {\n  sources: {\n    # x \n    s: from(a: 1)\n  }\n}\n",
    );
}

// -------------------------------------------------------------------------
// Quoted names

#[test]
fn quoted_names_everywhere_a_name_goes() {
    check(
        r#"import `my-lib`.`select`
domain `order` = int64
source `select`(ns: "raw", dataset: `my table`) { columns: { `date`: date nonnull, `unit price`: `order`, `x`: int64 } `from`: `a b` }
contract `group` { `date`: date, `it's "q"`: string }
model `from` -> contract `group` {
  from `select`
  join_left `order` on `select`.`date` == `order`.`date` expect many_to_one
  let `let` = `x` + 1
  derive { `sort` = `let` * 2 }
  select { `date` = `select`.`date`, `it's "q"` = f(`named arg`: `unit price`) }
}
model m2 { from `from` expand `tags` as `tag` union `model` }
model m3 { from s partition_by [`date`] freshness: daily freshness_column: `date` incremental cdc_column: `time stamp` }
pipeline `order` { models: [`from`], sources: { `select`: from(path: "x.csv") } }
test `from` { given `select`(`date`, `unit price`) { ("2024-01-01", 1) } expect `date` in `select`.`date`; expect rows(`date`) { ("2024-01-01") } }
fn `my fn`(`in`: int64) -> int64 { `in` + [`for` for `for` in [1]] }
"#,
        r#"import `my-lib`.`select`

domain order = int64

source `select`(ns: "raw", dataset: `my table`) {
  columns: {
    `date`: date nonnull
    `unit price`: order
    x: int64
  }
  `from`: `a b`
}

contract `group` {
  `date`: date
  `it's "q"`: string
}

model `from` -> contract `group` {
  from `select`
  join_left order on `select`.`date` == order.`date` expect many_to_one
  let `let` = x + 1
  derive { `sort` = `let` * 2 }
  select { `date` = `select`.`date`, `it's "q"` = f(`named arg`: `unit price`) }
}

model m2 {
  from `from`
  expand tags as tag
  union `model`
}

model m3 {
  from s
  partition_by [`date`] freshness: daily freshness_column: `date`
  incremental cdc_column: `time stamp`
}

pipeline order {
  models: [`from`]
  sources: {
    `select`: from(path: "x.csv")
  }
}

test `from` {
  given `select`(`date`, `unit price`) {
    ("2024-01-01", 1)
  }
  expect `date` in `select`.`date`
  expect rows(`date`) {
    ("2024-01-01")
  }
}

fn `my fn`(`in`: int64) -> int64 {
  `in` + [`for` for `for` in [1]]
}
"#,
    );
}

#[test]
fn a_quoted_name_is_never_a_contextual_word() {
    // Quoted, `columns` is a property's key, not the columns block; the
    // backticks stay.
    check(
        "source s() { `columns`: { }\n",
        "source s() {\n  `columns`: {\n}\n",
    );
    check(
        "source s() { columns: { `columns`: int64 } }\n",
        "source s() {\n  columns: {\n    columns: int64\n  }\n}\n",
    );
}

#[test]
fn rows_and_series_clauses() {
    check(
        "model statuses { rows(code: int64 nonnull,label: string) { (1,\"placed\") (20, null) } filter code > 1 }\nmodel days { series day from cast(\"2024-01-01\", \"date\") to current_date() step 1 months }\nmodel n { series n from 1 to 10 }\n",
        "model statuses {\n  rows(code: int64 nonnull, label: string) {\n    (1,  \"placed\")\n    (20, null)\n  }\n  filter code > 1\n}\n\nmodel days {\n  series day from cast(\"2024-01-01\", \"date\") to current_date() step 1 months\n}\n\nmodel n {\n  series n from 1 to 10\n}\n",
    );
}
