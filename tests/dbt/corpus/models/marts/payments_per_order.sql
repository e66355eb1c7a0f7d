-- No evidence: payments repeat their order_id.
select
    o.order_id,
    o.status,
    p.payment_method,
    p.amount
from {{ ref('stg_orders') }} o
left join {{ ref('stg_payments') }} p on p.order_id = o.order_id
