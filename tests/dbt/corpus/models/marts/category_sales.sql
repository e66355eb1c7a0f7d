-- Group by a joined column, having, and a key from a join.
select
    p.category,
    count(*) as lines,
    sum(i.quantity) as units
from {{ ref('stg_order_items') }} i
join {{ ref('stg_products') }} p on i.product_id = p.product_id
group by p.category
having sum(i.quantity) > 2
