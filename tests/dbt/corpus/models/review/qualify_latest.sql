-- Converts since a filter on a window output does QUALIFY's job: the window
-- is a hidden column, filtered on, then dropped.
select order_id, customer_id, ordered_on
from {{ ref('stg_orders') }}
qualify row_number() over (partition by customer_id order by ordered_on desc) = 1
