-- Needs review: EXTRACT.
select order_id, extract(year from ordered_on) as order_year
from {{ ref('stg_orders') }}
