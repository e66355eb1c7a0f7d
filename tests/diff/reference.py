"""Side by side: `strata diff` and strata-lang 0.1.6's `diff --json` on every
pair of tests/diff/cases. Prints one row per pair: each tool's exit code and
the changes it calls breaking. Not a test (the two are expected to differ
where strata-lang is wrong); the differences are explained in the issue note.

    python3 tests/diff/reference.py [STRATA] [STRATA_LANG]
"""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
home = os.path.expanduser("~")
strata = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.environ.get("CARGO_TARGET_DIR", os.path.join(home, ".cache/strata-target")), "release/strata")
reference = sys.argv[2] if len(sys.argv) > 2 else os.path.join(home, ".cache/strata-ref/bin/strata")


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        return p.returncode, None


def ours(cwd):
    code, doc = run([strata, "diff", "--format", "json", "old.strata", "new.strata"], cwd)
    broken = []
    for c in doc["changes"]:
        if c["breaking"]:
            node = c["node"].split(":", 1)[1]
            broken.append(f"{node}.{c['column']}" if c.get("column") else f"{node} ({c['kind']})")
    return code, broken


def theirs(cwd):
    code, doc = run([reference, "diff", "--json", "old.strata", "new.strata"], cwd)
    if doc is None:
        return code, ["(no JSON: crashed)"]
    broken = [f"{b['model']}.{b['col']} ({b['kind']})" for b in doc.get("breaking", [])]
    return code, broken


rows = []
same = 0
for case in sorted(os.listdir(os.path.join(here, "cases"))):
    cwd = os.path.join(here, "cases", case)
    (a, x), (b, y) = ours(cwd), theirs(cwd)
    verdict = "same" if (a == 0) == (b == 0) else "DIFFERS"
    same += verdict == "same"
    rows.append((case, a, "; ".join(x) or "-", b, "; ".join(y) or "-", verdict))
print("| pair | strata exit | strata breaking | strata-lang exit | strata-lang breaking | gate |")
print("|---|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(str(v) for v in r) + " |")
print(f"\n{same} of {len(rows)} pairs get the same gate verdict (exit 0 or not).")
