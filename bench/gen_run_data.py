#!/usr/bin/env python3
"""Generate a DuckDB file for the `strata run` benchmark (seed example).

usage: gen_run_data.py OUT.duckdb N_ORDERS M_CUSTOMERS
  orders(order_id int64, customer_id int64, amount float64): N rows,
      order_id = i, customer_id = i % M + 1, amount = deterministic pseudo-random float
  customers(customer_id int64 not null, country varchar): M rows, customer_id 1..M unique,
      country one of 6 values
Run with a python that has the `duckdb` package (e.g. /opt/strata-ref/bin/python).
"""
import os
import sys

import duckdb

out, n, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for p in (out, out + ".wal"):
    if os.path.exists(p):
        os.remove(p)
con = duckdb.connect(out)
con.execute("SELECT setseed(0.42)")
con.execute(
    f"""CREATE TABLE orders AS
        SELECT CAST(i AS BIGINT) AS order_id,
               CAST(i % {m} + 1 AS BIGINT) AS customer_id,
               CAST(round(random() * 1000, 2) AS DOUBLE) AS amount
        FROM range({n}) r(i)"""
)
con.execute(
    f"""CREATE TABLE customers AS
        SELECT CAST(i + 1 AS BIGINT) AS customer_id,
               (['FR', 'DE', 'US', 'JP', 'BR', 'IN'])[i % 6 + 1] AS country
        FROM range({m}) r(i)"""
)
con.execute("CHECKPOINT")
con.close()
print(f"{out}: orders={n} customers={m}")
