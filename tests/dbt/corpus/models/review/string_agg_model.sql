-- Needs review: string_agg() is an aggregate strata has no equivalent of.
select customer_id, string_agg(status, ',') as statuses
from {{ ref('stg_orders') }}
group by customer_id
