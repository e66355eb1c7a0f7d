-- jaffle_shop's orders: a Jinja loop of sum(case ...) per payment method,
-- from a macro that returns a list.
{% set payment_methods = ['credit_card', 'coupon', 'bank_transfer', 'gift_card'] %}

with order_payments as (
    select
        order_id,
        {% for payment_method in payment_methods -%}
        sum(case when payment_method = '{{ payment_method }}' then amount else 0 end) as {{ payment_method }}_amount,
        {% endfor -%}
        sum(amount) as total_amount
    from {{ ref('stg_payments') }}
    group by order_id
)

select
    o.order_id,
    o.customer_id,
    o.ordered_on,
    o.status,
    {% for payment_method in payment_methods -%}
    p.{{ payment_method }}_amount,
    {% endfor -%}
    p.total_amount as amount
from {{ ref('stg_orders') }} as o
left join order_payments as p on o.order_id = p.order_id
