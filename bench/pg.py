#!/usr/bin/env python3
"""Benchmark of `strata run` on PostgreSQL (issue 23), with DuckDB beside it.

The seed's `enriched` on N orders / M customers, in one run, interleaved:

* `strata run ... enriched -o postgres://...` against the bare statements
  through psql (BEGIN; CREATE TABLE AS the join; the duplicate-group count;
  COMMIT), both including their connection;
* strata's duplicate-group query (count and sample keys in one aggregation)
  against the bare duplicate-group count, in one psql session (`\\timing`);
* the same on a DuckDB file holding the same rows (python duckdb).

The first `strata run` on a warehouse freezes its inputs (copies them);
later runs of identical content reuse the frozen copies but hash the inputs
again. Both are reported.

usage: bench/pg.py --host H --port P [--user U] [--orders N] [--customers M] [--reps R]
       (PGPASSWORD in the environment when the server asks for one;
        python with duckdb: run it with a virtualenv's python)
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

import duckdb

STRATA = os.environ.get("STRATA", os.path.expanduser("~/.cache/strata-target/release/strata"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = os.path.join(ROOT, "examples/seed/orders.strata")

JOIN = ("SELECT o.order_id, c.country FROM orders o "
        "LEFT JOIN customers c ON o.customer_id = c.customer_id")
BARE_CHECK = ("SELECT COUNT(*) FROM (SELECT 1 FROM customers WHERE customer_id IS NOT NULL "
              "GROUP BY customer_id HAVING COUNT(*) > 1) t")
PG_CHECK = ('SELECT COUNT(*), CAST(to_json((array_agg(json_build_object(\'k\', json_build_array('
            'CAST("customer_id" AS VARCHAR)), \'n\', n) ORDER BY n DESC))[1:5]) AS TEXT), '
            'CAST(NULL AS BIGINT) FROM (SELECT "customer_id", COUNT(*) AS n FROM "customers" '
            'WHERE "customer_id" IS NOT NULL GROUP BY "customer_id" HAVING COUNT(*) > 1) AS d')
DUCK_CHECK = ("SELECT COUNT(*), to_json(arg_max({'k': [CAST(\"customer_id\" AS VARCHAR)], 'n': n}, n, 5)), "
              "CAST(NULL AS BIGINT) FROM (SELECT \"customer_id\", COUNT(*) AS n FROM \"customers\" "
              "WHERE \"customer_id\" IS NOT NULL GROUP BY \"customer_id\" HAVING COUNT(*) > 1) AS d")


def psql(a, sql, schema):
    return subprocess.run(
        ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-h", a.host, "-p", str(a.port),
         "-U", a.user, "-d", "postgres"],
        input=sql, text=True, capture_output=True, check=True,
        env={**os.environ, "PGOPTIONS": f"-c search_path={schema}"}).stdout


def timed(cmd, **kw):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t0


def med(xs):
    return statistics.median(xs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=5432)
    p.add_argument("--user", default="postgres")
    p.add_argument("--orders", type=int, default=1_000_000)
    p.add_argument("--customers", type=int, default=100_000)
    p.add_argument("--reps", type=int, default=5)
    a = p.parse_args()
    schema = "strata_bench"
    url = f"postgres://{a.user}@{a.host}:{a.port}/postgres?schema={schema}&sslmode=disable"
    psql(a, f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema};", "public")
    psql(a, f"""
CREATE TABLE orders AS SELECT i AS order_id, 1 + (i * 7919) % {a.customers} AS customer_id,
  CAST((i % 1000) AS DOUBLE PRECISION) / 10 AS amount FROM generate_series(CAST(1 AS BIGINT), {a.orders}) AS g(i);
CREATE TABLE customers AS SELECT i AS customer_id, 'c' || (i % 50) AS country
  FROM generate_series(1, {a.customers}) AS g(i);
""", schema)
    psql(a, "VACUUM ANALYZE orders; VACUUM ANALYZE customers;", schema)
    work = tempfile.mkdtemp(prefix="strata-bench-pg-")
    # The same rows in a DuckDB file.
    src = os.path.join(work, "data.duckdb")
    for t in ("orders", "customers"):
        csv = os.path.join(work, f"{t}.csv")
        with open(csv, "w") as f:
            subprocess.run(["psql", "-X", "-h", a.host, "-p", str(a.port), "-U", a.user, "-d", "postgres",
                            "-c", f"COPY {schema}.{t} TO STDOUT (FORMAT csv, HEADER)"],
                           stdout=f, check=True)
        con = duckdb.connect(src)
        con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_csv_auto('{csv}')")
        con.close()
    strata_pg = [STRATA, "run", MODULE, "enriched", "-o", url]
    first_pg = timed(strata_pg)
    duck = os.path.join(work, "wh.duckdb")
    shutil.copyfile(src, duck)
    strata_duck = [STRATA, "run", MODULE, "enriched", "-o", duck]
    first_duck = timed(strata_duck)
    bare_pg_sql = f"BEGIN; DROP TABLE IF EXISTS bare_t; CREATE TABLE bare_t AS {JOIN}; {BARE_CHECK}; COMMIT;"
    ours_pg, bare_pg, ours_duck, bare_duck = [], [], [], []
    for _ in range(a.reps):
        ours_pg.append(timed(strata_pg))
        bare_pg.append(timed(["psql", "-X", "-q", "-h", a.host, "-p", str(a.port), "-U", a.user,
                              "-d", "postgres", "-c", bare_pg_sql],
                             env={**os.environ, "PGOPTIONS": f"-c search_path={schema}"}))
        ours_duck.append(timed(strata_duck))
        bare = os.path.join(work, "bare.duckdb")
        shutil.copyfile(src, bare)
        t0 = time.perf_counter()
        con = duckdb.connect(bare)
        con.execute(f"BEGIN; CREATE TABLE t AS {JOIN}; {BARE_CHECK}; COMMIT")
        con.close()
        bare_duck.append(time.perf_counter() - t0)
    # The check queries, interleaved in one session.
    script = "\\timing on\n" + (f"{PG_CHECK};\n{BARE_CHECK};\n" * (a.reps * 2 + 1))
    times = [float(x) for x in re.findall(r"Time: ([0-9.]+) ms", psql(a, script, schema))][2:]
    check_pg, bare_check_pg = times[0::2], times[1::2]
    con = duckdb.connect(src, read_only=True)
    check_duck, bare_check_duck = [], []
    for _ in range(a.reps * 2 + 1):
        for q, acc in ((DUCK_CHECK, check_duck), (BARE_CHECK, bare_check_duck)):
            t0 = time.perf_counter()
            con.execute(q).fetchall()
            acc.append((time.perf_counter() - t0) * 1000)
    con.close()
    shutil.rmtree(work)
    psql(a, f"DROP SCHEMA {schema} CASCADE;", "public")
    print(f"{a.orders:,} orders / {a.customers:,} customers, median of {a.reps} (interleaved)\n")
    print("| | PostgreSQL | DuckDB |")
    print("|---|---|---|")
    print(f"| `strata run enriched`, first run (inputs frozen) | {first_pg:.3f} s | {first_duck:.3f} s |")
    print(f"| `strata run enriched`, again (frozen inputs reused) | {med(ours_pg):.3f} s | {med(ours_duck):.3f} s |")
    print(f"| bare statements (join CTAS + duplicate-group count) | {med(bare_pg):.3f} s | {med(bare_duck):.3f} s |")
    print(f"| ratio, again / bare | {med(ours_pg) / med(bare_pg):.2f}x | {med(ours_duck) / med(bare_duck):.2f}x |")
    print(f"| ratio, first / bare | {first_pg / med(bare_pg):.2f}x | {first_duck / med(bare_duck):.2f}x |")
    print(f"| strata's check query | {med(check_pg):.1f} ms | {med(check_duck):.1f} ms |")
    print(f"| bare duplicate-group count | {med(bare_check_pg):.1f} ms | {med(bare_check_duck):.1f} ms |")
    print(f"| ratio | {med(check_pg) / med(bare_check_pg):.2f}x | {med(check_duck) / med(bare_check_duck):.2f}x |")


if __name__ == "__main__":
    main()
