-- Needs review: NOT IN (subquery) is not an anti join when the subquery has a NULL.
select customer_id
from {{ ref('stg_customers') }}
where customer_id not in (select customer_id from {{ ref('stg_orders') }})
