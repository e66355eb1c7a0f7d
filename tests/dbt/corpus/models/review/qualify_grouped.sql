-- Needs review: QUALIFY on a grouped SELECT.
select customer_id, count(*) as orders
from {{ ref('stg_orders') }}
group by customer_id
qualify rank() over (order by count(*) desc) = 1
