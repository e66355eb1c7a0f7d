select id as order_id, customer_id, amount, code from {{ source('shop', 'orders') }}
