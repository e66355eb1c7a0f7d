//! trycmd cases for the `strata-example` binary (strata with the example
//! rules linked in): every `tests/cmd/*.toml` here runs it.

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .register_bin(
            "strata-example",
            std::path::Path::new(env!("CARGO_BIN_EXE_strata-example")),
        )
        .env("NO_COLOR", "1")
        .case("tests/cmd/*.toml");
}
