-- Needs review: FULL OUTER JOIN.
select c.customer_id, o.order_id
from {{ ref('stg_customers') }} c
full outer join {{ ref('stg_orders') }} o on c.customer_id = o.customer_id
