select
    order_id,
    customer_id,
    row_number() over (partition by customer_id order by ordered_on, order_id) as order_number,
    rank() over (order by amount desc) as amount_rank,
    lag(ordered_on) over (partition by customer_id order by ordered_on, order_id) as previous_order_on
from {{ ref('stg_orders') }}
