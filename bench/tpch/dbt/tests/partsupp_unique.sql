select ps_partkey, ps_suppkey, count(*) as n
from {{ source('tpch', 'partsupp') }}
group by ps_partkey, ps_suppkey
having count(*) > 1
