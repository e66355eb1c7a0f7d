-- Needs review: a RANGE frame whose offset is an interval (strata's frames
-- count whole numbers).
select
    order_id,
    sum(amount) over (order by ordered_on range between interval 7 days preceding and current row) as week_amount
from {{ ref('stg_orders') }}
