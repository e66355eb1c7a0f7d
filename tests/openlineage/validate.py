"""Validate OpenLineage events against the official OpenLineage schemas.

    python validate.py SCHEMA_DIR EVENTS.jsonl...

Every line of every file is one event. Each is checked against
OpenLineage.json (the RunEvent), and each facet whose `_schemaURL` names
one of the facet schemas in SCHEMA_DIR against that schema too (its `$ref`s
to OpenLineage.json resolved locally, nothing fetched). A facet with a
standard name (schema, columnLineage, ...) whose schema is not there is an
error; strata's own `strata_run` facet is checked as a RunFacet only.
Formats are checked: `uri` (rfc3986-validator), `uuid`, and `date-time`
(RFC 3339, checked here). Prints every violation; exits 1 when there is
one, 2 when the formats cannot be checked.
"""

import datetime
import glob
import json
import os
import sys

import jsonschema
from referencing import Registry, Resource

CUSTOM = {"strata_run"}


def main(argv):
    if len(argv) < 3:
        print("usage: validate.py SCHEMA_DIR EVENTS.jsonl...", file=sys.stderr)
        return 2
    schemas = {}
    for path in glob.glob(os.path.join(argv[1], "*.json")):
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
        schemas[s["$id"]] = s
    registry = Registry().with_resources(
        (i, Resource.from_contents(s)) for i, s in schemas.items()
    )
    checker = jsonschema.FormatChecker()

    @checker.checks("date-time", raises=ValueError)
    def date_time(value):
        if not isinstance(value, str):
            return True
        if "T" not in value or not (value.endswith("Z") or value[-6] in "+-"):
            raise ValueError("not RFC 3339")
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return True

    missing = [f for f in ("uri", "uuid") if f not in checker.checkers]
    if missing:
        print(f"jsonschema cannot check the formats {missing}: install rfc3986-validator", file=sys.stderr)
        return 2
    root = schemas["https://openlineage.io/spec/2-0-2/OpenLineage.json"]
    cls = jsonschema.validators.validator_for(root)
    validate = lambda schema, doc: cls(schema, registry=registry, format_checker=checker).iter_errors(doc)
    bad = events = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        for n, line in enumerate(lines, 1):
            events += 1
            event = json.loads(line)
            errors = list(validate(root, event))
            for holder, facets in facet_groups(event):
                for name, facet in facets.items():
                    url = facet.get("_schemaURL", "").split("#")[0]
                    if name in CUSTOM:
                        continue
                    if url not in schemas:
                        print(f"{path}:{n}: {holder}.{name}: no vendored schema for {url!r}")
                        bad += 1
                        continue
                    errors += validate(schemas[url], {name: facet})
            for e in errors:
                bad += 1
                where = "/".join(str(p) for p in e.absolute_path)
                print(f"{path}:{n}: /{where}: {e.message}")
    print(f"validated {events} OpenLineage events, {bad} violations")
    return 1 if bad or not events else 0


def facet_groups(event):
    yield "run.facets", event.get("run", {}).get("facets", {})
    yield "job.facets", event.get("job", {}).get("facets", {})
    for side, extra in (("inputs", "inputFacets"), ("outputs", "outputFacets")):
        for i, d in enumerate(event.get(side, [])):
            yield f"{side}[{i}].facets", d.get("facets", {})
            yield f"{side}[{i}].{extra}", d.get(extra, {})


if __name__ == "__main__":
    sys.exit(main(sys.argv))
