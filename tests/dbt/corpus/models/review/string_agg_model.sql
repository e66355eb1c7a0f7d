-- Converted: string_agg() without an order reads its values in an order
-- DuckDB leaves open; strata sorts them by the values themselves.
select customer_id, string_agg(status, ',') as statuses
from {{ ref('stg_orders') }}
group by customer_id
