select
    order_id,
    {{ dbt_utils.pivot('payment_method', ['credit_card', 'coupon']) }}
from {{ ref('stg_payments') }}
group by order_id
