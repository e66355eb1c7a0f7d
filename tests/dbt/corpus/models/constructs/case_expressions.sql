select
    order_id,
    case when amount is null then 'unknown'
         when amount >= 100 then 'large'
         when amount >= 20 then 'medium'
         else 'small' end as size,
    case status when 'completed' then 1 when 'returned' then -1 else 0 end as sign,
    coalesce(coupon_code, 'none') as coupon,
    nullif(status, 'placed') as not_placed,
    coupon_code is not null as has_coupon
from {{ ref('stg_orders') }}
