select o.order_id, count(p.order_id) as payments
from {{ ref('orders') }} o
left join {{ ref('raw_payments') }} p on o.order_id = p.order_id
group by o.order_id
