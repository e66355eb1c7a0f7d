with paid as (
    select order_id, sum(amount) as paid from {{ ref('stg_payments') }} group by order_id
),
orders as (
    select order_id, amount from {{ ref('stg_orders') }}
),
joined as (
    select orders.order_id, orders.amount, paid.paid
    from orders left join paid on orders.order_id = paid.order_id
)
select order_id, amount, paid, amount - paid as outstanding from joined
