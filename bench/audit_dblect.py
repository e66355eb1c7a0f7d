#!/usr/bin/env python3
"""`strata audit` beside dblect 0.1.0 on the same built dbt projects.

For each PROJECT (a dbt project already built with dbt on DuckDB:
`target/manifest.json` and the DuckDB file its profile names):

* joins found: every join `strata audit` lists; dblect lists only findings;
* fan-outs reported statically: strata's `no evidence` joins, dblect's
  `join_fanout` findings;
* checked on the data, by this script with a plain SQL count of duplicate
  key groups (NULL keys left out) on dbt's warehouse, read-only: how many
  of each tool's reports fan out today (true) and how many are unique
  today (false positives), the true fan-outs dblect reports that strata
  does not, and whether strata's own `--data` verdict agrees with the
  plain count for every join it counted on a relation;
* wall time: the median of ROUNDS runs of each, interleaved.

Run with a python that has `duckdb` (the dbt virtualenv of `.ci/run`):

    ~/.cache/strata-dbt/bin/python bench/audit_dblect.py \\
        --strata $CARGO_TARGET_DIR/release/strata \\
        --dblect ~/.cache/strata-dblect/bin/dblect PROJECT...

dblect needs Python >= 3.13: `python3.13 -m venv ~/.cache/strata-dblect &&
~/.cache/strata-dblect/bin/pip install dblect==0.1.0`.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import duckdb


def timed(cmd, cwd):
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t, p


def relations(manifest):
    """name -> (relation name as dbt built it) for models, seeds and sources."""
    out = {}
    for n in list(manifest["nodes"].values()) + list(manifest["sources"].values()):
        if n.get("resource_type") not in ("model", "seed", "source"):
            continue
        rel = n.get("relation_name")
        if not rel:
            continue
        out.setdefault(n["name"], rel)
        if n["resource_type"] == "source":
            out.setdefault(f'{n["source_name"]}.{n["name"]}', rel)
    return out


def duplicate_groups(con, relation, keys, cache):
    k = (relation, tuple(keys))
    if k not in cache:
        cols = ", ".join(f'"{c}"' for c in keys)
        not_null = " AND ".join(f'"{c}" IS NOT NULL' for c in keys)
        try:
            cache[k] = con.execute(
                f"SELECT count(*) FROM (SELECT {cols} FROM {relation} WHERE {not_null} "
                f"GROUP BY {cols} HAVING count(*) > 1)"
            ).fetchone()[0]
        except duckdb.Error:
            cache[k] = None
    return cache[k]


def warehouse_path(project, profiles_dir):
    """The DuckDB path of the project's profile (target `dev` or default)."""
    import yaml  # dbt brings PyYAML

    proj = yaml.safe_load(open(os.path.join(project, "dbt_project.yml")))
    for d in [profiles_dir, project, os.path.expanduser("~/.dbt")]:
        if d and os.path.exists(os.path.join(d, "profiles.yml")):
            profiles = yaml.safe_load(open(os.path.join(d, "profiles.yml")))
            prof = profiles[proj["profile"]]
            out = prof["outputs"][prof.get("target", "dev")]
            path = out.get("path", "")
            return path if os.path.isabs(path) else os.path.join(project, path)
    raise SystemExit(f"{project}: no profiles.yml names its warehouse")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("projects", nargs="+")
    ap.add_argument("--strata", default=os.path.expanduser("~/.cache/strata-target/release/strata"))
    ap.add_argument("--dblect", default=os.path.expanduser("~/.cache/strata-dblect/bin/dblect"))
    ap.add_argument("--profiles-dir", default=os.environ.get("DBT_PROFILES_DIR"))
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    rows = []
    for project in a.projects:
        project = os.path.abspath(project)
        name = os.path.basename(project.rstrip("/"))
        static = [a.strata, "audit", project, "--format", "json"]
        data = static + ["--data"]
        dblect = [a.dblect, "check", project, "--format", "json", "--no-fail"]
        times = {"static": [], "data": [], "dblect": []}
        out = {}
        for _ in range(a.rounds):
            for key, cmd in (("static", static), ("data", data), ("dblect", dblect)):
                t, p = timed(cmd, project)
                if p.returncode not in (0, 1, 3):
                    sys.exit(f"{name}: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
                times[key].append(t)
                out[key] = p.stdout
        s_static = json.loads(out["static"])
        s_data = json.loads(out["data"])
        d = json.loads(out["dblect"])
        manifest = json.load(open(os.path.join(project, "target", "manifest.json")))
        rels = relations(manifest)
        con = duckdb.connect(warehouse_path(project, a.profiles_dir), read_only=True)
        cache = {}

        def truth(relation_name, keys):
            rel = rels.get(relation_name)
            if rel is None:
                return None
            n = duplicate_groups(con, rel, keys, cache)
            return None if n is None else n > 0

        # strata: a join is (model, joined relation, key columns of it).
        def strata_key(j):
            t = j.get("test") or {}
            r = t.get("relation") or {}
            rel = r.get("name") if r.get("kind") != "source" else f'{r.get("source")}.{r.get("table")}'
            return (j["model"], rel, tuple(sorted(t.get("columns") or [])))

        s_reported = [j for j in s_static["joins"] if j["verdict"] == "no_evidence"]
        s_today = {strata_key(j) for j in s_data["joins"] if j["verdict"] == "fans_out_today"}
        s_true = s_false = s_unverified = 0
        for j in s_reported:
            _, rel, keys = strata_key(j)
            v = truth(rel, list(keys)) if rel else None
            s_true += v is True
            s_false += v is False
            s_unverified += v is None
        # strata's --data verdict against the plain count, where it counted a relation.
        disagree = []
        for j in s_data["joins"]:
            if j.get("data") is None:
                continue
            _, rel, keys = strata_key(j)
            v = truth(rel, list(keys)) if rel else None
            if v is not None and v != (j["data"]["duplicate_groups"] > 0):
                disagree.append((j["model"], rel, keys))
        fan = re.compile(r"JOIN to (\S+) on \(([^)]*)\)")
        d_reported = [f for f in d["findings"] if f["kind"] == "join_fanout"]
        d_true = d_false = d_unverified = 0
        missed = []
        for f in d_reported:
            m = fan.search(f["message"])
            model = f["model_unique_id"].split(".")[-1]
            if not m:
                d_unverified += 1
                continue
            rel, keys = m.group(1), sorted(k.strip() for k in m.group(2).split(","))
            v = truth(rel, keys)
            d_true += v is True
            d_false += v is False
            d_unverified += v is None
            if v is True and (model, rel, tuple(keys)) not in s_today:
                missed.append(f"{model}: {rel}({', '.join(keys)})")
        rows.append(
            {
                "project": name,
                "models": s_static["models"],
                "joins": len(s_static["joins"]),
                "strata": (len(s_reported), s_true, s_false, s_unverified, len(s_today)),
                "dblect": (len(d_reported), d_true, d_false, d_unverified),
                "missed": missed,
                "disagree": disagree,
                "ms": {k: statistics.median(v) * 1000 for k, v in times.items()},
            }
        )
    print("| project | models | joins (strata) | strata: no evidence (true / false / not checkable) | strata --data: fans out today | dblect join_fanout (true / false / not checkable) | dblect's true fan-outs strata misses | strata --data vs plain count | strata static ms | strata --data ms | dblect ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        s, dd, ms = r["strata"], r["dblect"], r["ms"]
        agree = "agrees" if not r["disagree"] else f"{len(r['disagree'])} disagree"
        print(
            f"| {r['project']} | {r['models']} | {r['joins']} | {s[0]} ({s[1]} / {s[2]} / {s[3]}) | {s[4]} "
            f"| {dd[0]} ({dd[1]} / {dd[2]} / {dd[3]}) | {len(r['missed'])} | {agree} "
            f"| {ms['static']:.0f} | {ms['data']:.0f} | {ms['dblect']:.0f} |"
        )
        for m in r["missed"]:
            print(f"  missed by strata: {m}", file=sys.stderr)
        for x in r["disagree"]:
            print(f"  --data disagrees with the plain count: {x}", file=sys.stderr)


if __name__ == "__main__":
    main()
