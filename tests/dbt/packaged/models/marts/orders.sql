select
    o.order_id,
    o.customer_id,
    o.amount,
    count(i.item_id) as items
from {{ ref('stg_shop__orders') }} as o
left join {{ ref('order_items') }} as i on i.order_id = o.order_id
group by o.order_id, o.customer_id, o.amount
