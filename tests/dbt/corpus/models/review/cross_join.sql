-- Needs review: CROSS JOIN.
select c.customer_id, p.product_id
from {{ ref('stg_customers') }} c
cross join {{ ref('stg_products') }} p
