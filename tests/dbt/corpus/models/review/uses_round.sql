-- Converts since the function catalog has round(): DuckDB and strata round alike.
select order_id, round(amount, 1) as amount_rounded
from {{ ref('stg_orders') }}
