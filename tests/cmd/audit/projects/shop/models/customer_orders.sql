with payments as (
    select order_id, sum(amount) as paid
    from {{ ref('raw_payments') }}
    group by order_id
),
joined as (
    select o.customer_id, p.paid
    from {{ ref('orders') }} o
    join payments p on o.order_id = p.order_id
)
select c.customer_id, c.name, j.paid
from {{ ref('customers') }} c
left join joined j on c.customer_id = j.customer_id
