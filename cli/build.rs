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
//!   links its binaries: its own code is not relocated at start, while shared
//!   libraries, heap and stack are still randomized.
//!
//! A third keeps the code that runs before `main` together: DuckDB has 59
//! static initializers, which the linker (rust-lld) scattered over 47
//! different 64 KB stretches of the 46 MB of code, each a page fault at
//! every start. With `-z keep-text-section-prefix` their `.text.startup`
//! sections stay one section (3 stretches): `strata --version` takes 163
//! page faults instead of 202.
//!
//! All three only change how the final binary is linked; no crate is
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
    match static_libstdcxx() {
        Some(archive) => {
            // `-lstdc++` (which DuckDB's build asks for) takes the first
            // directory holding libstdc++ in any form, so a directory with
            // only the archive makes that one library static.
            let dir = out_dir.join("static-libstdcxx");
            let link = dir.join("libstdc++.a");
            let made = std::fs::create_dir_all(&dir).and_then(|()| {
                if link.symlink_metadata().is_ok() {
                    std::fs::remove_file(&link)?;
                }
                std::fs::copy(&archive, &link).map(|_| ())
            });
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
}

/// The static libstdc++ of the C++ compiler DuckDB is built with, if it has one.
fn static_libstdcxx() -> Option<PathBuf> {
    let cxx = env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    let out = Command::new(cxx)
        .arg("-print-file-name=libstdc++.a")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // Without the library, gcc prints the bare name back.
    (path.is_absolute() && Path::new(&path).is_file()).then_some(path)
}
