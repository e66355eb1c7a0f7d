-- Paid per order: the order's amount is summed once per payment.
select
    o.order_id,
    sum(o.amount) as amount,
    sum(p.amount) as paid
from {{ ref('orders') }} o
left join {{ ref('raw_payments') }} p on o.order_id = p.order_id
group by o.order_id
