-- Needs review: `date` is a reserved word of strata.
select order_id, ordered_on as date
from {{ ref('stg_orders') }}
