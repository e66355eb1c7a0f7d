-- Converts since the function catalog has date_part(): EXTRACT(year FROM d).
select order_id, extract(year from ordered_on) as order_year
from {{ ref('stg_orders') }}
