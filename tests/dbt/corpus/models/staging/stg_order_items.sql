select
    order_id,
    line_no,
    product_id,
    quantity
from {{ ref('raw_order_items') }}
where quantity > 0
