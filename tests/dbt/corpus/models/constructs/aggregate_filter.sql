select
    customer_id,
    count(*) filter (where status = 'completed') as completed_orders,
    sum(amount) filter (where coupon_code is not null) as discounted_amount
from {{ ref('stg_orders') }}
group by customer_id
