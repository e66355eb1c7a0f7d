select order_id, amount
from {{ ref('stg_orders') }}
where order_id in (select order_id from {{ ref('stg_payments') }} where payment_method = 'coupon')
