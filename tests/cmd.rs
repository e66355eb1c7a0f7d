//! trycmd snapshot cases, in a folder per command family (`check/`,
//! `lint/`, `compile/`, `run/`, `cli/`, ...): every `tests/cmd/*/*.toml`
//! runs the `strata` binary and compares its exit code, stdout and stderr
//! with the files beside it; a `tests/cmd/*/*.trycmd` file runs several
//! commands in one temporary directory (and compares files with its `.out/`
//! directory).
//! Regenerate snapshots with `TRYCMD=overwrite cargo test --release --test cmd`.

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .env("NO_COLOR", "1")
        .case("../tests/cmd/*/*.toml")
        .case("../tests/cmd/*/*.trycmd");
}
