-- A join on two keys, proven by unique_combination_of_columns.
select
    l.order_id,
    l.line_no,
    i.product_id
from {{ ref('stg_order_items') }} l
left join {{ ref('stg_order_items') }} i on l.order_id = i.order_id and l.line_no = i.line_no
