//! Link options for the `strata` binary that make it start faster.
//!
//! `strata` links DuckDB (C++), so on Linux with glibc a plain link makes
//! every start pay for loading `libstdc++.so` (about 4,300 symbol lookups)
//! and for 53,000 relative relocations of a position-independent executable,
//! each touching a page: about 4 ms before `main`, against 1 ms for a small
//! Rust program. `strata check` of a whole module can take 20 ms, so that is
//! a fifth of it. Two link options remove most of it (see bench/README.md):
//!
//! * libstdc++ is linked statically when the C++ compiler has `libstdc++.a`
//!   (the binary also stops depending on the machine's libstdc++ version);
//! * the binary is linked as a fixed-address executable (`-no-pie`), as Go
//!   links its binaries: its own code is not relocated at start, while heap,
//!   stack and mappings are still randomized.
//!
//! A third keeps the code that runs before `main` together: DuckDB has 59
//! static initializers, which the linker (rust-lld) scattered over 47
//! different 64 KB stretches of the 46 MB of code, each a page fault at
//! every start. With `-z keep-text-section-prefix` their `.text.startup`
//! sections stay one section (3 stretches): `strata --version` takes 163
//! page faults instead of 202.
//!
//! A fourth links the C library statically too, when the C compiler has
//! its archives (glibc's `libc6-dev` ships them): a start then loads no
//! shared library at all (`libc.so.6`, `libm.so.6`, `libgcc_s.so.1`: their
//! mapping, symbol lookups and start-up code). `strata --version` went from
//! 4.66 to 3.93 ms (median of 60 runs each, in turn). The standard library
//! asks for those libraries by name, in dynamic mode, so each name is
//! pointed at its archive by a one-line linker script in a directory given
//! to the link of `strata` alone (a test binary, linked without `-static`,
//! must not take them); `libgcc_s` (the unwinder) becomes `libgcc_eh.a`, as
//! in Rust's own static builds (`crt-static`). The functions of glibc that
//! load other libraries at run time (`dlopen`, user and host lookups) work
//! only where the same glibc is installed; `strata` calls none of them, and
//! DuckDB would only for extensions that are not built in, which `strata`
//! does not use.
//!
//! All four only change how the final binary is linked; no crate is
//! compiled differently. Set `STRATA_DYNAMIC_LINK=1` to link the default way.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=STRATA_DYNAMIC_LINK");
    println!("cargo:rerun-if-env-changed=CXX");
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" || target_env != "gnu" || env::var_os("STRATA_DYNAMIC_LINK").is_some() {
        return;
    }
    println!("cargo:rustc-link-arg-bin=strata=-no-pie");
    println!("cargo:rustc-link-arg-bin=strata=-Wl,-z,keep-text-section-prefix");
    let Some(out_dir) = env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    // `-lstdc++` (which DuckDB's build asks for), like every `-l`, takes the
    // first directory holding the library in any form, so a directory with
    // only the archive makes that one library static (for the tests' binaries
    // too).
    match archive("libstdc++.a") {
        Some(archive) => {
            let dir = out_dir.join("static-libstdcxx");
            let made = fresh_dir(&dir)
                .and_then(|()| std::fs::copy(&archive, dir.join("libstdc++.a")).map(|_| ()));
            match made {
                Ok(()) => println!("cargo:rustc-link-search=native={}", dir.display()),
                Err(e) => println!(
                    "cargo:warning=libstdc++ linked dynamically: cannot copy {}: {e}",
                    archive.display()
                ),
            }
        }
        None => println!(
            "cargo:warning=libstdc++ linked dynamically: the C++ compiler has no libstdc++.a"
        ),
    }
    // The C library only for `strata` itself: a test binary, linked without
    // `-static`, must not take glibc's archives.
    let dir = out_dir.join("static-libc");
    match link_libc_statically(&dir) {
        Ok(()) => {
            println!("cargo:rustc-link-arg-bin=strata=-L{}", dir.display());
            println!("cargo:rustc-link-arg-bin=strata=-static");
        }
        Err(why) => println!("cargo:warning=the C library is linked dynamically: {why}"),
    }
}

/// The libraries the standard library links on Linux with glibc, each with
/// the archive that replaces it in a static link.
const C_LIBRARIES: [(&str, &str); 7] = [
    ("c", "libc.a"),
    ("m", "libm.a"),
    ("dl", "libdl.a"),
    ("rt", "librt.a"),
    ("pthread", "libpthread.a"),
    ("util", "libutil.a"),
    ("gcc_s", "libgcc_eh.a"),
];

/// Write, in `dir`, a linker script `lib<name>.so` naming the archive of
/// each library of [`C_LIBRARIES`]; an error (and nothing written) when the
/// compiler lacks one of the archives.
fn link_libc_statically(dir: &Path) -> Result<(), String> {
    fresh_dir(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut scripts = Vec::new();
    for (name, file) in C_LIBRARIES {
        let archive = archive(file).ok_or_else(|| format!("the C compiler has no {file}"))?;
        let path = archive
            .to_str()
            .ok_or_else(|| format!("{} is not UTF-8", archive.display()))?;
        if path.contains(['"', '\n']) {
            return Err(format!("cannot name {path} in a linker script"));
        }
        scripts.push((
            dir.join(format!("lib{name}.so")),
            format!("INPUT(\"{path}\")\n"),
        ));
    }
    for (script, text) in scripts {
        std::fs::write(&script, text)
            .map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    }
    Ok(())
}

/// Make `dir` empty: files left by an earlier build would be linked too.
fn fresh_dir(dir: &Path) -> std::io::Result<()> {
    if dir.symlink_metadata().is_ok() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)
}

/// The archive `file` (such as `libc.a`) of the C++ compiler DuckDB is
/// built with, if it has one.
fn archive(file: &str) -> Option<PathBuf> {
    let cxx = env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    let out = Command::new(cxx)
        .arg(format!("-print-file-name={file}"))
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // Without the file, gcc prints the bare name back.
    (path.is_absolute() && Path::new(&path).is_file()).then_some(path)
}
