select
    order_id,
    {{ dbt_utils.safe_divide('amount', 'amount - 25') }} as ratio
from {{ ref('stg_orders') }}
