select
    order_id,
    customer_id,
    sum(amount) over (partition by customer_id order by ordered_on, order_id) as running_amount,
    count(*) over (partition by customer_id) as customer_orders
from {{ ref('stg_orders') }}
