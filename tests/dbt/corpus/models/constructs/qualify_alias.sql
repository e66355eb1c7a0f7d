-- QUALIFY on a select-list alias: a filter on the window output in the
-- same model, which makes the model unique on the partition key.
select
    customer_id,
    order_id,
    row_number() over (partition by customer_id order by ordered_on desc, order_id desc) as rn
from {{ ref('stg_orders') }}
qualify rn = 1
