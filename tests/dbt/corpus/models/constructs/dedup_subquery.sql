-- The dedup pattern: row_number() in a subquery, rn = 1 outside. The
-- model is unique on the partition key (evidence for joins on it).
select customer_id, order_id
from (
    select customer_id, order_id,
        row_number() over (partition by customer_id order by ordered_on, order_id) as rn
    from {{ ref('stg_orders') }}
) as ranked
where rn = 1
