-- A relation joined to itself: the second read goes through a helper.
select
    a.order_id,
    b.order_id as same_day_order_id
from {{ ref('stg_orders') }} a
inner join {{ ref('stg_orders') }} b
    on a.ordered_on = b.ordered_on and a.order_id < b.order_id
