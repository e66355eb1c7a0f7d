{{ config(materialized='table') }}
select
  l.l_orderkey, l.l_linenumber, l.l_quantity, l.l_extendedprice, l.l_discount,
  l.l_shipdate, l.l_returnflag, o.o_orderdate, o.o_orderpriority, c.c_name,
  c.c_mktsegment, n.n_name, r.r_name, p.p_brand, p.p_type, s.s_name,
  ps.ps_supplycost
from {{ source('tpch', 'lineitem') }} l
left join {{ source('tpch', 'orders') }} o on l.l_orderkey = o.o_orderkey
left join {{ source('tpch', 'customer') }} c on o.o_custkey = c.c_custkey
left join {{ source('tpch', 'nation') }} n on c.c_nationkey = n.n_nationkey
left join {{ source('tpch', 'region') }} r on n.n_regionkey = r.r_regionkey
left join {{ source('tpch', 'part') }} p on l.l_partkey = p.p_partkey
left join {{ source('tpch', 'supplier') }} s on l.l_suppkey = s.s_suppkey
left join {{ source('tpch', 'partsupp') }} ps on l.l_partkey = ps.ps_partkey and l.l_suppkey = ps.ps_suppkey
