//! Writing an import to its directory: the modules, `strata.toml` and
//! `IMPORT.md`. A directory that already has files is refused unless the
//! caller forces it; then the files an import writes (`*.strata` at its
//! top, `strata.toml`, `IMPORT.md`) are replaced and nothing else is
//! touched.

use std::path::Path;

use crate::error::{io_reason, Failure};
use crate::import::Import;
use crate::report::Report;

/// The project file written beside the modules: the root module, the
/// pipeline `strata run` uses by default (`dbt` when the profile names
/// dbt's warehouse, else `seeds` when it is written), and the `dbt`
/// target (its password only as the variable that holds it). `local`: a
/// DuckDB file as `[targets.local]`, the default target, run with the
/// `seeds` pipeline (`strata init --from-dbt`).
pub fn strata_toml(report: &Report, local: Option<&str>) -> String {
    // TOML strings as JSON writes them (its escapes are TOML's).
    let quoted = |s: &str| serde_json::Value::from(s).to_string();
    let mut out = format!(
        "# Written by `strata import-dbt`.\n[project]\n# The root module (it imports the others).\nmodules = [{}]\n",
        quoted(&report.root)
    );
    let default = match local {
        Some(_) => {
            out.push_str("default-target = \"local\"\n");
            report.pipeline.as_deref()
        }
        None => report
            .target
            .as_ref()
            .map(|t| t.name.as_str())
            .or(report.pipeline.as_deref()),
    };
    if let Some(p) = default {
        out.push_str(&format!(
            "# The pipeline `strata run` and `strata test` run in this directory.\ndefault-pipeline = {}\n",
            quoted(p)
        ));
    }
    out.push_str(
        "\n[lints]\n# dbt models have neither an owner nor, unless their tests give one, a\n# contract: the imported ones keep dbt's shape.\nW001 = \"allow\"\nW002 = \"allow\"\n",
    );
    if let Some(t) = &report.target {
        out.push_str(&format!(
            "\n# The warehouse dbt built ({}): sources and seeds read where dbt\n# reads them; strata publishes into schema `{}`, beside dbt's relations.\n[targets.{}]\nurl = {}\n",
            t.from,
            t.schema,
            t.name,
            quoted(&t.url)
        ));
        if let Some(v) = &t.password_env {
            out.push_str(&format!("password-env = {}\n", quoted(v)));
        }
    }
    if let Some(file) = local {
        out.push_str(&format!(
            "\n# The warehouse `--target local` names (relative to this file).\n[targets.local]\nurl = {}\n",
            quoted(file)
        ));
    }
    out
}

/// Write `import` into `dir` (created when missing).
pub fn write(import: &Import, dir: &Path, force: bool) -> Result<(), Failure> {
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::usage(format!(
            "{} is a file, not a directory: give -o a directory to write the modules to",
            dir.display()
        )));
    }
    if dir.is_dir() {
        let entries = std::fs::read_dir(dir).map_err(|e| Failure::unreadable(dir, &e))?;
        let mut ours = Vec::new();
        let mut any = false;
        for entry in entries {
            let entry = entry.map_err(|e| Failure::unreadable(dir, &e))?;
            any = true;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_file()
                && (name.ends_with(".strata") || name == "IMPORT.md" || name == "strata.toml")
            {
                ours.push(path);
            }
        }
        if any && !force {
            return Err(Failure::usage(format!(
                "{} is not empty: write to a new directory, or pass --force to replace the files an import writes there",
                dir.display()
            )));
        }
        for p in ours {
            std::fs::remove_file(&p).map_err(|e| {
                Failure::environment(format!("cannot remove {}: {}", p.display(), io_reason(&e)))
            })?;
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        Failure::environment(format!(
            "cannot create {}: {}",
            dir.display(),
            io_reason(&e)
        ))
    })?;
    let mut all: Vec<(String, String)> = import.files.clone();
    all.push(("strata.toml".into(), strata_toml(&import.report, None)));
    all.push(("IMPORT.md".into(), import.report.markdown()));
    for (name, text) in all {
        let path = dir.join(&name);
        std::fs::write(&path, text).map_err(|e| {
            Failure::environment(format!(
                "cannot write {}: {}",
                path.display(),
                io_reason(&e)
            ))
        })?;
    }
    Ok(())
}
