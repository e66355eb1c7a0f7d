-- Needs review (NOT IN a subquery), read by orders_named as the table dbt
-- builds: its unique test is the evidence for the join on it.
select c.id, c.country
from {{ ref('raw_customers') }} c
left join {{ ref('raw_orders') }} o on o.id = c.id
where c.id not in (select customer_id from {{ ref('raw_orders') }} where amount > 100)
