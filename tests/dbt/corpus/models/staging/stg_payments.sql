-- A project macro resolved through adapter.dispatch (duckdb__ wins).
select
    id as payment_id,
    order_id,
    method as payment_method,
    {{ cents_to_dollars('amount_cents') }} as amount
from {{ ref('raw_payments') }}
