#![allow(clippy::unwrap_used)]

use super::*;
use crate::ast::*;

const F: FileId = FileId(0);

fn ok(text: &str) -> File {
    let (f, d) = parse(F, text);
    assert!(d.is_empty(), "unexpected diagnostics for {text:?}: {d:#?}");
    f
}

fn errs(text: &str) -> Vec<Diagnostic> {
    let (_, d) = parse(F, text);
    for x in &d {
        assert_eq!(x.code, "ParseError");
        assert!(x.is_error());
    }
    d
}

/// The single error of `text`.
fn err1(text: &str) -> Diagnostic {
    let d = errs(text);
    assert_eq!(d.len(), 1, "expected one error for {text:?}, got {d:#?}");
    d.into_iter().next().unwrap()
}

fn msg(text: &str) -> String {
    err1(text).message
}

/// Each diagnostic's code, the text it points at and the text its first
/// label points at.
fn code_at_and_first_label<'t>(
    text: &'t str,
    d: &[Diagnostic],
) -> Vec<(&'static str, &'t str, &'t str)> {
    d.iter()
        .map(|d| {
            (
                d.code,
                &text[d.span.range()],
                &text[d.labels[0].span.range()],
            )
        })
        .collect()
}

/// The text an error points at.
fn at<'t>(text: &'t str, d: &Diagnostic) -> &'t str {
    &text[d.span.range()]
}

fn decl(text: &str) -> Decl {
    let f = ok(text);
    assert_eq!(f.decls.len(), 1, "{f:#?}");
    f.decls.into_iter().next().unwrap()
}

fn model(text: &str) -> ModelDecl {
    match decl(text) {
        Decl::Model(m) => m,
        d => panic!("not a model: {d:?}"),
    }
}

/// The items of `model m { body }`.
fn items(body: &str) -> Vec<ItemKind> {
    model(&format!("model m {{ {body} }}"))
        .items
        .into_iter()
        .map(|i| i.kind)
        .collect()
}

fn item(body: &str) -> ItemKind {
    let mut v = items(body);
    assert_eq!(v.len(), 1, "{v:#?}");
    v.pop().unwrap()
}

fn e(text: &str) -> Expr {
    match parse_expr(F, text) {
        Ok(e) => e,
        Err(d) => panic!("{text:?}: {d:#?}"),
    }
}

/// `parse_expr` then a compact S-expression.
fn se(text: &str) -> String {
    show(&e(text))
}

fn show(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Float(_, t) => t.clone(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Template(parts) => {
            let p: Vec<String> = parts
                .iter()
                .map(|p| match p {
                    StrPart::Lit(s) => format!("{s:?}"),
                    StrPart::Var(v) => format!("${v}"),
                })
                .collect();
            format!("tmpl[{}]", p.join(" "))
        }
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Null => "null".into(),
        ExprKind::Column { qualifier, name } => match qualifier {
            Some(q) => format!("{}.{}", q.name, name.name),
            None => name.name.to_string(),
        },
        ExprKind::Call(c) => {
            let args: Vec<String> = c
                .args
                .iter()
                .map(|a| match &a.name {
                    Some(n) => format!("{}: {}", n.name, show(&a.value)),
                    None => show(&a.value),
                })
                .collect();
            let mut s = format!(
                "{}({}{})",
                c.name.name,
                if c.distinct { "distinct " } else { "" },
                args.join(", ")
            );
            if let Some(w) = &c.over {
                let pb: Vec<String> = w.partition_by.iter().map(show).collect();
                let so: Vec<String> = w
                    .sort
                    .iter()
                    .map(|k| {
                        format!(
                            "{}{}{}",
                            show(&k.expr),
                            if k.desc { " desc" } else { "" },
                            k.nulls.map_or(String::new(), |n| format!(" {}", n.word()))
                        )
                    })
                    .collect();
                s.push_str(&format!(
                    " over(pb[{}] sort[{}] {:?})",
                    pb.join(", "),
                    so.join(", "),
                    w.parts_written
                ));
                if let Some(f) = &w.frame {
                    s.push_str(&format!(" {:?}[{:?}, {:?}]", f.unit, f.start, f.end));
                }
            }
            s
        }
        ExprKind::Unary { op, operand } => match op {
            UnaryOp::Not => format!("(not {})", show(operand)),
            UnaryOp::Neg => format!("(neg {})", show(operand)),
        },
        ExprKind::Binary { op, lhs, rhs, .. } => {
            format!("({} {} {})", op.symbol(), show(lhs), show(rhs))
        }
        ExprKind::Star => "*".into(),
        ExprKind::List(items) => {
            let v: Vec<String> = items.iter().map(show).collect();
            format!("[{}]", v.join(", "))
        }
        ExprKind::Comprehension { element, var, iter } => {
            format!("[{} for {} in {}]", show(element), var.name, show(iter))
        }
        ExprKind::Model(m) => format!("model({}, {} items)", m.name.name, m.items.len()),
    }
}

/// Check that every expression node's span covers exactly text that
/// re-parses (cheap sanity check: spans are in bounds and nested).
fn check_spans(e: &Expr, text: &str) {
    let mut ok = true;
    e.walk(&mut |x| {
        if x.span.end as usize > text.len() || x.span.start > x.span.end {
            ok = false;
        }
        if !(e.span.start <= x.span.start && x.span.end <= e.span.end) {
            ok = false;
        }
    });
    assert!(ok, "bad spans in {text:?}");
}

// ----- expressions --------------------------------------------------------

#[test]
fn precedence_and_associativity() {
    assert_eq!(
        se("a or b and c == d + e * f"),
        "(or a (and b (== c (+ d (* e f)))))"
    );
    assert_eq!(se("a * b + c"), "(+ (* a b) c)");
    assert_eq!(se("a - b - c"), "(- (- a b) c)");
    assert_eq!(se("a / b % c * d"), "(* (% (/ a b) c) d)");
    assert_eq!(se("a < b < c"), "(< (< a b) c)");
    assert_eq!(se("a or b or c"), "(or (or a b) c)");
    assert_eq!(se("a || b + c"), "(+ (|| a b) c)");
    assert_eq!(se("x in y and z != 1"), "(and (in x y) (!= z 1))");
    assert_eq!(
        se("a <= b and c >= d and e > f and g < h"),
        "(and (and (and (<= a b) (>= c d)) (> e f)) (< g h))"
    );
    // Prefix operators bind tighter than every binary operator.
    assert_eq!(se("not x > 1"), "(> (not x) 1)");
    assert_eq!(se("-a * b"), "(* (neg a) b)");
    assert_eq!(se("not not x"), "(not (not x))");
    assert_eq!(se("- -1"), "(neg (neg 1))");
    assert_eq!(se("not (x > 1)"), "(not (> x 1))");
    assert_eq!(se("(a + b) * c"), "(* (+ a b) c)");
}

#[test]
fn primaries() {
    assert_eq!(se("1_000"), "1000");
    assert_eq!(se("1.50"), "1.50");
    assert_eq!(se(".5"), ".5");
    assert_eq!(se(r#""a\"b""#), r#""a\"b""#);
    assert_eq!(se(r#""m_${c}!""#), r#"tmpl["m_" $c "!"]"#);
    assert_eq!(se("true"), "true");
    assert_eq!(se("false"), "false");
    assert_eq!(se("null"), "null");
    assert_eq!(se("orders.amount"), "orders.amount");
    assert_eq!(se("amount"), "amount");
    assert_eq!(se("país"), "país");
    assert_eq!(se("many_to_one + one_to_one"), "(+ many_to_one one_to_one)");
    assert_eq!(se("count(*)"), "count(*)");
    assert_eq!(se("count()"), "count()");
    assert_eq!(se("count(distinct x)"), "count(distinct x)");
    assert_eq!(se("count(distinct)"), "count(distinct )");
    assert_eq!(
        se("coalesce(a.b, if(x > 1, \"y\", null), 0)"),
        "coalesce(a.b, if((> x 1), \"y\", null), 0)"
    );
    assert_eq!(se("date_add(d, days: 7)"), "date_add(d, days: 7)");
    assert_eq!(se("cast(x, \"int64\")"), "cast(x, \"int64\")");
    // Function names are plain identifiers.
    assert_eq!(se("if + count"), "(+ if count)");
    match e("f(x)").kind {
        ExprKind::Call(c) => assert!(c.over.is_none() && !c.distinct),
        k => panic!("{k:?}"),
    }
}

#[test]
fn unit_slot_rewrite() {
    assert_eq!(se("date_trunc(d, month)"), "date_trunc(d, \"month\")");
    assert_eq!(
        se("date_trunc(month, month)"),
        "date_trunc(month, \"month\")"
    );
    assert_eq!(se("date_trunc(d, t.month)"), "date_trunc(d, t.month)");
    assert_eq!(se("date_diff(a, b, day)"), "date_diff(a, b, \"day\")");
    assert_eq!(se("date_diff(a, weeks, t.b)"), "date_diff(a, weeks, t.b)");
    assert_eq!(
        se("date_diff(a, b, unit: day)"),
        "date_diff(a, b, unit: day)"
    );
    assert_eq!(se("other(a, b, day)"), "other(a, b, day)");
    // The rewritten literal keeps the identifier's span.
    let text = "date_trunc(d, month)";
    let ExprKind::Call(c) = e(text).kind else {
        panic!()
    };
    assert_eq!(&text[c.args[1].value.span.range()], "month");
}

#[test]
fn windows() {
    assert_eq!(
        se("row_number() over (partition_by: [region], sort: [d desc, e])"),
        "row_number() over(pb[region] sort[d desc, e] [true, false])"
    );
    assert_eq!(
        se("rank() over (sort: [a], partition_by: [b, c])"),
        "rank() over(pb[b, c] sort[a] [false, true])"
    );
    assert_eq!(
        se("rank() over (sort: [a], sort: [b desc])"),
        "rank() over(pb[] sort[a, b desc] [false, false])"
    );
    assert_eq!(se("rank() over ()"), "rank() over(pb[] sort[] [])");
    assert_eq!(
        se("rank() over (partition_by: [a], sort: [b], sort: [c])"),
        "rank() over(pb[a] sort[b, c] [true, false, false])"
    );
    assert_eq!(
        se("sum(x) over (sort: [a desc nulls_first, b nulls_last], rows: [unbounded, -1])"),
        "sum(x) over(pb[] sort[a desc nulls_first, b nulls_last] [false]) Rows[Unbounded, Offset(-1)]"
    );
    assert_eq!(
        se("sum(x) over (range: [-2, unbounded], partition_by: [k])"),
        "sum(x) over(pb[k] sort[] [true]) Range[Offset(-2), Unbounded]"
    );
    // An ordered aggregate's sort: [..] is the last argument.
    let ExprKind::Call(c) = e("string_agg(s, \",\", sort: [k desc, s nulls_first])").kind else {
        panic!("a call")
    };
    let keys = c.sort.as_ref().map(|s| &s.keys[..]).unwrap_or_default();
    assert_eq!(c.args.len(), 2);
    assert_eq!(keys.len(), 2);
    assert!(keys[0].desc && keys[1].nulls == Some(Nulls::First));
    assert!(
        crate::parser::parse_expr(crate::FileId(0), "string_agg(s, sort: [k], \",\")").is_err()
    );
    // `rows`, `range`, `unbounded` and the placements stay names elsewhere.
    assert_eq!(
        se("rows + range - unbounded"),
        "(- (+ rows range) unbounded)"
    );
    let text = "sum(x) over (partition_by: [])";
    let ExprKind::Call(c) = e(text).kind else {
        panic!()
    };
    let w = c.over.unwrap();
    assert_eq!(&text[w.span.range()], "over (partition_by: [])");
}

#[test]
fn lists_comprehensions_model_values() {
    assert_eq!(se("[]"), "[]");
    assert_eq!(se("[a, \"b\", 1,]"), "[a, \"b\", 1]");
    assert_eq!(se("[c for c in xs]"), "[c for c in xs]");
    assert_eq!(
        se("[f(c) for c in countries()]"),
        "[f(c) for c in countries()]"
    );
    let text = r#"[ model "m_${c}" -> contract C { owner: "x" from t join_left u on t.a == u.a expect many_to_one filter t.country == c where true let z = 1 derive { y = z } take 3 } for c in xs ]"#;
    let ex = e(text);
    let ExprKind::Comprehension { element, .. } = &ex.kind else {
        panic!("{ex:?}")
    };
    let ExprKind::Model(m) = &element.kind else {
        panic!()
    };
    assert_eq!(m.name.name, "m_c");
    assert!(m.name_quoted);
    assert_eq!(&text[m.name.span.range()], "\"m_${c}\"");
    assert_eq!(
        crate::lexer::string_literal_parts(&text[m.name.span.range()]),
        Some(vec![StrPart::Lit("m_".into()), StrPart::Var("c".into())])
    );
    assert_eq!(m.contract.as_ref().unwrap().name, "C");
    assert_eq!(m.items.len(), 8);
    assert!(text[m.span.range()].starts_with("model \"m_${c}\""));
    assert!(text[m.span.range()].ends_with("take 3 }"));
    check_spans(&ex, text);
}

#[test]
fn expression_spans() {
    let text = "coalesce(a.b, 1) + -c * (d - 2)";
    let ex = e(text);
    check_spans(&ex, text);
    assert_eq!(&text[ex.span.range()], text);
    let ExprKind::Binary {
        op_span, lhs, rhs, ..
    } = &ex.kind
    else {
        panic!()
    };
    assert_eq!(&text[op_span.range()], "+");
    assert_eq!(&text[lhs.span.range()], "coalesce(a.b, 1)");
    assert_eq!(&text[rhs.span.range()], "-c * (d - 2)");
    let ExprKind::Binary {
        lhs: neg,
        rhs: paren,
        op_span,
        ..
    } = &rhs.kind
    else {
        panic!()
    };
    assert_eq!(&text[op_span.range()], "*");
    assert_eq!(&text[neg.span.range()], "-c");
    assert_eq!(&text[paren.span.range()], "(d - 2)");
    let ExprKind::Call(c) = &lhs.kind else {
        panic!()
    };
    assert_eq!(&text[c.name.span.range()], "coalesce");
    assert_eq!(&text[c.args[0].value.span.range()], "a.b");
    let ExprKind::Column { qualifier, name } = &c.args[0].value.kind else {
        panic!()
    };
    assert_eq!(&text[qualifier.as_ref().unwrap().span.range()], "a");
    assert_eq!(&text[name.span.range()], "b");
}

#[test]
fn expression_errors() {
    let bad = |t: &str| parse_expr(F, t).unwrap_err();
    let d = bad("f(a,)");
    assert_eq!(d.message, "expected an expression, found ')'");
    assert_eq!(d.span.range(), 4..5);
    let d = bad("cast(x, int64)");
    assert_eq!(
        d.message,
        "expected an expression, found type keyword 'int64'"
    );
    assert!(d.help.unwrap().contains("cast(x, \"int64\")"));
    assert_eq!(
        bad("a +").message,
        "expected an expression, found end of file"
    );
    assert_eq!(
        bad("a is null").message,
        "expected the end of the expression, found keyword 'is'"
    );
    assert_eq!(
        bad("a.by").message,
        "expected a column name after 'a.', found keyword 'by'"
    );
    assert_eq!(
        bad("f(a b)").message,
        "expected ')' or ',' in the arguments of f(..), found identifier 'b'"
    );
    assert_eq!(
        bad("rank() over (order: [a])").message,
        "expected 'partition_by:', 'sort:', 'rows:' or 'range:' in over(..), found identifier 'order'"
    );
    assert_eq!(
        bad("sum(x) over (rows: [-1 0])").message,
        "expected ',' between the two bounds of rows: [..], found integer 0"
    );
    assert_eq!(
        bad("sum(x) over (rows: [x, 0])").message,
        "expected 'unbounded' or a whole number of rows in the frame, found identifier 'x'"
    );
    assert_eq!(
        bad("sum(x) over (range: [-1.5, 0])").message,
        "expected 'unbounded' or a whole number of sort-key units in the frame, found number 1.5"
    );
    let d = bad("rank() over (sort: [a asc])");
    assert_eq!(
        d.message,
        "expected ',' or ']' in sort: [..], found keyword 'asc'"
    );
    assert!(d.help.is_some());
    assert_eq!(
        bad("rank() over partition_by: [a]").message,
        "expected '(' after 'over', found keyword 'partition_by'"
    );
    assert_eq!(bad("a @ b").message, "unexpected character '@'");
    assert_eq!(
        bad("[a for 1 in b]").message,
        "expected a variable name after 'for', found integer 1"
    );
}

// ----- declarations -------------------------------------------------------

#[test]
fn import_decl() {
    let text = "import a.b.c";
    let Decl::Import(i) = decl(text) else {
        panic!()
    };
    let p: Vec<_> = i.path.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(p, ["a", "b", "c"]);
    assert_eq!(&text[i.span.range()], text);
    assert_eq!(
        msg("import a.source"),
        "expected a module name after '.', found keyword 'source'"
    );
}

#[test]
fn source_decl() {
    let text = r#"source shipments(ns: "logistics", dataset: shipments) {
  columns: {
    shipment_id: int64 nonnull primary_key,
    fee:         money(EUR) nonnull;
    is_void:     bool
    tags: array(string), amount: decimal(10 2),
  },
  owner: "ops"
  freshness: 1
  weird: by
  "quoted key": "v${x}"
}"#;
    let Decl::Source(s) = decl(text) else {
        panic!()
    };
    assert_eq!(s.name.name, "shipments");
    assert_eq!(&text[s.span.range()], text);
    assert_eq!(s.args.len(), 2);
    assert_eq!(s.args[0].key.name, "ns");
    assert_eq!(s.args[0].value, "logistics");
    assert!(s.args[0].quoted);
    assert_eq!(&text[s.args[0].value_span.range()], "\"logistics\"");
    assert_eq!(s.args[1].value, "shipments");
    assert!(!s.args[1].quoted);
    let cols = s.columns.unwrap();
    let names: Vec<_> = cols.iter().map(|c| c.name.name.as_str()).collect();
    assert_eq!(names, ["shipment_id", "fee", "is_void", "tags", "amount"]);
    assert_eq!(cols[0].ty.kind, TypeRefKind::Int64);
    assert!(matches!(
        cols[0].annotations.as_slice(),
        [Annotation::Nonnull(_), Annotation::PrimaryKey(_)]
    ));
    assert_eq!(
        &text[cols[0].span.range()],
        "shipment_id: int64 nonnull primary_key"
    );
    assert_eq!(cols[1].ty.kind, TypeRefKind::Money(Some("EUR".into())));
    assert_eq!(&text[cols[1].ty.span.range()], "money(EUR)");
    assert_eq!(
        cols[3].ty.kind,
        TypeRefKind::Array(Box::new(TypeRef {
            kind: TypeRefKind::String,
            span: Span::new(
                F,
                text.find("string)").unwrap(),
                text.find("string)").unwrap() + 6
            )
        }))
    );
    assert_eq!(cols[4].ty.kind, TypeRefKind::Decimal(10, 2));
    let props: Vec<_> = s
        .props
        .iter()
        .map(|p| (p.key.name.as_str(), p.value.as_str(), p.quoted))
        .collect();
    assert_eq!(
        props,
        [
            ("owner", "ops", true),
            ("freshness", "1", false),
            ("weird", "by", false),
            ("quoted key", "vx", true)
        ]
    );
    // No body, empty arguments.
    let Decl::Source(s) = decl("source s()") else {
        panic!()
    };
    assert!(s.columns.is_none() && s.args.is_empty() && s.props.is_empty());
    // `columns` not followed by `: {` is a plain property.
    let Decl::Source(s) = decl("source s() { columns: x }") else {
        panic!()
    };
    assert!(s.columns.is_none());
    assert_eq!(s.props[0].key.name, "columns");
}

#[test]
fn source_errors() {
    let d = err1("source s { columns: { a: int64 } }");
    assert_eq!(d.message, "expected '(' after source name 's', found '{'");
    assert!(d.help.is_some());
    assert_eq!(
        msg("source s(ns: 1)"),
        "expected a string or an identifier as the value of 'ns', found integer 1"
    );
    assert_eq!(
        msg("source s(ns: \"a\",)"),
        "expected an argument name, found ')'"
    );
    assert_eq!(
        msg("source s() { freshness: >= 1d }"),
        "expected ':' after source property '1', found identifier 'd'"
    );
    // P9: a type keyword as a column name.
    let text =
        r#"source events(ns: "l", dataset: "e") { columns: { id: int64 nonnull, date: date } }"#;
    let d = err1(text);
    assert_eq!(
        d.message,
        "expected a column name, found type keyword 'date'"
    );
    assert_eq!(at(text, &d), "date");
    assert_eq!(d.span.start, 69);
    assert_eq!(
        d.help.as_deref(),
        Some("'date' is a reserved word; to use it as a name, quote it: `date`")
    );
    assert_eq!(
        msg("source s() { columns: { a: int64 "),
        "expected a column name or '}', found end of file"
    );
}

#[test]
fn contract_and_types() {
    let text = r#"contract LiveShipment {
  shipment_id : int64 nonnull primary_key
  region      : string nonnull enum {NORTH, "a b", 1, by} unique protected
  fee         : money(EUR) nonnull classification: pii;
  n: money classification: "secret", d: Dom
  t: array(array(timestamp)) x: float64 y: date z: uuid j: json b: bool
  w: float32 at: timestamptz
}"#;
    let Decl::Contract(c) = decl(text) else {
        panic!()
    };
    assert_eq!(c.name.name, "LiveShipment");
    assert_eq!(&text[c.span.range()], text);
    let f = &c.fields;
    assert_eq!(f.len(), 13);
    match &f[1].annotations[..] {
        [Annotation::Nonnull(_), Annotation::Enum(vals, sp), Annotation::Unique(_), Annotation::Protected(_)] =>
        {
            let v: Vec<_> = vals.iter().map(|(v, _)| v.as_str()).collect();
            assert_eq!(v, ["NORTH", "a b", "1", "by"]);
            assert_eq!(&text[sp.range()], r#"enum {NORTH, "a b", 1, by}"#);
            assert_eq!(&text[vals[1].1.range()], "\"a b\"");
        }
        a => panic!("{a:?}"),
    }
    match &f[2].annotations[..] {
        [Annotation::Nonnull(_), Annotation::Classification(c, sp)] => {
            assert_eq!(c, "pii");
            assert_eq!(&text[sp.range()], "classification: pii");
        }
        a => panic!("{a:?}"),
    }
    assert_eq!(f[3].ty.kind, TypeRefKind::Money(None));
    assert!(matches!(&f[3].annotations[..], [Annotation::Classification(c, _)] if c == "secret"));
    assert_eq!(f[4].ty.kind, TypeRefKind::Named("Dom".into()));
    let TypeRefKind::Array(inner) = &f[5].ty.kind else {
        panic!()
    };
    assert!(matches!(&inner.kind, TypeRefKind::Array(t) if t.kind == TypeRefKind::Timestamp));
    assert_eq!(&text[f[5].ty.span.range()], "array(array(timestamp))");
    let kinds: Vec<_> = f[6..].iter().map(|x| x.ty.kind.clone()).collect();
    assert_eq!(
        kinds,
        [
            TypeRefKind::Float64,
            TypeRefKind::Date,
            TypeRefKind::Uuid,
            TypeRefKind::Json,
            TypeRefKind::Bool,
            TypeRefKind::Float32,
            TypeRefKind::TimestampTz
        ]
    );
    // decimal: both numbers, comma optional.
    let Decl::Domain(d) = decl("domain amount = decimal(18, 4)") else {
        panic!()
    };
    assert_eq!(d.name.name, "amount");
    assert_eq!(d.ty.kind, TypeRefKind::Decimal(18, 4));
    assert_eq!(d.span.range(), 0..30);
}

#[test]
fn type_errors() {
    assert_eq!(msg("domain d = by"), "expected a type, found keyword 'by'");
    assert_eq!(
        msg("domain d = decimal(10)"),
        "expected an integer (decimal scale), found ')'"
    );
    let d = err1("domain d = decimal(4294967296, 2)");
    assert_eq!(
        d.message,
        "decimal precision 4294967296 is out of range (0 to 4294967295)"
    );
    assert_eq!(d.span.range(), 19..29);
    assert_eq!(
        msg("domain d = decimal(10, 99999999999999999999)"),
        "integer literal too large: '99999999999999999999' does not fit in int64 (at most 9223372036854775807)"
    );
    let d = err1("domain d = money(\"EUR\")");
    assert_eq!(
        d.message,
        "expected a currency code such as EUR, found string \"EUR\""
    );
    assert!(d.help.is_some());
    let d = err1("domain d = array<string>");
    assert_eq!(d.message, "expected '(' after 'array', found '<'");
    assert!(d.help.is_some());
    assert_eq!(
        msg("contract C { a: int64 enum { x, y "),
        "expected '}' to close the enum values, found end of file"
    );
    assert_eq!(
        msg("contract C { a int64 }"),
        "expected ':' after column name 'a', found type keyword 'int64'"
    );
    assert_eq!(
        msg("contract C { a: int64 default: 1 }"),
        "expected a type, found integer 1"
    );
}

#[test]
fn model_header() {
    let text = "model live -> contract Live { owner: \"ops\" from s }";
    let m = model(text);
    assert_eq!(m.name.name, "live");
    assert!(!m.name_quoted);
    assert_eq!(m.contract.as_ref().unwrap().name, "Live");
    assert_eq!(&text[m.span.range()], text);
    let m = model("model \"m_${c}\" { }");
    assert_eq!(m.name.name, "m_c");
    assert!(m.name_quoted);
    assert_eq!(m.name.span.range(), 6..14);
    assert_eq!(
        msg("model 1 {}"),
        "expected a model name (an identifier or a string), found integer 1"
    );
    assert_eq!(
        msg("model m -> C {}"),
        "expected keyword 'contract' after '->', found identifier 'C'"
    );
    assert_eq!(
        msg("model m"),
        "expected '{' to open the body of model 'm', found end of file"
    );
}

#[test]
fn model_clauses() {
    let v = items(
        r#"owner: "ops" reason: "r" description: "d" label: "l" staleness_ok: "yes"
        from shipments
        join_left carriers on shipments.cid == carriers.cid expect many_to_one
        join_inner c2 on a == b expect one_to_one
        join_anti c3 on a == b
        join_semi c4 on a == b
        filter x > 1
        where y
        let z = x + 1
        select { a = a, b = upper(b), }
        derive { }
        aggregate { n = count() }
        sort { a desc nulls_first, b asc, c nulls_last }
        take 10
        take 5 .. 10
        take 5..10
        expand tags as tag
        expand tags
        union u1 union all u2 intersect u3 except u4
        dedup
        dedup by a, lower(b)"#,
    );
    let mut it = v.into_iter();
    let mut next = || it.next().unwrap();
    for k in ["owner", "reason", "description", "label", "staleness_ok"] {
        match next() {
            ItemKind::Attr(kv) => {
                assert_eq!(kv.key.name, k);
                assert!(kv.quoted);
            }
            x => panic!("{x:?}"),
        }
    }
    assert!(matches!(next(), ItemKind::From(i) if i.name == "shipments"));
    match next() {
        ItemKind::Join(j) => {
            assert_eq!(j.kind, JoinKind::Left);
            assert_eq!(j.input.name, "carriers");
            assert_eq!(
                show(j.on.as_ref().unwrap()),
                "(== shipments.cid carriers.cid)"
            );
            assert_eq!(j.expect.unwrap().cardinality, Cardinality::ManyToOne);
        }
        x => panic!("{x:?}"),
    }
    match next() {
        ItemKind::Join(j) => {
            assert_eq!(j.kind, JoinKind::Inner);
            assert_eq!(j.expect.unwrap().cardinality, Cardinality::OneToOne);
        }
        x => panic!("{x:?}"),
    }
    assert!(matches!(next(), ItemKind::Join(j) if j.kind == JoinKind::Anti && j.expect.is_none()));
    assert!(matches!(next(), ItemKind::Join(j) if j.kind == JoinKind::Semi));
    assert!(
        matches!(next(), ItemKind::Filter { where_kw: false, expr } if show(&expr) == "(> x 1)")
    );
    assert!(matches!(next(), ItemKind::Filter { where_kw: true, .. }));
    assert!(
        matches!(next(), ItemKind::Let { name, expr } if name.name == "z" && show(&expr) == "(+ x 1)")
    );
    match next() {
        ItemKind::Assign(AssignKind::Select, a) => {
            let v: Vec<_> = a
                .iter()
                .map(|a| format!("{}={}", a.name.name, show(&a.expr)))
                .collect();
            assert_eq!(v, ["a=a", "b=upper(b)"]);
        }
        x => panic!("{x:?}"),
    }
    assert!(matches!(next(), ItemKind::Assign(AssignKind::Derive, a) if a.is_empty()));
    assert!(matches!(next(), ItemKind::Assign(AssignKind::Aggregate, a) if a.len() == 1));
    match next() {
        ItemKind::Sort(keys) => {
            let v: Vec<_> = keys
                .iter()
                .map(|k| (show(&k.expr), k.desc, k.asc_written, k.nulls))
                .collect();
            assert_eq!(
                v,
                [
                    ("a".to_string(), true, false, Some(Nulls::First)),
                    ("b".to_string(), false, true, None),
                    ("c".to_string(), false, false, Some(Nulls::Last))
                ]
            );
        }
        x => panic!("{x:?}"),
    }
    assert_eq!(
        next(),
        ItemKind::Take {
            start: 10,
            end: None
        }
    );
    assert_eq!(
        next(),
        ItemKind::Take {
            start: 5,
            end: Some(10)
        }
    );
    assert_eq!(
        next(),
        ItemKind::Take {
            start: 5,
            end: Some(10)
        }
    );
    for t in ["take 5.. 10", "take 5 ..10", "take 5. .10"] {
        assert_eq!(
            item(t),
            ItemKind::Take {
                start: 5,
                end: Some(10)
            },
            "{t}"
        );
    }
    assert!(
        matches!(next(), ItemKind::Expand { column, alias: Some(a) } if column.name == "tags" && a.name == "tag")
    );
    assert!(matches!(next(), ItemKind::Expand { alias: None, .. }));
    for (kind, name) in [
        (SetOpKind::Union, "u1"),
        (SetOpKind::UnionAll, "u2"),
        (SetOpKind::Intersect, "u3"),
        (SetOpKind::Except, "u4"),
    ] {
        match next() {
            ItemKind::SetOp { kind: k, input } => {
                assert_eq!(k, kind);
                assert_eq!(input.name, name);
            }
            x => panic!("{x:?}"),
        }
    }
    assert_eq!(next(), ItemKind::Dedup { by: None });
    match next() {
        ItemKind::Dedup { by: Some(k) } => {
            assert_eq!(k.iter().map(show).collect::<Vec<_>>(), ["a", "lower(b)"]);
        }
        x => panic!("{x:?}"),
    }
}

#[test]
fn group_clause() {
    let text = "group { carriers.name, shipped_on, } ( aggregate { n = count(), total = sum(fee) } filter n > 1 where true sort { n desc } take 3 )";
    let ItemKind::Group(g) = item(text) else {
        panic!()
    };
    assert_eq!(
        g.keys.iter().map(show).collect::<Vec<_>>(),
        ["carriers.name", "shipped_on"]
    );
    let kinds: Vec<_> = g
        .body
        .iter()
        .map(|i| match &i.kind {
            ItemKind::Assign(AssignKind::Aggregate, a) => format!("agg{}", a.len()),
            ItemKind::Filter { where_kw, .. } => format!("filter{where_kw}"),
            ItemKind::Sort(k) => format!("sort{}", k.len()),
            ItemKind::Take { start, .. } => format!("take{start}"),
            x => panic!("{x:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        ["agg2", "filterfalse", "filtertrue", "sort1", "take3"]
    );
    let src = format!("model m {{ {text} }}");
    let m = model(&src);
    assert_eq!(&src[m.items[0].span.range()], text);
    let ItemKind::Group(g) = &m.items[0].kind else {
        panic!()
    };
    assert_eq!(&src[g.body[1].span.range()], "filter n > 1");
    assert_eq!(
        item("group { } ( )"),
        ItemKind::Group(GroupClause {
            keys: vec![],
            body: vec![]
        })
    );
}

#[test]
fn group_errors() {
    assert_eq!(
        msg("model m { group { k } ( let z = 1 ) }"),
        "unexpected keyword 'let' in group body (only filter, where, aggregate, sort and take are allowed)"
    );
    assert_eq!(
        msg("model m { group { k } ( n = 1 ) }"),
        "expected a group body clause (filter, where, aggregate, sort, take) or ')', found identifier 'n'"
    );
    assert_eq!(
        msg("model m { group { k } aggregate { n = count() } }"),
        "expected '(' after the group keys (group { keys } ( body )), found keyword 'aggregate'"
    );
    assert_eq!(
        msg("model m { group ( k ) }"),
        "expected '{' after 'group' (group { keys } ( body )), found '('"
    );
}

#[test]
fn partition_freshness_incremental() {
    let v = items(
        r#"partition_by [date_trunc(ts, day), region] freshness: 1h, 24h freshness_column: ts
        freshness daily, "now() - interval 1 day", 7, incremental freshness_column: ts incremental merge_strategy: upsert merge_keys: [id, k] cdc_column: updated_at
        incremental
        incremental cdc_column: u
        freshness 1 owner: "x"
        partition_by []"#,
    );
    match &v[0] {
        ItemKind::PartitionBy {
            exprs,
            freshness: Some(f),
        } => {
            assert_eq!(
                exprs.iter().map(show).collect::<Vec<_>>(),
                ["date_trunc(ts, \"day\")", "region"]
            );
            let vals: Vec<_> = f.values.iter().map(|(v, _)| v.as_str()).collect();
            assert_eq!(vals, ["1h", "24h"]);
            assert_eq!(f.column.as_ref().unwrap().name, "ts");
            assert!(f.incremental.is_none());
        }
        x => panic!("{x:?}"),
    }
    match &v[1] {
        ItemKind::Freshness(f) => {
            let vals: Vec<_> = f.values.iter().map(|(v, _)| v.as_str()).collect();
            assert_eq!(
                vals,
                ["daily", "now() - interval 1 day", "7", "incremental"]
            );
            assert_eq!(f.column.as_ref().unwrap().name, "ts");
            let inc = f.incremental.as_ref().unwrap();
            assert_eq!(inc.strategy.as_ref().unwrap().name, "upsert");
            assert_eq!(
                inc.merge_keys
                    .as_ref()
                    .unwrap()
                    .iter()
                    .map(show)
                    .collect::<Vec<_>>(),
                ["id", "k"]
            );
            assert_eq!(inc.cdc_column.as_ref().unwrap().name, "updated_at");
        }
        x => panic!("{x:?}"),
    }
    assert!(
        matches!(&v[2], ItemKind::Incremental(i) if i.strategy.is_none() && i.merge_keys.is_none() && i.cdc_column.is_none())
    );
    assert!(
        matches!(&v[3], ItemKind::Incremental(i) if i.cdc_column.as_ref().unwrap().name == "u")
    );
    // `freshness 1` before an attribute keeps the attribute.
    assert!(matches!(&v[4], ItemKind::Freshness(f) if f.values[0].0 == "1"));
    assert!(matches!(&v[5], ItemKind::Attr(kv) if kv.key.name == "owner"));
    assert!(matches!(&v[6], ItemKind::PartitionBy { exprs, freshness: None } if exprs.is_empty()));
    // The value span of `1h` covers both tokens.
    let text = "model m { freshness 1 h }";
    let m = model(text);
    let ItemKind::Freshness(f) = &m.items[0].kind else {
        panic!()
    };
    assert_eq!(f.values[0].0, "1h");
    assert_eq!(&text[f.values[0].1.range()], "1 h");
    assert_eq!(&text[m.items[0].span.range()], "freshness 1 h");
    // The sub-keys of incremental have a fixed order.
    assert_eq!(
        msg("model m { incremental cdc_column: ts merge_strategy: upsert }"),
        "unexpected keyword 'merge_strategy' in model body: expected a clause or '}'"
    );
    assert_eq!(
        msg("model m { freshness }"),
        "expected a freshness value (such as 1h, daily or a string), found '}'"
    );
}

#[test]
fn model_body_errors() {
    let text = "model m {\n  from t\n  filter a = 1\n}";
    let d = err1(text);
    assert_eq!(
        d.message,
        "unexpected '=' in model body: expected a clause or '}'"
    );
    assert_eq!(at(text, &d), "=");
    assert!(d.help.unwrap().contains("=="));
    assert_eq!(
        msg("model m { from t"),
        "unexpected end of file in model body: expected a clause or '}'"
    );
    assert_eq!(
        msg("model m { from t; }"),
        "unexpected ';' in model body: expected a clause or '}'"
    );
    assert_eq!(
        msg("model m { filter a is null }"),
        "unexpected keyword 'is' in model body: expected a clause or '}'"
    );
    assert_eq!(
        msg("model m { owner: ops }"),
        "expected a string value for model attribute 'owner', found identifier 'ops'"
    );
    assert_eq!(
        msg("model m { owner \"x\" }"),
        "unexpected identifier 'owner' in model body: expected a clause or '}'"
    );
    assert_eq!(
        msg("model m { from schema.table }"),
        "unexpected '.' in model body: expected a clause or '}'"
    );
    assert_eq!(
        msg("model m { from date }"),
        "expected an input name after 'from', found type keyword 'date'"
    );
    assert_eq!(
        msg("model m { select { a: b } }"),
        "expected '=' after output column 'a', found ':'"
    );
    assert_eq!(
        msg("model m { select { a = 1 b = 2 } }"),
        "expected '}' or ',' in the select block, found identifier 'b'"
    );
    assert_eq!(
        msg("model m { select { by = 1 } }"),
        "expected an output column name in the select block, found keyword 'by'"
    );
    assert_eq!(
        msg("model m { let x == 1 }"),
        "expected '=' after 'let x', found '=='"
    );
    assert_eq!(
        msg("model m { join_left c a == b }"),
        "expected keyword 'on' after join input 'c', found identifier 'a'"
    );
    assert_eq!(
        msg("model m { take -1 }"),
        "expected an integer after 'take', found '-'"
    );
    assert_eq!(
        msg("model m { take 5 . 10 }"),
        "expected '.' (a range is written 'take A..B'), found integer 10"
    );
    assert_eq!(
        msg("model m { take 1.5 }"),
        "expected an integer after 'take', found number 1.5"
    );
    let d = err1("model m { intersect all x }");
    assert_eq!(
        d.message,
        "expected a model name after 'intersect', found keyword 'all'"
    );
    assert_eq!(d.help.as_deref(), Some("'intersect all' is not supported"));
    assert_eq!(
        msg("model m { sort { a desc b } }"),
        "expected '}' or ',' in the sort keys, found identifier 'b'"
    );
    assert_eq!(
        msg("model m { expand t as by }"),
        "expected a name after 'as', found keyword 'by'"
    );
    assert_eq!(
        msg("model m { from t expect many_to_one }"),
        "unexpected keyword 'expect' in model body: expected a clause or '}'"
    );
}

#[test]
fn fn_model_body_errors() {
    let d = err1("fn f() -> Model { model m { from t select { a = a } } }");
    assert_eq!(
        d.message,
        "unexpected keyword 'select' in fn model body (a model value allows only attributes, from, join_*, filter, where, let, derive and take)"
    );
    assert_eq!(d.span.range(), 35..41);
}

#[test]
fn join_expect() {
    let text = "model m { from o join_left c on o.id == c.id expect many_to_one filter x }";
    let m = model(text);
    let ItemKind::Join(j) = &m.items[1].kind else {
        panic!()
    };
    assert_eq!(&text[j.keyword_span.range()], "join_left");
    assert_eq!(
        &text[j.expect.as_ref().unwrap().span.range()],
        "expect many_to_one"
    );
    let on = j.on.as_ref().unwrap();
    assert_eq!(&text[on.span.range()], "o.id == c.id");
    assert_eq!(
        &text[m.items[1].span.range()],
        "join_left c on o.id == c.id expect many_to_one"
    );
    let ExprKind::Binary { op_span, .. } = &on.kind else {
        panic!()
    };
    assert_eq!(&text[op_span.range()], "==");
    // The cardinality words stay ordinary names elsewhere.
    let text = "source many_to_one() { columns: { one_to_one: int64 } }
model one_to_one { from many_to_one join_inner many_to_one on one_to_one == many_to_one.one_to_one expect one_to_one select { many_to_one = one_to_one } }
pipeline p { models: [one_to_one] }
test one_to_one { expect many_to_one == 1 }";
    assert_eq!(ok(text).decls.len(), 4);
}

#[test]
fn join_kinds_and_cross_without_condition() {
    for k in [
        "join_left",
        "join_inner",
        "join_right",
        "join_full",
        "join_anti",
        "join_semi",
    ] {
        let [_, ItemKind::Join(j)] = &items(&format!("from o {k} c on o.id == c.id"))[..] else {
            panic!("{k}")
        };
        assert_eq!(j.kind.keyword(), k);
        assert!(j.on.is_some(), "{k}");
    }
    let [_, ItemKind::Join(j), _] = &items("from o join_cross c expect many_to_one filter x")[..]
    else {
        panic!()
    };
    assert_eq!(
        (j.kind, j.on.is_none(), j.expect.is_some()),
        (JoinKind::Cross, true, true)
    );
    let text = "model m { from o join_cross c on o.id == c.id }";
    let d = err1(text);
    assert_eq!(at(text, &d), "on");
    assert!(d.message.contains("found keyword 'on'"), "{}", d.message);
    assert!(
        d.help.as_deref().unwrap_or("").contains("join_inner"),
        "{d:?}"
    );
    // `on` is still required on the other kinds.
    let text = "model m { from o join_full c filter x }";
    assert!(msg(text).contains("'on'"), "{}", msg(text));
}

#[test]
fn join_expect_errors() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        (
            "one_to_many",
            "identifier 'one_to_many'",
            Some("did you mean 'one_to_one' or 'many_to_one'?"),
        ),
        (
            "many_to_many",
            "identifier 'many_to_many'",
            Some("did you mean 'many_to_one'?"),
        ),
        (
            "many_to_on",
            "identifier 'many_to_on'",
            Some("did you mean 'many_to_one'?"),
        ),
        (
            "one_to_onee",
            "identifier 'one_to_onee'",
            Some("did you mean 'one_to_one'?"),
        ),
        ("banana", "identifier 'banana'", None),
        ("unique", "keyword 'unique'", None),
        ("\"many_to_one\"", "string \"many_to_one\"", None),
        ("}", "'}'", None),
    ];
    for (word, found, help) in cases {
        let text = format!("model m {{ from o join_left c on o.id == c.id expect {word} }}");
        let d = err1(&text);
        assert_eq!(
            d.message,
            format!(
                "expected join cardinality many_to_one or one_to_one after 'expect', found {found}"
            ),
            "{word}"
        );
        assert_eq!(at(&text, &d), *word);
        assert_eq!(d.help.as_deref(), *help, "{word}");
    }
    let d = err1("model m { from o join_left c on o.id == c.id expect one_to_many }");
    assert_eq!(d.notes.len(), 1);
    let d = err1("model m { from o join_left c on o.id == c.id expect }");
    assert_eq!(
        d.message,
        "expected join cardinality many_to_one or one_to_one after 'expect', found '}'"
    );
}

#[test]
fn pipeline_decl() {
    let text = r#"pipeline nightly {
  models: [live_shipments, by_country(countries()), m2,],
  env: prod
  sources: {
    orders: from(ns: "x", dataset: "orders_dev"),
    customers
    events: from(dataset: events_v2 limit: 10)
  }
}"#;
    let Decl::Pipeline(p) = decl(text) else {
        panic!()
    };
    assert_eq!(p.name.name, "nightly");
    assert_eq!(p.env.as_ref().unwrap().name, "prod");
    assert_eq!(
        p.models.iter().map(show).collect::<Vec<_>>(),
        ["live_shipments", "by_country(countries())", "m2"]
    );
    assert_eq!(p.sources.len(), 3);
    let o = &p.sources[0];
    assert_eq!(o.source.name, "orders");
    assert_eq!(o.func.as_ref().unwrap().name, "from");
    let args: Vec<_> = o
        .args
        .iter()
        .map(|a| (a.key.name.as_str(), a.value.as_str(), a.quoted))
        .collect();
    assert_eq!(args, [("ns", "x", true), ("dataset", "orders_dev", true)]);
    assert_eq!(
        &text[o.span.range()],
        r#"orders: from(ns: "x", dataset: "orders_dev")"#
    );
    assert!(p.sources[1].func.is_none() && p.sources[1].args.is_empty());
    let args: Vec<_> = p.sources[2]
        .args
        .iter()
        .map(|a| (a.value.as_str(), a.quoted))
        .collect();
    assert_eq!(args, [("events_v2", false), ("10", false)]);
    assert_eq!(&text[p.span.range()], text);
    // A repeated key keeps the first and is reported at the second, pointing
    // at the first (E025), without stopping the parse.
    let text = "pipeline p { models: [a], models: [b, c] }";
    let (f, d) = parse(F, text);
    let Decl::Pipeline(p) = &f.decls[0] else {
        panic!()
    };
    assert_eq!(p.models.iter().map(show).collect::<Vec<_>>(), ["a"]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "E025");
    assert_eq!(
        d[0].message,
        "pipeline key 'models' is given more than once"
    );
    assert_eq!(d[0].span.range(), 26..32);
    assert_eq!(d[0].labels[0].span.range(), 13..19);
    let text = "pipeline p env: dev { env: prod } source s() { columns: { a: int64 } columns: { b: date } }";
    let (f, d) = parse(F, text);
    let Decl::Pipeline(p) = &f.decls[0] else {
        panic!()
    };
    assert_eq!(p.env.as_ref().unwrap().name, "dev");
    let Decl::Source(s) = &f.decls[1] else {
        panic!()
    };
    let names: Vec<_> = s
        .columns
        .iter()
        .flatten()
        .map(|c| c.name.name.as_str())
        .collect();
    assert_eq!(names, ["a"]);
    let found = code_at_and_first_label(text, &d);
    assert_eq!(
        found,
        [("E025", "env", "env"), ("E025", "columns", "columns")]
    );
    assert_eq!(d[1].message, "source key 'columns' is given more than once");
    // A nulls placement or a frame written twice keeps the first (E067).
    let text = "model m { from t sort { a nulls_first nulls_last } derive { s = sum(x) over (sort: [a], rows: [-1, 0], range: [0, 1]) } }";
    let (f, d) = parse(F, text);
    let found = code_at_and_first_label(text, &d);
    assert_eq!(
        found,
        [
            ("E067", "nulls_last", "nulls_first"),
            ("E067", "range: [0, 1]", "rows: [-1, 0]")
        ]
    );
    let Decl::Model(m) = &f.decls[0] else {
        panic!()
    };
    assert!(matches!(&m.items[1].kind, ItemKind::Sort(k) if k[0].nulls == Some(Nulls::First)));
    let Decl::Contract(c) = decl("contract C { a: int64 enum { 007, 1_0 } }") else {
        panic!()
    };
    assert!(
        matches!(&c.fields[0].annotations[0], Annotation::Enum(v, _) if v[0].0 == "007" && v[1].0 == "10")
    );
    let Decl::Pipeline(p) = decl("pipeline p env: dev { }") else {
        panic!()
    };
    assert_eq!(p.env.unwrap().name, "dev");
    let d = err1("pipeline p { description: \"x\" }");
    assert_eq!(
        d.message,
        "unknown pipeline key 'description' (expected models, env or sources)"
    );
    assert_eq!(d.span.range(), 13..24);
    let d = err1("pipeline p { model: [a] }");
    assert_eq!(
        d.message,
        "unknown pipeline key 'model' (expected models, env or sources)"
    );
    assert_eq!(d.help.as_deref(), Some("did you mean 'models'?"));
    assert_eq!(
        msg("pipeline p { models: [a b] }"),
        "expected ']' or ',' in the models list, found identifier 'b'"
    );
    assert_eq!(
        msg("pipeline p { 1: x }"),
        "expected a pipeline key (models, env, sources) or '}', found integer 1"
    );
}

#[test]
fn test_decl() {
    let text = r#"test orders {
  expect row_count > 0;
  expect amount >= 1.5
  expect status != "void" ; expect flag == true expect x == false
  expect y == null
  expect customer_id in customers.id
  expect z <= 10 expect w < 1
}"#;
    let Decl::Test(t) = decl(text) else { panic!() };
    assert_eq!(t.model.name, "orders");
    assert_eq!(&text[t.span.range()], text);
    let c: Vec<String> = t
        .checks
        .iter()
        .map(|c| match &c.kind {
            TestCheckKind::Compare { op, value } => format!(
                "{} {} {}",
                c.target.name,
                op.symbol(),
                match &value.kind {
                    TestLitKind::Int(i) => i.to_string(),
                    TestLitKind::Float(_, t) => t.clone(),
                    TestLitKind::Str(s) => format!("{s:?}"),
                    TestLitKind::Bool(b) => b.to_string(),
                    TestLitKind::Null => "null".into(),
                }
            ),
            TestCheckKind::In { model, column } => {
                format!("{} in {}.{}", c.target.name, model.name, column.name)
            }
            TestCheckKind::Rows { rows, .. } => format!("rows ({} rows)", rows.len()),
        })
        .collect();
    assert_eq!(
        c,
        [
            "row_count > 0",
            "amount >= 1.5",
            "status != \"void\"",
            "flag == true",
            "x == false",
            "y == null",
            "customer_id in customers.id",
            "z <= 10",
            "w < 1"
        ]
    );
    assert_eq!(&text[t.checks[0].span.range()], "expect row_count > 0");
    let TestCheckKind::Compare { value, .. } = &t.checks[2].kind else {
        panic!()
    };
    assert_eq!(&text[value.span.range()], "\"void\"");
    assert_eq!(
        &text[t.checks[6].span.range()],
        "expect customer_id in customers.id"
    );
}

#[test]
fn test_severity() {
    let text = "test orders { severity: warn; expect row_count > 0 }";
    let Decl::Test(t) = decl(text) else { panic!() };
    let (severity, span) = t.severity.expect("a severity");
    assert_eq!(severity, Severity::Warn);
    assert_eq!(&text[span.range()], "severity: warn");
    assert_eq!(t.checks.len(), 1);
    let Decl::Test(t) = decl("test orders { severity: error\n expect row_count > 0 }") else {
        panic!()
    };
    assert_eq!(t.severity.map(|s| s.0), Some(Severity::Error));
    let Decl::Test(t) = decl("test orders { expect row_count > 0 }") else {
        panic!()
    };
    assert_eq!(t.severity, None);
    // A word other than warn or error, and a severity after a check.
    let d = err1("test m { severity: info expect x > 1 }");
    assert_eq!(d.message, "unknown test severity 'info'");
    assert_eq!(d.span.range(), 19..23);
    assert!(d.help.as_deref().is_some_and(|h| h.contains("`warn`")));
    let d = err1("test m { expect x > 1 severity: warn }");
    assert_eq!(
        d.message,
        "expected 'expect', 'given' or '}' in test body, found identifier 'severity'"
    );
    assert_eq!(
        d.help.as_deref(),
        Some("`severity:` comes first in a test body, once")
    );
    assert_eq!(
        msg("test m { severity warn }"),
        "expected ':' after 'severity', found identifier 'warn'"
    );
}

#[test]
fn test_decl_errors() {
    let d = err1("test m { expect x = 1 }");
    assert_eq!(
        d.message,
        "expected a comparison operator (==, !=, <, <=, >, >=) or 'in' after 'expect x', found '='"
    );
    assert_eq!(d.help.as_deref(), Some("use '==' to test equality"));
    assert_eq!(d.span.range(), 18..19);
    let d = err1("test m { expect x > -1 }");
    assert_eq!(
        d.message,
        "expected a literal (number, string, true, false or null) after 'x >' in expect, found '-'"
    );
    assert!(d.help.is_some());
    assert_eq!(
        msg("test m { expect x > 1 expect y > 2 z }"),
        "expected ';' after the check, found identifier 'z'"
    );
    assert_eq!(
        msg("test m { row_count > 1 }"),
        "expected 'expect', 'given' or '}' in test body, found identifier 'row_count'"
    );
    assert_eq!(
        msg("test m { expect date > 1 }"),
        "expected 'row_count', 'rows' or a column name after 'expect', found type keyword 'date'"
    );
    assert_eq!(
        msg("test m { expect x in y }"),
        "expected '.' between the model and the column (model.column), found '}'"
    );
    assert_eq!(
        msg("test m { expect x like \"a\" }"),
        "expected a comparison operator (==, !=, <, <=, >, >=) or 'in' after 'expect x', found identifier 'like'"
    );
}

#[test]
fn fixture_tests() {
    let text = r#"test enriched "an unknown customer; \"quoted\"" {
  given orders(order_id, customer_id, amount,) {
    (1, 10, -2.5)
    (2, null, 1_000),
    (-3, 7, -4,)
  }
  expect row_count == 2;
  given customers {}
  expect rows(order_id, tags) {
    (1, ["a", "${x}"]) (2, [])
  }
  expect rows {}
  given rows(rows) { (true) (false) ("\n") }
}"#;
    let Decl::Test(t) = decl(text) else { panic!() };
    assert_eq!(t.model.name, "enriched");
    assert_eq!(
        t.name.as_ref().map(|(n, _)| n.as_str()),
        Some("an unknown customer; \"quoted\"")
    );
    assert!(t.is_fixture());
    assert_eq!(t.givens.len(), 3);
    let g = &t.givens[0];
    let cols: Vec<&str> = g
        .columns
        .iter()
        .flatten()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(cols, ["order_id", "customer_id", "amount"]);
    let values: Vec<Vec<FixtureValueKind>> = g
        .rows
        .iter()
        .map(|r| r.values.iter().map(|v| v.kind.clone()).collect())
        .collect();
    assert_eq!(
        values,
        [
            vec![
                FixtureValueKind::Int(1),
                FixtureValueKind::Int(10),
                FixtureValueKind::Float("-2.5".into())
            ],
            vec![
                FixtureValueKind::Int(2),
                FixtureValueKind::Null,
                FixtureValueKind::Int(1000)
            ],
            vec![
                FixtureValueKind::Int(-3),
                FixtureValueKind::Int(7),
                FixtureValueKind::Int(-4)
            ],
        ]
    );
    assert_eq!(&text[g.rows[2].values[0].span.range()], "-3");
    assert_eq!(&text[g.rows[1].span.range()], "(2, null, 1_000)");
    assert_eq!(t.givens[1].columns, None);
    assert!(t.givens[1].rows.is_empty());
    assert_eq!(t.givens[2].input.name, "rows");
    assert_eq!(t.checks.len(), 3);
    let TestCheckKind::Rows { columns, rows } = &t.checks[1].kind else {
        panic!("{:?}", t.checks[1])
    };
    assert_eq!(columns.as_ref().map(Vec::len), Some(2));
    let FixtureValueKind::List(items) = &rows[0].values[1].kind else {
        panic!()
    };
    let items: Vec<&FixtureValueKind> = items.iter().map(|v| &v.kind).collect();
    assert_eq!(
        items,
        [
            &FixtureValueKind::Str("a".into()),
            &FixtureValueKind::Str("${x}".into())
        ]
    );
    assert_eq!(rows[1].values[1].kind, FixtureValueKind::List(Vec::new()));
    assert!(
        matches!(&t.checks[2].kind, TestCheckKind::Rows { columns: None, rows } if rows.is_empty())
    );
    // A column named `rows` is still a column.
    let Decl::Test(t) = decl("test m { expect rows == 1 expect rows > 0 }") else {
        panic!()
    };
    assert!(matches!(t.checks[0].kind, TestCheckKind::Compare { .. }));
    assert!(!t.is_fixture());
}

#[test]
fn fixture_test_errors() {
    let d = err1("test m { given o { (1) } }");
    assert_eq!(
        d.message,
        "expected '}' ('given o' lists no columns, so it takes no rows), found '('"
    );
    assert_eq!(
        d.help.as_deref(),
        Some("name the columns the rows give before the braces: given o(col_a, col_b) { (1, \"x\") }")
    );
    assert_eq!(
        msg("test m { given o(a) { (paid) } }"),
        "expected a value (a number, a string, true, false, null or [..]), found identifier 'paid'"
    );
    assert_eq!(
        err1("test m { given o(a) { (paid) } }").help.as_deref(),
        Some("a string is quoted: \"paid\"")
    );
    let d = err1("test m { given o(d) { (date(\"2024-01-01\")) } }");
    assert!(
        d.help
            .as_deref()
            .is_some_and(|h| h.contains("\"2024-01-31\"")),
        "{d:?}"
    );
    assert_eq!(
        msg("test m { given o(a) { (1 2) } }"),
        "expected ')' or ',' in the row, found integer 2"
    );
    assert_eq!(
        msg("test m { given o() { } }"),
        "expected a column name, found ')'"
    );
    assert_eq!(
        msg("test m { given o(a) (1) }"),
        "expected '{' and the rows of 'given o', found '('"
    );
    assert_eq!(
        msg("test m { given o(a) { (- \"x\") } }"),
        "expected a number after '-', found string \"x\""
    );
    assert_eq!(
        msg("test m \"x\" expect"),
        "expected '{' after the test's name, found keyword 'expect'"
    );
    assert_eq!(
        msg("test m { gven o {} }"),
        "expected 'expect', 'given' or '}' in test body, found identifier 'gven'"
    );
    assert_eq!(
        err1("test m { gven o {} }").help.as_deref(),
        Some("did you mean 'given'?")
    );
    // Lists nest no deeper than the parser's limit.
    let deep = format!(
        "test m {{ given o(a) {{ ({}1{}) }} }}",
        "[".repeat(300),
        "]".repeat(300)
    );
    assert!(msg(&deep).starts_with("nesting too deep"));
}

#[test]
fn fn_decls_and_generators() {
    let text = r#"fn countries() -> List<Str> { ["es", "fr"] }
fn by_country(cs: List<Str>, n: int64, m: List<List<Model>>) -> List<Model> {
  [ model "orders_${c}" -> contract C { from orders filter country == c } for c in cs ]
}
fn plain(x: Int) -> Int x + 1
by_country(countries())"#;
    let f = ok(text);
    assert_eq!(f.decls.len(), 4);
    let Decl::Fn(a) = &f.decls[0] else { panic!() };
    assert_eq!(a.name.name, "countries");
    assert!(a.params.is_empty());
    assert_eq!(a.ret.text, "List<Str>");
    assert!(a.braced);
    assert_eq!(show(&a.body), "[\"es\", \"fr\"]");
    assert_eq!(
        &text[a.span.range()],
        "fn countries() -> List<Str> { [\"es\", \"fr\"] }"
    );
    let Decl::Fn(b) = &f.decls[1] else { panic!() };
    let params: Vec<_> = b
        .params
        .iter()
        .map(|(n, t)| format!("{}:{}", n.name, t.text))
        .collect();
    assert_eq!(params, ["cs:List<Str>", "n:int64", "m:List<List<Model>>"]);
    assert_eq!(&text[b.params[2].1.span.range()], "List<List<Model>>");
    assert!(matches!(&b.body.kind, ExprKind::Comprehension { .. }));
    let Decl::Fn(c) = &f.decls[2] else { panic!() };
    assert!(!c.braced);
    assert_eq!(show(&c.body), "(+ x 1)");
    let Decl::Generator(g) = &f.decls[3] else {
        panic!()
    };
    assert_eq!(show(g), "by_country(countries())");
    assert_eq!(&text[g.span.range()], "by_country(countries())");
    assert_eq!(
        msg("fn f(x) -> Int x"),
        "expected ':' after parameter 'x', found ')'"
    );
    assert_eq!(
        msg("fn f(x: 1) -> Int x"),
        "expected a type, found integer 1"
    );
    assert_eq!(
        msg("fn f() { 1 }"),
        "expected '->' and a return type after the parameters, found '{'"
    );
    assert_eq!(
        msg("fn f() -> List<Str { 1 }"),
        "expected '>' to close List<..>, found '{'"
    );
}

#[test]
fn top_level_errors() {
    let d = err1("filter x");
    assert_eq!(
        d.message,
        "expected a declaration (source, contract, domain, model, pipeline, test, fn, import) or a generator call, found keyword 'filter'"
    );
    let d = err1("modle m { }");
    assert_eq!(d.help.as_deref(), Some("did you mean 'model'?"));
    assert_eq!(d.span.range(), 0..5);
    let d = err1("x = 1");
    assert_eq!(d.span.range(), 0..1);
    // Keywords are never names.
    for (text, found) in [
        ("model by { }", "keyword 'by'"),
        ("model test { }", "keyword 'test'"),
        ("source sort()", "keyword 'sort'"),
        ("contract group { }", "keyword 'group'"),
        ("domain string = int64", "type keyword 'string'"),
        ("model m { let all = 1 }", "keyword 'all'"),
        ("model m { select { json = 1 } }", "type keyword 'json'"),
    ] {
        let m = msg(text);
        assert!(m.ends_with(&format!(", found {found}")), "{text}: {m}");
    }
    // Contextual words are names.
    ok("source columns() { columns: { as: int64, owner: string, env: bool, models: date, row_count: int64 } }
model env { from columns select { as = as, owner = owner, List = row_count } }");
}

#[test]
fn lex_errors_are_parse_errors() {
    let text = "model m {\n  filter x == 'a'\n}";
    // The second quote is in text skipped after the first error.
    let d = errs(text);
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].message,
        "unexpected character '''".replace("'''", "'\\''")
    );
    assert_eq!(d[0].span.range(), 24..25);
    assert!(d[0].help.is_some());
    let d = err1("model m { from t } /* trailing");
    assert_eq!(
        d.message,
        "unterminated block comment: '/*' has no closing '*/'"
    );
    assert_eq!(d.span.range(), 19..21);
    let d = err1("model m { owner: \"abc }");
    assert_eq!(
        d.message,
        "unterminated string: this '\"' has no closing '\"'"
    );
    let d = err1("model m { from t filter x > 99999999999999999999 }");
    assert!(d.message.starts_with("integer literal too large"));
    assert_eq!(d.span.range(), 28..48);
    assert_eq!(
        msg("model m { filter x == \"${}\" }"),
        "empty interpolation '${}' in string"
    );
    assert_eq!(
        msg("model m { filter x == \"${a\" }"),
        "expected '}' to close the interpolation '${a', found the end of the string"
    );
}

#[test]
fn comments_are_kept() {
    let text = "# head\nmodel m { // x\n from t /* y */ }\n";
    let f = ok(text);
    let c: Vec<_> = f.comments.iter().map(|c| &text[c.span.range()]).collect();
    assert_eq!(c, ["# head", "// x", "/* y */"]);
    assert_eq!(f.comments[0].text, "# head");
}

#[test]
fn recovery_reports_each_broken_declaration() {
    let text = "source s(ns: \"a\") { columns: { id: int64 } }
model a {
  from s
  filter id = 1
  select { x = 1 }
}
model ok1 { from s }
contract C { date: date }
model b -> contract C { from s join_left s on a == b expect many_to_many }
test a { expect x = 1 }
pipeline p { models: [ok1], description: \"x\" }
domain d = decimal(10 2)
model c { from s
model ok2 { from s }
";
    let (f, d) = parse(F, text);
    let got: Vec<_> = d.iter().map(|d| &text[d.span.range()]).collect();
    assert_eq!(
        got,
        ["=", "date", "many_to_many", "=", "description", "model"],
        "{d:#?}"
    );
    let names: Vec<_> = f
        .decls
        .iter()
        .map(|d| match d {
            Decl::Source(s) => s.name.name.to_string(),
            Decl::Model(m) => m.name.name.to_string(),
            Decl::Domain(x) => x.name.name.to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(names, ["s", "ok1", "d", "ok2"]);
    // A keyword right after `->` is no recovery point.
    let (f, d) = parse(F, "model by -> contract C { from t }\nmodel z { }");
    assert_eq!(d.len(), 1);
    assert_eq!(f.decls.len(), 1);
    // Unbalanced braces on one line: a never-nested keyword still stops.
    let (f, d) = parse(F, "model a { filter (x source s() model b {}");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(f.decls.len(), 2);
    // Stray tokens at top level: one error, then the next declaration.
    let (f, d) = parse(F, "} } ) model m { }");
    assert_eq!(d.len(), 1);
    assert_eq!(f.decls.len(), 1);
    // Lex errors in two declarations: both reported, no cascades.
    let (f, d) = parse(
        F,
        "model a { filter x @ 1 }\nmodel b { filter y ` }\nmodel c {}",
    );
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(f.decls.len(), 1);
    // Only the first error of a declaration, lex errors included.
    let text = "model a { filter x = 1 @ }\nmodel b { filter @ = }\nmodel c { from \"x }";
    let d = errs(text);
    let got: Vec<_> = d.iter().map(|d| &text[d.span.range()]).collect();
    assert_eq!(got, ["=", "@", "\""], "{d:#?}");
}

#[test]
fn nesting_limit() {
    let deep = |open: &str, close: &str, n: usize| {
        format!(
            "model m {{ filter {}x{} }}",
            open.repeat(n),
            close.repeat(n)
        )
    };
    ok(&deep("(", ")", 150));
    for (open, close) in [("(", ")"), ("[", "]"), ("f(", ")"), ("-", ""), ("not ", "")] {
        let text = deep(open, close, 100_000);
        let d = errs(&text);
        assert_eq!(d.len(), 1, "{open}");
        assert_eq!(d[0].message, "nesting too deep (more than 200 levels)");
    }
    let text = format!(
        "domain d = {}string{}",
        "array(".repeat(50_000),
        ")".repeat(50_000)
    );
    assert_eq!(
        errs(&text)[0].message,
        "nesting too deep (more than 200 levels)"
    );
    let text = format!(
        "fn f() -> {}Str{} 1",
        "List<".repeat(50_000),
        ">".repeat(50_000)
    );
    assert_eq!(
        errs(&text)[0].message,
        "nesting too deep (more than 200 levels)"
    );
    let text = format!("fn f() -> Model {}", "model m { filter ".repeat(50_000));
    assert_eq!(
        errs(&text)[0].message,
        "nesting too deep (more than 200 levels)"
    );
    assert!(parse_expr(F, &"(".repeat(10_000)).is_err());
}

#[test]
fn operator_limit() {
    let chain = |n: usize| vec!["x"; n + 1].join(" + ");
    // Each column's value counts on its own.
    ok(&format!(
        "model m {{ select {{ a = {0}, b = {0} }} filter {0} }}",
        chain(1_000)
    ));
    let text = format!("model m {{ filter {} }}", chain(1_001));
    let d = errs(&text);
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].message,
        "expression too long (more than 1000 operators)"
    );
    // On the operator past the limit.
    assert_eq!(d[0].span.start as usize, text.rfind('+').unwrap());
    // Operators in parentheses and arguments count toward the outer one.
    let nested = format!("model m {{ filter f({}) + ({}) }}", chain(600), chain(600));
    assert_eq!(
        errs(&nested)[0].message,
        "expression too long (more than 1000 operators)"
    );
}

const SAMPLE: &str = r#"import shared.dims
# comment
source shipments(ns: "logistics", dataset: "shipments") {
  columns: {
    shipment_id: int64 nonnull primary_key,
    region:      string nonnull enum { NORTH, "SOUTH" },
    fee:         money(EUR) nonnull classification: pii
    tags:        array(string); amount: decimal(10, 2)
  }
  owner: "ops"
}
contract LiveShipment { shipment_id: int64 nonnull unique region: Region protected }
domain Region = string
model live -> contract LiveShipment {
  owner: "ops"
  from shipments
  join_left carriers on shipments.cid == carriers.cid expect many_to_one
  filter coalesce(is_void, false) == false and not (fee > 1.5) // x
  let code = upper(region) || "-" || date_trunc(day_of, month)
  select { shipment_id = shipment_id, region = code, n = count(distinct x) }
  derive { r = row_number() over (partition_by: [region], sort: [fee desc]) }
  group { region } ( aggregate { n = count(*) } filter n > 1 sort { n desc } take 3 )
  sort { region asc, fee desc }
  take 5..10
  expand tags as tag
  union all other
  dedup by region
  partition_by [region] freshness: 1h, daily freshness_column: ts
  freshness 24h incremental merge_strategy: upsert merge_keys: [id] cdc_column: ts
}
/* block */
fn f(cs: List<Str>) -> List<Model> { [ model "m_${c}" { from t filter t.c == c } for c in cs ] }
f(["a", "b"])
pipeline nightly env: dev { models: [live, f(["x"])], sources: { shipments: from(dataset: "s2") } }
test live { expect row_count > 0; expect fee in shipments.fee expect region != "x" }
"#;

#[test]
fn sample_program_parses() {
    let f = ok(SAMPLE);
    assert_eq!(f.decls.len(), 9);
    assert_eq!(f.comments.len(), 3);
    for d in &f.decls {
        let s = d.span();
        assert!(s.start < s.end && (s.end as usize) <= SAMPLE.len());
    }
    let Decl::Model(m) = &f.decls[4] else {
        panic!()
    };
    assert_eq!(m.items.len(), 15);
    for i in &m.items {
        let t = &SAMPLE[i.span.range()];
        assert!(!t.ends_with(' ') && !t.starts_with(' '), "{t:?}");
    }
    assert_eq!(&SAMPLE[m.items[12].span.range()], "dedup by region");
}

/// A tiny xorshift PRNG (no dependencies).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Parse and check the invariants every result must hold.
fn parse_checked(text: &str) {
    let (f, d) = parse(F, text);
    for x in &d {
        // A syntax error, a key given twice, or a nulls placement or frame
        // written twice.
        assert!(
            x.code == "ParseError" || x.code == "E025" || x.code == "E067",
            "{x:?}"
        );
        assert!(x.span.start <= x.span.end && x.span.end as usize <= text.len());
        assert!(text.is_char_boundary(x.span.start as usize));
        assert!(text.is_char_boundary(x.span.end as usize));
    }
    for decl in &f.decls {
        let s = decl.span();
        assert!(s.start <= s.end && s.end as usize <= text.len());
    }
    let _ = parse_expr(F, text);
}

#[test]
fn no_panic_on_random_input() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let alphabet: Vec<char> = "{}[](),:;=.<>+-*/%|!\"\\$#@'`&_ \n\tax1é€😀\u{0}\u{feff}"
        .chars()
        .collect();
    let words = [
        "model ",
        "source ",
        "fn ",
        "test ",
        "expect ",
        "join_left ",
        "on ",
        "over ",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "..",
        "/*",
        "*/",
        "\"${",
        "}\"",
        "group ",
        "take ",
        "1",
        ".5",
        "x",
        "->",
        "contract ",
        "freshness ",
        "incremental ",
        "enum ",
        "partition_by:",
        "sort:",
    ];
    for _ in 0..1500 {
        let n = rng.below(60);
        let mut s = String::new();
        for _ in 0..n {
            if rng.below(2) == 0 {
                s.push(alphabet[rng.below(alphabet.len())]);
            } else {
                s.push_str(words[rng.below(words.len())]);
            }
        }
        parse_checked(&s);
    }
    // Random bytes, lossily decoded.
    for _ in 0..500 {
        let n = rng.below(80);
        let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        parse_checked(&String::from_utf8_lossy(&bytes));
    }
    // Every truncation of the sample, and random token deletions/mutations.
    for (i, _) in SAMPLE.char_indices() {
        parse_checked(&SAMPLE[..i]);
    }
    let chars: Vec<char> = SAMPLE.chars().collect();
    for _ in 0..1500 {
        let mut c = chars.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(c.len());
            match rng.below(3) {
                0 => {
                    c.remove(at);
                }
                1 => c.insert(at, alphabet[rng.below(alphabet.len())]),
                _ => {
                    let len = rng.below(20).min(c.len() - at);
                    c.drain(at..at + len);
                }
            }
        }
        let s: String = c.into_iter().collect();
        parse_checked(&s);
    }
}

// -------------------------------------------------------------------------
// Parsing in parts

/// Parsed in parts from `starts`, a file is what it is parsed in one piece:
/// its declarations, comments and diagnostics alike.
#[track_caller]
fn parts_agree(text: &str, starts: &[usize]) {
    let whole = parse_part(F, text, 0, None).map(|p| (p.file, p.diags));
    assert_eq!(
        Some(parse_parts(F, text, starts)),
        whole,
        "parts from {starts:?} of:\n{text}"
    );
}

#[test]
fn a_file_parsed_in_parts_is_the_file_parsed_whole() {
    // Cut at every line start, declaration or not: a part that starts
    // inside a declaration, a string or a comment must not count.
    let (mut cuts, mut fitting) = (0, 0);
    for path in crate::test_files::repository_strata_files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let lines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        for &at in lines.iter().filter(|&&at| at < text.len()) {
            parts_agree(&text, &[0, at]);
            cuts += 1;
            fitting += usize::from(parse_part(F, &text, 0, Some(at)).is_some());
        }
        let mut all = vec![0];
        all.extend(lines.iter().filter(|&&at| at < text.len()));
        parts_agree(&text, &all);
    }
    eprintln!("{cuts} cuts compared, {fitting} between declarations");
    // Both paths were taken: parts that fit, and parts parsed again whole.
    assert!(cuts == 0 || (0 < fitting && fitting < cuts));
}

#[test]
fn parts_start_at_declaration_lines() {
    let text = concat!(
        "source s(ns: \"n\", dataset: \"d\") { columns: { id: int64 } }\n",
        "/* a comment\nmodel hidden { from s }\n*/\n",
        "model a { from s }\n",
        "model b { from a select { x = \"\nmodel c\" } }\n",
        "  model indented { from a }\n",
        "model c { from a }\n",
    );
    let starts = |from| decl_line_from(text, from).map(|at| &text[at..at + 7]);
    // Any line starting with a keyword, even in a comment or a string:
    // parse_parts then refuses the part.
    assert_eq!(starts(1), Some("model h"));
    let after_comment = text.find("*/").unwrap();
    assert_eq!(starts(after_comment), Some("model a"));
    let in_string = text.find("\nmodel c\"").unwrap();
    assert_eq!(starts(in_string), Some("model c"));
    let indented = text.find("  model indented").unwrap();
    assert_eq!(starts(indented), Some("model c"));
    for at in [1, after_comment, in_string, indented] {
        parts_agree(text, &[0, decl_line_from(text, at).unwrap()]);
    }
    // A small text is one part; a large one about four a thread.
    assert_eq!(part_starts(text, 2), [0]);
    let large = "model m { from s }\n".repeat(20_000);
    let parts = part_starts(&large, 2);
    assert_eq!(parts.len(), 8);
    assert!(parts
        .iter()
        .all(|&at| at == 0 || large.as_bytes()[at - 1] == b'\n'));
    parts_agree(&large, &parts);
}
