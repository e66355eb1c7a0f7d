-- Needs review: a syntax error (dbt compiles it; DuckDB would refuse it).
select order_id,
from {{ ref('stg_orders') }}
where amount >
