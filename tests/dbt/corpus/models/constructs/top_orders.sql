-- ORDER BY with LIMIT (and an OFFSET).
select order_id, amount
from {{ ref('stg_orders') }}
where amount is not null
order by amount desc, order_id
limit 3 offset 1
