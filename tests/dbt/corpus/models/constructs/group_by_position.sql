select
    status,
    customer_id,
    count(distinct coupon_code) as coupons,
    count(*) as orders
from {{ ref('stg_orders') }}
group by 1, 2
