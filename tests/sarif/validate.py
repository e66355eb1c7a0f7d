"""Validate SARIF logs against the official SARIF 2.1.0 schema.

    python validate.py SCHEMA LOG...

Prints every violation (file, JSON path, message) and exits 1 when there is
one; exits 2 when the validator cannot check formats (a missing package
must not make the check pass silently).
"""

import json
import sys

import jsonschema


def main(argv):
    if len(argv) < 3:
        print("usage: validate.py SCHEMA LOG...", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    checker = jsonschema.FormatChecker()
    # strata writes URIs, not dates: the URI formats must be checked.
    missing = [f for f in ("uri", "uri-reference") if f not in checker.checkers]
    if missing:
        print(f"jsonschema cannot check the formats {missing}: install rfc3986-validator", file=sys.stderr)
        return 2
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=checker)
    bad = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            log = json.load(f)
        for error in sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path)):
            bad += 1
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"{path}: /{where}: {error.message}")
    print(f"validated {len(argv) - 2} SARIF logs, {bad} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
