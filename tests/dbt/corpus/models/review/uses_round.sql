-- Needs review: round() has no strata equivalent.
select order_id, round(amount, 1) as amount_rounded
from {{ ref('stg_orders') }}
