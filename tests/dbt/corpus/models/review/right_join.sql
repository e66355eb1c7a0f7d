-- Needs review: RIGHT JOIN.
select o.order_id, c.customer_id
from {{ ref('stg_orders') }} o
right join {{ ref('stg_customers') }} c on o.customer_id = c.customer_id
