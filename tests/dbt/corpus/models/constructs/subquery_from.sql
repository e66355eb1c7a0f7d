select big.order_id, big.amount
from (
    select order_id, amount from {{ ref('stg_orders') }} where amount > 20
) as big
where big.order_id > 100
