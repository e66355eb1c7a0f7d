//! The project file read whole: every table, the defaults, the errors
//! naming the file, the `[project]` table and the walk up.

use super::*;

fn parse_ok(text: &str) -> ProjectConfig {
    match parse(text, Path::new("strata.toml")) {
        Ok(c) => c,
        Err(e) => panic!("{}", e.message()),
    }
}

#[test]
fn reads_every_table() {
    let c = parse_ok(
        "[lints]\nW002 = \"allow\"\nwarnings = \"deny\"\n\n[rules]\nexternal = [\"tools/strata-rule-x\"]\n\n[run]\ncardinality-sample-rows = 1000\n",
    );
    assert_eq!(c.lints.get("W002"), Some(&Level::Allow));
    assert_eq!(c.lints.get("warnings"), Some(&Level::Deny));
    assert_eq!(c.external_rules, vec!["tools/strata-rule-x".to_string()]);
    assert!(!c.path_rules, "PATH discovery is off by default");
    assert_eq!(c.cardinality_sample_rows, Some(1000));
    assert!(parse_ok("[rules]\npath-discovery = true\n").path_rules);
    assert!(!parse_ok("[rules]\npath-discovery = false\n").path_rules);
    let t = parse_ok(
        "[targets.prod]\nurl = \"postgres://a@db/w?schema=marts\"\npassword-env = \"PROD_PW\"\n[targets.local]\nurl = \"dev.duckdb\"\n",
    );
    assert_eq!(t.targets["prod"].password_env.as_deref(), Some("PROD_PW"));
    let spark = parse_ok("[targets.cluster]\nurl = \"sc://spark:15002/?schema=marts\"\ntoken-env = \"SPARK_TOKEN\"\n");
    assert_eq!(
        spark.targets["cluster"].token_env.as_deref(),
        Some("SPARK_TOKEN")
    );
    assert_eq!(t.targets["local"].url, "dev.duckdb");
    let ol = parse_ok("[openlineage]\nurl = \"http://m:5000\"\napi-key-env = \"OL_KEY\"\n");
    let ol = ol.openlineage.expect("[openlineage]");
    assert_eq!(ol.api_key_env.as_deref(), Some("OL_KEY"));
    assert!(parse(
        "[openlineage]\nurl = \"http://m\"\nfile = \"e.jsonl\"\n",
        Path::new("strata.toml")
    )
    .is_err());
    assert!(parse("[openlineage]\n", Path::new("strata.toml")).is_err());
    assert!(parse(
        "[targets.x]\nurl = \"u\"\npassword = \"p\"\n",
        Path::new("strata.toml")
    )
    .is_err());
}

#[test]
fn sources_say_how_they_are_frozen() {
    let c = parse_ok(
        "[sources.orders]\nappend-column = \"order_id\"\n[sources.events]\nfreeze = \"hash\"\n[gc]\ncompact-when-free = 0.25\n",
    );
    assert_eq!(
        c.sources["orders"].append_column.as_deref(),
        Some("order_id")
    );
    assert_eq!(c.sources["orders"].freeze, Freeze::Copy);
    assert_eq!(c.sources["events"].freeze, Freeze::Hash);
    assert_eq!(c.gc.compact_when_free, Some(0.25));
    for bad in [
        "[sources.orders]\nfreeze = \"snapshot\"\n",
        "[sources.orders]\nappend_column = \"id\"\n",
        "[sources.orders]\nappend-column = \" \"\n",
        "[gc]\ncompact-when-free = 2\n",
    ] {
        match parse(bad, Path::new("/p/strata.toml")) {
            Err(ConfigError::Invalid(m)) => assert!(m.contains("/p/strata.toml"), "{m}"),
            other => panic!("{bad:?} gave {other:?}"),
        }
    }
}

#[test]
fn empty_file_is_the_defaults() {
    let c = parse_ok("");
    assert!(c.lints.is_empty() && c.external_rules.is_empty() && !c.path_rules);
    assert_eq!(ProjectConfig { path: None, ..c }, ProjectConfig::default());
    assert_eq!(c.cardinality_sample_rows, None);
}

#[test]
fn unknown_keys_and_bad_levels_are_errors_naming_the_file() {
    for bad in [
        "[lint]\nW001 = \"allow\"\n",
        "[lints]\nW001 = \"loud\"\n",
        "[run]\ncardinality_sample_rows = 5\n",
        "[run]\ncardinality-sample-rows = -5\n",
        "[run]\ncardinality-sample-rows = 0\n",
    ] {
        match parse(bad, Path::new("/p/strata.toml")) {
            Err(ConfigError::Invalid(m)) => assert!(m.contains("/p/strata.toml"), "{m}"),
            other => panic!("{bad:?} gave {other:?}"),
        }
    }
}

#[test]
fn the_project_table_names_modules_target_and_pipelines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(FILE_NAME);
    for f in ["b.strata", "a.strata", "notes.md"] {
        std::fs::write(dir.path().join(f), "").expect("write");
    }
    // Defaults: the .strata files beside it, by name; the only target;
    // a module's only pipeline.
    let c = parse("[targets.local]\nurl = \"w.duckdb\"\n", &path).expect("valid");
    let modules = c.modules().expect("modules");
    assert_eq!(
        modules,
        vec![dir.path().join("a.strata"), dir.path().join("b.strata")]
    );
    assert_eq!(c.default_target(), Some("local"));
    let a = dir.path().join("a.strata");
    assert_eq!(c.default_pipeline(&a, &["local"]).as_deref(), Some("local"));
    assert_eq!(c.default_pipeline(&a, &["local", "prod"]), None);
    assert_eq!(c.default_pipeline(&a, &[]), None);
    // Two targets and no default-target: none.
    let two = parse(
        "[targets.a]\nurl = \"a.duckdb\"\n[targets.b]\nurl = \"b.duckdb\"\n",
        &path,
    )
    .expect("valid");
    assert_eq!(two.default_target(), None);
    // Said in [project].
    let c = parse(
        "[project]\nmodules = [\"b.strata\"]\ndefault-target = \"b\"\ndefault-pipeline = \"prod\"\npipelines = { \"a.strata\" = \"nightly\" }\n[targets.a]\nurl = \"a.duckdb\"\n[targets.b]\nurl = \"b.duckdb\"\n",
        &path,
    )
    .expect("valid");
    assert_eq!(
        c.modules().expect("modules"),
        vec![dir.path().join("b.strata")]
    );
    assert_eq!(c.default_target(), Some("b"));
    let b = dir.path().join("b.strata");
    assert_eq!(
        c.default_pipeline(&b, &["local", "prod"]).as_deref(),
        Some("prod")
    );
    assert_eq!(c.default_pipeline(&b, &["local"]).as_deref(), Some("local"));
    assert_eq!(
        c.default_pipeline(&a, &["local", "prod"]).as_deref(),
        Some("nightly")
    );
    // Outside a project (no file): no modules, no default pipeline.
    let none = ProjectConfig::default();
    assert!(none.modules().expect("none").is_empty());
    assert_eq!(none.default_pipeline(&a, &["local"]), None);
    // A listed module that is not there, a default target that names
    // no target: errors naming the file.
    let missing = parse("[project]\nmodules = [\"c.strata\"]\n", &path).expect("valid");
    assert!(matches!(missing.modules(), Err(ConfigError::Invalid(m)) if m.contains("c.strata")));
    assert!(matches!(
        parse("[project]\ndefault-target = \"prod\"\n", &path),
        Err(ConfigError::Invalid(m)) if m.contains("default-target") && m.contains("strata.toml")
    ));
    assert!(parse("[project]\nmodule = [\"a.strata\"]\n", &path).is_err());
    assert!(parse_ok("[run]\nonly-stale = true\n").only_stale);
}

#[test]
fn found_by_walking_up() {
    let root = std::env::temp_dir().join(format!("strata-config-{}", std::process::id()));
    let deep = root.join("a/b");
    std::fs::create_dir_all(&deep).expect("temp dir");
    std::fs::write(root.join(FILE_NAME), "[lints]\nW001 = \"deny\"\n").expect("write");
    std::fs::write(deep.join("m.strata"), "").expect("write");
    let found = find(&deep.join("m.strata"));
    assert_eq!(found, Some(root.join(FILE_NAME)));
    let c = discover(&deep).expect("valid");
    assert_eq!(c.lints.get("W001"), Some(&Level::Deny));
    std::fs::remove_dir_all(&root).ok();
}
