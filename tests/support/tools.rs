//! What the test files that run `strata` and outside tools share: the
//! binary, the workspace root, and the outside tools (Python with sqlglot or
//! jsonschema, PostgreSQL): where to find them, and what a missing one
//! means. Included by the test files that need it (`#[path =
//! "support/tools.rs"] mod tools;`).

use std::path::{Path, PathBuf};

/// The `strata` binary under test.
pub const STRATA: &str = env!("CARGO_BIN_EXE_strata");

/// The workspace root (the tests run from cli/).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// Whether the tests run under CI (`CI` set to something other than `0` or
/// `false`), where every tool must be there.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// A missing tool: a failure under CI, else a skip with a message.
pub fn unavailable(what: &str) {
    assert!(!in_ci(), "CI is set but {what}; .ci/run installs it");
    eprintln!("skipping: {what}");
}

/// The Python interpreter: `$STRATA_PYTHON`, else the virtualenv `.ci/run`
/// installs the Python tools into (`~/.cache/strata-venv`), else `python3`.
pub fn python() -> String {
    if let Ok(p) = std::env::var("STRATA_PYTHON") {
        return p;
    }
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let venv = Path::new(&home).join(".cache/strata-venv/bin/python");
    if venv.exists() {
        return venv.display().to_string();
    }
    "python3".into()
}

/// The Python interpreter ([`python`]) when it can import every module
/// named; otherwise `None`, the test being [`unavailable`].
pub fn python_with(modules: &[&str]) -> Option<String> {
    let python = python();
    let imports = std::process::Command::new(&python)
        .args(["-c", &format!("import {}", modules.join(", "))])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if imports {
        return Some(python);
    }
    unavailable(&format!("`{python}` cannot import {}", modules.join(", ")));
    None
}

/// The reference implementation's CLI (strata-lang 0.1.6): `$STRATA_LANG`,
/// else the virtualenv `.ci/run` installs it into (`~/.cache/strata-ref`).
pub fn strata_lang() -> Option<PathBuf> {
    let path = match std::env::var_os("STRATA_LANG") {
        Some(p) => PathBuf::from(p),
        None => {
            let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
            Path::new(&home).join(".cache/strata-ref/bin/strata")
        }
    };
    path.is_file().then_some(path)
}

/// Node.js (`$STRATA_NODE`, else `node`) and a `node_modules` directory
/// holding every one of `packages`: `$ENV` when set, else
/// `~/.cache/strata-DIR/node_modules` (where `.ci/run` installs them with
/// `npm ci`), else `tests/DIR/node_modules`. `None` (after
/// [`unavailable`]) when either is missing.
pub fn node_packages(env: &str, dir: &str, packages: &[&str]) -> Option<(String, PathBuf)> {
    let node = std::env::var("STRATA_NODE").unwrap_or_else(|_| "node".to_string());
    let works = std::process::Command::new(&node)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !works {
        unavailable(&format!("Node.js ({node}) is not available"));
        return None;
    }
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let candidates = [
        std::env::var(env).ok().map(PathBuf::from),
        Some(Path::new(&home).join(format!(".cache/strata-{dir}/node_modules"))),
        Some(root().join(format!("tests/{dir}/node_modules"))),
    ];
    let found = candidates.into_iter().flatten().find(|modules| {
        packages
            .iter()
            .all(|p| modules.join(p).join("package.json").is_file())
    });
    match found {
        Some(modules) => Some((node, modules)),
        None => {
            unavailable(&format!(
                "the npm packages of tests/{dir} are not installed (npm ci in tests/{dir})"
            ));
            None
        }
    }
}

/// A test CA (`ca.pem`) and a server certificate it signed for `localhost`
/// (`server.crt`, its key `server.key`), made by openssl (P-256) in `dir`.
pub fn test_certificates(dir: &Path) -> Result<(), String> {
    let openssl = |args: &[&str]| -> Result<(), String> {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("cannot run openssl: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "openssl {args:?} exited {}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let ca = [
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "3",
        "-subj",
        "/CN=strata-test-ca",
    ];
    openssl(&[&["req", "-x509"][..], &ec, &ca].concat())?;
    let server = [
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ];
    openssl(&[&["req"][..], &ec, &server].concat())?;
    std::fs::write(dir.join("san.ext"), "subjectAltName=DNS:localhost\n")
        .map_err(|e| format!("san.ext: {e}"))?;
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "3",
        "-extfile",
        "san.ext",
    ])
}
