use super::*;
use crate::project::{MacroFile, Project};

fn project(macros: &[(&str, &str)]) -> Project {
    let mut vars = Map::new();
    vars.insert("start".into(), Json::from("2024-01-01"));
    Project {
        name: "shop".into(),
        adapter: "duckdb".into(),
        vars,
        macros: macros
            .iter()
            .map(|(rel, text)| MacroFile {
                rel: (*rel).into(),
                text: (*text).into(),
                package: None,
            })
            .collect(),
        ..Project::default()
    }
}

fn render(p: &Project, sql: &str) -> Result<Rendered, RenderFailure> {
    Renderer::new(p).render("m", "models/m.sql", sql)
}

#[test]
fn refs_sources_config_and_vars() {
    let p = project(&[]);
    let r = render(
        &p,
        "{{ config(materialized='table') }}\nselect * from {{ ref('a') }} join {{ source('raw', 'b') }} on 1 = 1 where d > '{{ var(\"start\") }}' and e = {{ var('missing', 3) }}",
    );
    let r = r.unwrap_or_else(|f| panic!("{f:?}"));
    assert!(r.sql.contains("\"$ref$a\""), "{}", r.sql);
    assert!(r.sql.contains("\"$source$raw$b\""), "{}", r.sql);
    assert!(
        r.sql.contains("'2024-01-01'") && r.sql.contains("e = 3"),
        "{}",
        r.sql
    );
    assert_eq!(
        r.deps,
        vec![Dep::Ref("a".into()), Dep::Source("raw".into(), "b".into())]
    );
    assert_eq!(r.config.get("materialized"), Some(&Json::from("table")));
}

#[test]
fn loops_and_the_first_line_keeps_its_number() {
    let p = project(&[]);
    let sql = "{% set ms = ['a', 'b'] %}\nselect\n{% for m in ms %}sum({{ m }}) as {{ m }}_total{% if not loop.last %},{% endif %}\n{% endfor %}\nfrom {{ ref('t') }}";
    let r = render(&p, sql).unwrap_or_else(|f| panic!("{f:?}"));
    assert!(r.sql.contains("sum(a) as a_total,"), "{}", r.sql);
    let f = render(&p, "select 1\nfrom x\nwhere {{ nope(1) }}").err();
    let f = f.unwrap_or_else(|| panic!("an unknown macro rendered"));
    assert_eq!(f.loc.line, 3, "{f:?}");
    assert!(f.message.contains("`nope` is not defined"), "{}", f.message);
}

#[test]
fn project_macros_dispatch_and_return() {
    let p = project(&[(
        "macros/m.sql",
        "{% macro cents(x) %}{{ return(adapter.dispatch('cents')(x)) }}{% endmacro %}\n{% macro default__cents(x) %}({{ x }} / 100){% endmacro %}\n{% macro duckdb__cents(x) %}({{ x }} / 100.0){% endmacro %}\n{% macro twice(x) %}{% do return(cents(x) ~ ' * 2') %}{% endmacro %}",
    )]);
    let r = render(
        &p,
        "select {{ cents('amount') }} as a, {{ twice('b') }} as c from t",
    )
    .unwrap_or_else(|f| panic!("{f:?}"));
    assert!(r.sql.contains("(amount / 100.0) as a"), "{}", r.sql);
    assert!(r.sql.contains("(b / 100.0) * 2 as c"), "{}", r.sql);
}

#[test]
fn builtins_and_dbt_utils() {
    let p = project(&[]);
    let r = render(
        &p,
        "select {{ dbt.date_trunc('month', 'd') }} as m, {{ dbt.dateadd('day', 3, 'd') }} as n, {{ dbt_utils.generate_surrogate_key(['a', 'b']) }} as k from t",
    )
    .unwrap_or_else(|f| panic!("{f:?}"));
    assert!(r.sql.contains("date_trunc('month', d) as m"), "{}", r.sql);
    assert!(
        r.sql
            .contains("(d + cast(3 as bigint) * interval 1 day) as n"),
        "{}",
        r.sql
    );
    assert!(r.sql.contains("md5("), "{}", r.sql);
}

#[test]
fn what_needs_the_warehouse_is_refused_with_its_line() {
    let p = project(&[]);
    let f = render(&p, "select 1\n{% set r = run_query('select 1') %}").err();
    let f = f.unwrap_or_else(|| panic!("run_query rendered"));
    assert!(f.message.contains("run_query"), "{}", f.message);
    assert_eq!(f.loc.line, 2);
    let f = render(&p, "select {{ dbt_utils.get_column_values('t', 'c') }}").err();
    assert!(f.is_some_and(|f| f.message.contains("dbt_utils.get_column_values")));
    let f = render(
        &p,
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    )
    .err();
    assert!(
        f.as_ref()
            .is_some_and(|f| f.message.contains("too much work")),
        "{f:?}"
    );
    let f = render(&p, "select {{ var('nope') }}").err();
    assert!(f.is_some_and(|f| f.message.contains("var('nope') is not set")));
}

#[test]
fn a_broken_macro_file_is_reported_not_fatal() {
    let p = project(&[("macros/bad.sql", "{% macro x( %}")]);
    let r = Renderer::new(&p);
    assert_eq!(r.broken.len(), 1);
    assert_eq!(r.broken[0].0, "macros/bad.sql");
    assert!(r.render("m", "m.sql", "select 1 as a").is_ok());
}

#[test]
fn return_rewrites() {
    assert_eq!(rewrite_return("{% do return(x) %}"), "{{ return(x) }}");
    assert_eq!(
        rewrite_return("{%- do return( a ) -%}"),
        "{{- return( a ) -}}"
    );
    assert_eq!(
        rewrite_return("{% if a %}{% endif %}"),
        "{% if a %}{% endif %}"
    );
}
