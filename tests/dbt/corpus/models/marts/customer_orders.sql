-- A single group by: keys then aggregates.
select
    customer_id,
    count(order_id) as number_of_orders,
    min(ordered_on) as first_order,
    max(ordered_on) as most_recent_order,
    sum(amount) as total_amount
from {{ ref('stg_orders') }}
group by customer_id
