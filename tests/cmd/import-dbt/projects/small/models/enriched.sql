select o.id as order_id, o.amount, c.country
from {{ ref('raw_orders') }} o
left join {{ ref('raw_customers') }} c on o.customer_id = c.id
