select
    order_id,
    status
from {{ ref('stg_orders') }}
where status in ('completed', 'shipped')
  and amount between 5 and 200
  and coupon_code not like 'SUM%'
  or coupon_code ilike 'vip'
