select
    order_id,
    customer_id,
    {{ shop_source.cents_to_dollars('amount_cents') }} as amount,
    {{ status_label('status') }} as status
from {{ ref('stg_shop__orders_tmp') }}
