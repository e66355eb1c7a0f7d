-- Converted: string_agg() with an order becomes strata's string_agg with
-- sort: (without one, DuckDB's order is left open: strata sorts by the
-- values, which need not be the order dbt's run happened to read).
select customer_id, string_agg(status, ',' order by order_id desc) as statuses
from {{ ref('stg_orders') }}
group by customer_id
