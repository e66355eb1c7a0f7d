-- Two inner joins: products unique by its test, orders by its test.
select
    i.order_id,
    i.line_no,
    p.title,
    p.category,
    i.quantity * p.price as line_total,
    o.ordered_on
from {{ ref('stg_order_items') }} i
inner join {{ ref('stg_products') }} p on i.product_id = p.product_id
join {{ ref('stg_orders') }} o on i.order_id = o.order_id
