//! The helpers of `main.rs`, on small inputs.

use super::*;

#[test]
fn helpers_find_codes_where_they_should() {
    assert_eq!(file_prefix("E040"), "e040");
    assert_eq!(file_prefix("ParseError"), "parse_error");

    assert_eq!(
        rule_attribute_codes(
            "/// See `#[rule(E041)]`.\n#[rule(E040)]\npub struct A;\n#[rule( crate::W020, )]\nfn b() {}"
        ),
        ["E040", "crate::W020"]
    );
    assert_eq!(
        code_declarations(
            "pub const W020: Code = Code::warning(\n    \"W020\",\n    \"x\",\n);\n\
             const E: Code = Code::error(\"E900\", \"y\", Phase::Check);\n\
             let c = Code::error(name, \"z\", p);"
        ),
        ["E900", "W020"]
    );

    let source = "impl Diagnostic {\n    fn f() -> Diagnostic {\n        Diagnostic {\n\
                  // Diagnostic::external(\n\
                  let j = JsonDiagnostic {\n\
                  Diagnostic::external(code, s, span, m)\n\
                  impl From<X> for Diagnostic {\n\
                  pub struct Diagnostic {\n\
                  let d = Diagnostic { code, ..d };\n";
    assert_eq!(undeclared_code_sites(source), [3, 6, 9]);

    assert_eq!(
        first_arg("bin.name = \"strata\"\nargs = [\"rules\", \"--format\", \"json\"]"),
        Some("rules")
    );
    assert_eq!(first_arg("args = \"check e040.strata\""), Some("check"));
    assert_eq!(first_arg("bin.name = \"strata\""), None);
}
