select o.id as order_id, o.amount, d.country
from {{ ref('raw_orders') }} o
left join {{ ref('dims') }} d on o.customer_id = d.id
