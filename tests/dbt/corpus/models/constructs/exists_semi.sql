-- EXISTS as a semi join.
select c.customer_id, c.first_name
from {{ ref('stg_customers') }} c
where exists (
    select 1 from {{ ref('stg_orders') }} o
    where o.customer_id = c.customer_id and o.status = 'completed'
)
