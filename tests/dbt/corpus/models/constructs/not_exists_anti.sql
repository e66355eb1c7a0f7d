-- NOT EXISTS as an anti join: customers who never ordered.
select customer_id, first_name
from {{ ref('stg_customers') }} c
where not exists (select 1 from {{ ref('stg_orders') }} o where o.customer_id = c.customer_id)
