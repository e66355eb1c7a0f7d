-- A model and columns named by reserved words of strata: written between
-- backticks.
select order_id, ordered_on as date, status as "select"
from {{ ref('stg_orders') }}
