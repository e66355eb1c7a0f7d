-- Window frames and NULL placements: ROWS / RANGE BETWEEN as strata's
-- rows: [..] / range: [..], NULLS FIRST as nulls_first; a frame on
-- row_number() (which reads none) is dropped.
select
    order_id,
    customer_id,
    sum(amount) over (partition by customer_id order by ordered_on, order_id rows between unbounded preceding and current row) as running_amount,
    avg(amount) over (order by order_id rows between 1 preceding and 1 following) as moving_avg,
    last_value(order_id) over (partition by customer_id order by ordered_on, order_id rows between unbounded preceding and unbounded following) as last_order,
    count(*) over (order by order_id range between 2 preceding and current row) as recent_ids,
    row_number() over (order by coupon_code nulls first, order_id rows between unbounded preceding and current row) as coupon_rank
from {{ ref('stg_orders') }}
order by coupon_code desc nulls first, order_id
limit 10
