select order_id, amount
from {{ ref('stg_orders') }}
where {{ is_big('amount', 50) }}
