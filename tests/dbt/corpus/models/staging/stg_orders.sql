with source as (
    select * from {{ ref('raw_orders') }}
)

select
    id as order_id,
    customer_id,
    ordered_at as ordered_on,
    lower(status) as status,
    amount_cents / 100 as amount,
    coupon_code
from source
