#!/usr/bin/env python3
"""Benchmark of a warehouse that grows with the change (issue 52).

`orders` (N rows) and `customers` (M rows) as gen_run_data.py makes them,
then RUNS times: append P % of N new orders, run strata, and run the bare
statements a user would write by hand on a copy of the same data, in turn:

* `append`: the model `enriched_inc`, an `append` incremental model over
  the join of orders and customers (cdc column order_id). Bare: INSERT the
  joined rows above the target's greatest order_id, and the duplicate-group
  count of customers.
* `rebuilt`: the seed's `enriched`, rebuilt every run. Bare: CREATE OR
  REPLACE the joined table, and the same count.

strata.toml declares `[sources.orders] append-column = "order_id"` (leave
it out with --no-config for a binary from before issue 52, which does not
know `[sources]`). After the runs: the warehouse's size, then the default
`strata gc --apply` (keeps 10 runs and every run of the last 30 days: all
of them here) and its size, then `strata gc --compact`. "One copy of the
data" is the bare warehouse (orders, customers and the model's table, no
history), written afresh (DuckDB: COPY FROM DATABASE into a new file;
PostgreSQL: the schema's tables).

usage:
  bench/delta.py [--engine duckdb|postgres] [--orders N] [--customers M]
                 [--runs R] [--append-pct P] [--scenario append|rebuilt|both]
                 [--strata BIN] [--no-config] [--label TEXT]
                 [--host H --port P --user U]   (postgres; else a throw-away
                                                 cluster is started)
Run it with a python that has duckdb (e.g. ~/.cache/strata-ref/bin/python).
Per-run figures go to bench/out/delta/<label>-<engine>-<scenario>.csv.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import duckdb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out", "delta")

MODULE = """source orders(ns: "app", dataset: "orders") {
  columns: { order_id: int64, customer_id: int64, amount: float64 }
}
source customers(ns: "app", dataset: "customers") {
  columns: { customer_id: int64 nonnull, country: string }
}
model enriched {
  from orders
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  select { order_id = order_id, country = customers.country }
}
model enriched_inc {
  from orders
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  incremental merge_strategy: append cdc_column: order_id
  select { order_id = order_id, country = customers.country }
}
"""

JOIN = ("SELECT o.order_id, c.country FROM orders o "
        "LEFT JOIN customers c ON o.customer_id = c.customer_id")
LAST_TIMINGS = "SELECT timings FROM _strata_runs ORDER BY started_at DESC LIMIT 1"
CHECK = ("SELECT COUNT(*) FROM (SELECT 1 FROM customers WHERE customer_id IS NOT NULL "
         "GROUP BY customer_id HAVING COUNT(*) > 1) t")


def bare_sql(scenario, engine):
    if scenario == "append":
        return [f"INSERT INTO t {JOIN} WHERE o.order_id > (SELECT MAX(order_id) FROM t)", CHECK]
    if engine == "duckdb":
        return [f"CREATE OR REPLACE TABLE t AS {JOIN}", CHECK]
    return ["DROP TABLE IF EXISTS t", f"CREATE TABLE t AS {JOIN}", CHECK]


def mb(b):
    return f"{b / 1e6:,.1f} MB"


def timed(cmd, cwd, may_fail=False):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        if may_fail:
            return None, ""
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return dt, p.stdout


class DuckDbSide:
    """A DuckDB file: strata's warehouse, or the bare one."""

    def __init__(self, path):
        self.path = path

    def size(self):
        return sum(os.path.getsize(p) for p in (self.path, self.path + ".wal") if os.path.exists(p))

    def exec(self, statements):
        con = duckdb.connect(self.path)
        con.execute("BEGIN")
        for s in statements:
            con.execute(s).fetchall()
        con.execute("COMMIT")
        con.close()

    def timed_exec(self, statements):
        t0 = time.perf_counter()
        self.exec(statements)
        return time.perf_counter() - t0

    def last_timings(self):
        """What the last run recorded it cost (None before the column)."""
        con = duckdb.connect(self.path, read_only=True)
        try:
            row = con.execute(LAST_TIMINGS).fetchone()
        except duckdb.Error:
            row = None
        con.close()
        return row[0] if row else None

    def fresh_copy_size(self, work):
        """The size of the same tables written afresh (no free blocks)."""
        copy = os.path.join(work, "copy.duckdb")
        for p in (copy, copy + ".wal"):
            if os.path.exists(p):
                os.remove(p)
        con = duckdb.connect()
        con.execute(f"ATTACH '{self.path}' AS src (READ_ONLY); ATTACH '{copy}' AS fresh; "
                    "COPY FROM DATABASE src TO fresh; DETACH fresh; DETACH src")
        con.close()
        size = os.path.getsize(copy)
        os.remove(copy)
        return size

    def table_bytes(self, tables):
        con = duckdb.connect(self.path, read_only=True)
        block = con.execute("SELECT block_size FROM pragma_database_size() "
                            "WHERE database_name = current_database()").fetchone()[0]
        blocks = set()
        for t in tables:
            blocks |= {r[0] for r in con.execute(
                f"SELECT block_id FROM pragma_storage_info('{t}') WHERE block_id >= 0").fetchall()}
        con.close()
        return len(blocks) * block


class PgSide:
    """A schema of a PostgreSQL server."""

    def __init__(self, a, schema):
        self.a, self.schema = a, schema

    def psql(self, sql, schema=None):
        a = self.a
        return subprocess.run(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-h", a.host, "-p", str(a.port),
             "-U", a.user, "-d", "postgres"],
            input=sql, text=True, capture_output=True, check=True,
            env={**os.environ, "PGOPTIONS": f"-c search_path={schema or self.schema}"}).stdout

    def size(self):
        return int(self.psql(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            f"WHERE n.nspname = '{self.schema}' AND c.relkind IN ('r', 'm')").strip())

    def exec(self, statements):
        self.psql("BEGIN;\n" + ";\n".join(statements) + ";\nCOMMIT;")

    def timed_exec(self, statements):
        t0 = time.perf_counter()
        self.exec(statements)
        return time.perf_counter() - t0

    def last_timings(self):
        try:
            return self.psql(LAST_TIMINGS).strip() or None
        except subprocess.CalledProcessError:
            return None

    def fresh_copy_size(self, _work):
        return self.size()

    def url(self):
        a = self.a
        return f"postgres://{a.user}@{a.host}:{a.port}/postgres?schema={self.schema}&sslmode=disable"


def start_pg():
    """A throw-away cluster (fsync off) on a free port; returns (port, stop)."""
    import socket
    bins = sorted(d for d in os.listdir("/usr/lib/postgresql") if d.isdigit())
    bin_dir = f"/usr/lib/postgresql/{bins[-1]}/bin"
    data = tempfile.mkdtemp(prefix="strata-bench-pg-")
    shutil.chown(data, "postgres")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    run = lambda *c: subprocess.run(["runuser", "-u", "postgres", "--", *c], check=True,  # noqa: E731
                                    capture_output=True)
    run(f"{bin_dir}/initdb", "-D", data, "-A", "trust", "-U", "postgres")
    run(f"{bin_dir}/pg_ctl", "-D", data, "-l", f"{data}/log", "-w", "-o",
        f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off -c "
        "synchronous_commit=off -c full_page_writes=off -c shared_buffers=1GB -c max_wal_size=4GB",
        "start")

    def stop():
        run(f"{bin_dir}/pg_ctl", "-D", data, "-m", "fast", "stop")
        shutil.rmtree(data, ignore_errors=True)
    return port, stop


def make_data(a, engine, work, pg=None):
    """The data, once: a DuckDB file, or a schema to copy."""
    n, m = a.orders, a.customers
    if engine == "duckdb":
        src = os.path.join(OUT, f"data_{n}_{m}.duckdb")
        if not os.path.exists(src):
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_run_data.py"), src, str(n), str(m)],
                           check=True, stdout=subprocess.DEVNULL)
        return src
    pg.psql(f"""DROP SCHEMA IF EXISTS bench_src CASCADE; CREATE SCHEMA bench_src;
CREATE TABLE bench_src.orders AS SELECT CAST(i AS BIGINT) AS order_id, CAST(i % {m} + 1 AS BIGINT) AS customer_id,
  CAST(round(CAST(random() * 1000 AS NUMERIC), 2) AS DOUBLE PRECISION) AS amount FROM generate_series(0, {n - 1}) AS g(i);
CREATE TABLE bench_src.customers AS SELECT CAST(i + 1 AS BIGINT) AS customer_id,
  (ARRAY['FR', 'DE', 'US', 'JP', 'BR', 'IN'])[i % 6 + 1] AS country FROM generate_series(0, {m - 1}) AS g(i);
VACUUM ANALYZE bench_src.orders; VACUUM ANALYZE bench_src.customers;""", "public")
    return "bench_src"


def side_from(a, engine, src, name, work):
    if engine == "duckdb":
        path = os.path.join(work, f"{name}.duckdb")
        for p in (path, path + ".wal", path + ".inputs"):
            if os.path.isdir(p):
                shutil.rmtree(p)
            elif os.path.exists(p):
                os.remove(p)
        shutil.copyfile(src, path)
        return DuckDbSide(path)
    side = PgSide(a, name)
    side.psql(f"""DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name};
CREATE TABLE {name}.orders AS SELECT * FROM {src}.orders;
CREATE TABLE {name}.customers AS SELECT * FROM {src}.customers;
VACUUM ANALYZE {name}.orders; VACUUM ANALYZE {name}.customers;""", "public")
    return side


def append_sql(engine, start, k, m):
    if engine == "duckdb":
        rows = f"range({start}, {start + k}) r(i)"
        amount = "CAST(round(random() * 1000, 2) AS DOUBLE)"
    else:
        rows = f"generate_series({start}, {start + k - 1}) AS g(i)"
        amount = "CAST(round(CAST(random() * 1000 AS NUMERIC), 2) AS DOUBLE PRECISION)"
    return [f"INSERT INTO orders SELECT CAST(i AS BIGINT), CAST(i % {m} + 1 AS BIGINT), {amount} FROM {rows}"]


def scenario_run(a, engine, scenario, src, work, pg_args):
    model = "enriched_inc" if scenario == "append" else "enriched"
    ours = side_from(a, engine, src, "ours", work)
    bare = side_from(a, engine, src, "bare", work)
    target = ours.path if engine == "duckdb" else ours.url()
    with open(os.path.join(work, "m.strata"), "w") as f:
        f.write(MODULE)
    toml = os.path.join(work, "strata.toml")
    if a.no_config:
        if os.path.exists(toml):
            os.remove(toml)
    else:
        with open(toml, "w") as f:
            f.write('[sources.orders]\nappend-column = "order_id"\n')
    run_cmd = [a.strata, "run", "m.strata", model, "-o", target]
    bare.exec([f"CREATE TABLE t AS {JOIN}"])
    first, _ = timed(run_cmd, work)
    rows = []
    k = max(1, a.orders * a.append_pct // 100)
    next_id = a.orders
    for i in range(1, a.runs + 1):
        for side in (ours, bare):
            side.exec(append_sql(engine, next_id, k, a.customers))
        next_id += k
        t_ours, out = timed(run_cmd, work)
        t_bare = bare.timed_exec(bare_sql(scenario, engine))
        froze = next((line.strip() for line in out.splitlines() if line.strip().startswith("froze orders")), "")
        rows.append({"run": i, "ours_s": t_ours, "bare_s": t_bare, "ratio": t_ours / t_bare,
                     "size": ours.size(), "bare_size": bare.size(), "froze": froze})
        print(f"  {scenario} run {i:2d}: ours {t_ours:.3f} s, bare {t_bare:.3f} s "
              f"({t_ours / t_bare:.2f}x), warehouse {mb(ours.size())}; {froze}", file=sys.stderr)
    after_runs = ours.size()
    split = breakdown(ours.last_timings())
    t_gc, gc_out = timed([a.strata, "gc", "-o", target, "--apply", "--format", "json"], work)
    after_gc = ours.size()
    gc_json = json.loads(gc_out)
    # (A binary from before issue 52 has no --compact.)
    t_compact, compact_out = timed([a.strata, "gc", "-o", target, "--compact", "--format", "json"], work,
                                   may_fail=True) if engine == "duckdb" else (None, "{}")
    compact_json = json.loads(compact_out) if compact_out.strip().startswith("{") else {}
    after_compact = ours.size()
    one_copy = bare.fresh_copy_size(work)
    kept = compact_json.get("kept_bytes") or gc_json.get("kept_bytes")
    sources = ours.table_bytes(["orders", "customers"]) if engine == "duckdb" else None
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, f"{a.label}-{engine}-{scenario}.csv"), "w") as f:
        f.write("run,ours_s,bare_s,ratio,warehouse_bytes,bare_bytes,froze\n")
        for r in rows:
            f.write(f"{r['run']},{r['ours_s']:.4f},{r['bare_s']:.4f},{r['ratio']:.4f},{r['size']},"
                    f"{r['bare_size']},\"{r['froze']}\"\n")
    later = [r for r in rows if r["run"] > 1] or rows
    return {
        "scenario": scenario, "model": model, "first": first,
        "ours": statistics.median(r["ours_s"] for r in later),
        "bare": statistics.median(r["bare_s"] for r in later),
        "ratio": statistics.median(r["ratio"] for r in later),
        "after_runs": after_runs, "after_gc": after_gc, "gc_s": t_gc,
        "after_compact": after_compact, "compact_s": t_compact,
        "one_copy": one_copy, "kept": kept, "sources": sources,
        "split": split,
        "growth": (rows[-1]["size"] - rows[0]["size"]) / max(1, len(rows) - 1),
    }


def breakdown(timings):
    """The last run's time: its models' builds, their checks, and the rest
    (content hashes, freezes, snapshots' views, bookkeeping)."""
    if not timings:
        return None
    t = json.loads(timings)
    build = sum(m.get("build_ms", 0) for m in t.get("models", []))
    checks = sum(c.get("ms", 0) for m in t.get("models", []) for c in m.get("checks", []))
    total = t.get("total_ms", 0)
    return f"{total:.0f} ms: build {build:.0f}, checks {checks:.0f}, the rest {total - build - checks:.0f}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--engine", choices=["duckdb", "postgres"], default="duckdb")
    p.add_argument("--orders", type=int, default=20_000_000)
    p.add_argument("--customers", type=int, default=1_000_000)
    p.add_argument("--runs", type=int, default=None)
    p.add_argument("--append-pct", type=int, default=1)
    p.add_argument("--scenario", choices=["append", "rebuilt", "both"], default="both")
    p.add_argument("--strata", default=os.environ.get(
        "STRATA", os.path.expanduser("~/.cache/strata-target/release/strata")))
    p.add_argument("--no-config", action="store_true")
    p.add_argument("--label", default="ours")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=None)
    p.add_argument("--user", default="postgres")
    a = p.parse_args()
    a.runs = a.runs or (30 if a.engine == "duckdb" else 10)
    os.makedirs(OUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="strata-bench-delta-", dir=OUT)
    stop = None
    pg = None
    if a.engine == "postgres":
        if a.port is None:
            a.port, stop = start_pg()
        pg = PgSide(a, "public")
    try:
        src = make_data(a, a.engine, work, pg)
        scenarios = ["append", "rebuilt"] if a.scenario == "both" else [a.scenario]
        results = [scenario_run(a, a.engine, s, src, work, a) for s in scenarios]
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if stop:
            stop()
    version = subprocess.run([a.strata, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"\n{a.label}: {version}; {a.engine}; {a.orders:,} orders / {a.customers:,} customers; "
          f"{a.runs} runs, each after a {a.append_pct} % append; medians of runs 2..{a.runs}\n")
    print("| model | first run | run after an append | bare statements | ours / bare | "
          "warehouse after the runs | growth per run | after the default gc | one copy of the data | "
          "after gc / one copy | after `gc --compact` (time) | compacted / (kept + sources) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        need = (r["kept"] or 0) + (r["sources"] or 0)
        done = r["compact_s"] is not None
        compact = f"{mb(r['after_compact'])} ({r['compact_s']:.1f} s)" if done else "n/a"
        need_ratio = f"{r['after_compact'] / need:.2f}x" if done and r["kept"] else "n/a"
        print(f"| {r['model']} ({r['scenario']}) | {r['first']:.2f} s | {r['ours']:.3f} s | {r['bare']:.3f} s | "
              f"{r['ratio']:.2f}x | {mb(r['after_runs'])} | {mb(r['growth'])} | {mb(r['after_gc'])} | "
              f"{mb(r['one_copy'])} | {r['after_gc'] / r['one_copy']:.2f}x | {compact} | {need_ratio} |")
    for r in results:
        if r["split"]:
            print(f"\n{r['model']}, the last run: {r['split']}")


if __name__ == "__main__":
    main()
