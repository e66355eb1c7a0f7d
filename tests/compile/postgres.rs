//! PostgreSQL

use super::*;

/// `CREATE TABLE` for every source of a module with columns (PostgreSQL types).
fn source_tables(m: &strata_lang::ir::Module) -> String {
    let d = Dialect::Postgres;
    let mut sql = String::new();
    for s in &m.sources {
        let Some(cols) = &s.columns else { continue };
        let cols: Vec<String> = cols
            .iter()
            .map(|c| {
                let ty = d.type_name(&c.ty).unwrap_or_else(|_| "TEXT".into());
                format!("{} {ty}", d.ident(&c.name))
            })
            .collect();
        sql.push_str(&format!(
            "CREATE TABLE {} ({});\n",
            d.ident(&s.name),
            cols.join(", ")
        ));
    }
    sql
}

/// The PostgreSQL type name (`pg_type.typname`) a strata type lowers to;
/// `None` for `unknown`.
fn pg_typname(ty: &str) -> Option<String> {
    if let Some(elem) = ty.strip_prefix("array<").and_then(|t| t.strip_suffix('>')) {
        return pg_typname(elem).map(|e| format!("_{e}"));
    }
    if ty.starts_with("decimal") || ty.starts_with("money") {
        return Some("numeric".into());
    }
    let name = match ty {
        "int64" => "int8",
        "float32" => "float4",
        "float64" => "float8",
        "string" => "text",
        "bool" => "bool",
        "date" => "date",
        "timestamp" => "timestamp",
        "timestamptz" => "timestamptz",
        "uuid" => "uuid",
        "json" => "json",
        _ => return None,
    };
    Some(name.into())
}

type ViewColumns = BTreeMap<String, Vec<(String, String)>>;

/// `schema -> view -> [(column, typname)]` for the views of the schemas
/// whose names start with `prefix`.
pub(crate) fn view_columns(pg: &Pg, prefix: &str) -> Result<BTreeMap<String, ViewColumns>, String> {
    let out = pg.psql(
        "public",
        &format!(
            "SELECT n.nspname, c.relname, a.attname, t.typname FROM pg_attribute a \
             JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
             JOIN pg_type t ON t.oid = a.atttypid \
             WHERE starts_with(n.nspname, '{prefix}') AND c.relkind = 'v' AND a.attnum > 0 \
             AND NOT a.attisdropped ORDER BY n.nspname, c.relname, a.attnum;"
        ),
    )?;
    let mut all: BTreeMap<String, ViewColumns> = BTreeMap::new();
    for line in out.lines() {
        let p: Vec<&str> = line.splitn(4, '|').collect();
        if let [schema, view, column, ty] = p[..] {
            all.entry(schema.to_string())
                .or_default()
                .entry(view.to_string())
                .or_default()
                .push((column.to_string(), ty.to_string()));
        }
    }
    Ok(all)
}

/// The rows of a view in the `.expected` text form, sorted.
pub(crate) fn view_rows(
    pg: &Pg,
    schema: &str,
    view: &str,
    cols: &[(String, String)],
) -> Result<Vec<String>, String> {
    let d = Dialect::Postgres;
    let items: Vec<String> = cols
        .iter()
        .map(|(name, ty)| {
            let c = d.ident(name);
            if ty == "bool" {
                format!("CASE WHEN {c} THEN 'true' WHEN NOT {c} THEN 'false' END")
            } else {
                format!("CAST({c} AS TEXT)")
            }
        })
        .collect();
    let out = pg.psql(
        schema,
        &format!("SELECT {} FROM {};", items.join(", "), d.ident(view)),
    )?;
    let mut rows: Vec<String> = out.lines().map(str::to_string).collect();
    rows.sort();
    Ok(rows)
}

/// A program loaded into its own schema: source tables (or the fixture's
/// data), its compiled views and the check queries, in one psql session.
pub(crate) struct Loaded {
    pub(crate) file: PathBuf,
    pub(crate) schema: String,
    pub(crate) compiled: Value,
}

pub(crate) fn load_program(pg: &Pg, file: &Path, data_sql: Option<&str>) -> Result<Loaded, String> {
    let compiled = compile_json(file, "postgres")?;
    let schema = pg.schema_name(if data_sql.is_some() { "fx" } else { "p" });
    let mut script = format!(
        "CREATE SCHEMA {schema};\nSET search_path TO {schema};\n\\echo '@@ the source tables'\n"
    );
    match data_sql {
        Some(sql) => script.push_str(sql),
        None => script.push_str(&source_tables(&module(file))),
    }
    for v in array(&compiled, "views") {
        script.push_str(&format!(
            "\n\\echo '@@ model {}'\n{}\n",
            str_field(v, "model").replace('\'', ""),
            str_field(v, "sql")
        ));
    }
    for c in array(&compiled, "cardinality_checks") {
        script.push_str(&format!(
            "\n\\echo '@@ check [{}] on {}'\n{}\n",
            str_field(c, "join").replace('\'', ""),
            str_field(c, "table").replace('\'', ""),
            str_field(c, "sql")
        ));
    }
    pg.psql(&schema, &script)
        .map_err(|e| format!("{} [postgres] {e}", rel(file)))?;
    Ok(Loaded {
        file: file.to_path_buf(),
        schema,
        compiled,
    })
}

/// Every program of `all_programs` that compiles for postgres, loaded once
/// per test run (shared by the tests below).
fn loaded_programs(pg: &Pg) -> &'static [(PathBuf, Result<Loaded, String>)] {
    static LOADED: OnceLock<Vec<(PathBuf, Result<Loaded, String>)>> = OnceLock::new();
    LOADED.get_or_init(|| {
        let programs: Vec<PathBuf> = all_programs()
            .into_iter()
            .filter(|p| compiles_for_postgres(p))
            .collect();
        // A few psql sessions at a time: connecting dominates.
        let chunk = programs.len().div_ceil(4).max(1);
        std::thread::scope(|scope| {
            let workers: Vec<_> = programs
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|p| (p.clone(), load_program(pg, p, None)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("loader thread"))
                .collect()
        })
    })
}

// Every program on PostgreSQL

/// Programs whose PostgreSQL SQL is expected not to exist (E070).
fn compiles_for_postgres(file: &Path) -> bool {
    let name = rel(file);
    !expected_compile_errors()
        .iter()
        .any(|(f, d)| f == &name && d == "postgres")
}

#[test]
fn postgres_creates_every_view() {
    let Some(pg) = pg() else { return };
    let programs = loaded_programs(pg);
    let (mut views, mut checks) = (0, 0);
    let mut failures = Vec::new();
    for (_, loaded) in programs {
        match loaded {
            Ok(l) => {
                views += array(&l.compiled, "views").len();
                checks += array(&l.compiled, "cardinality_checks").len();
            }
            Err(e) => failures.push(e.clone()),
        }
    }
    eprintln!(
        "postgres: {} programs loaded ({views} views created, {checks} check queries run), {} failed",
        programs.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} programs fail on PostgreSQL:\n\n{}",
        failures.len(),
        programs.len(),
        failures.join("\n\n")
    );
}

#[test]
fn postgres_view_types_match_the_schema() {
    let Some(pg) = pg() else { return };
    let mut failures = Vec::new();
    let mut compared = 0;
    let loaded = loaded_programs(pg);
    let all_columns = view_columns(pg, "p_").unwrap_or_else(|e| panic!("{e}"));
    // A program whose views do not create fails postgres_creates_every_view.
    for l in loaded.iter().filter_map(|(_, l)| l.as_ref().ok()) {
        let file = rel(&l.file);
        let columns = all_columns.get(&l.schema).cloned().unwrap_or_default();
        let m = module(&l.file);
        for v in array(&l.compiled, "views") {
            let Some(model) = m.models.iter().find(|x| x.name == str_field(v, "model")) else {
                continue;
            };
            let got = columns
                .get(str_field(v, "view"))
                .cloned()
                .unwrap_or_default();
            let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
            let want: Vec<&str> = model.columns.iter().map(|c| c.name.as_str()).collect();
            if names != want {
                failures.push(format!(
                    "{file} model {}: view columns {names:?}, schema {want:?}",
                    model.name
                ));
                continue;
            }
            for (col, (_, typname)) in model.columns.iter().zip(&got) {
                let ty = col.ty.to_string();
                let Some(want) = pg_typname(&ty) else {
                    continue;
                };
                compared += 1;
                if &want != typname {
                    failures.push(format!(
                        "{file} model {} column {}: {ty} should be PostgreSQL {want}, the view has {typname}",
                        model.name, col.name
                    ));
                }
            }
        }
    }
    eprintln!(
        "postgres: {compared} view column types compared, {} differ",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} view columns have the wrong PostgreSQL type:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
