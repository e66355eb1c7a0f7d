-- A singular test: the rows it returns are failures.
select payment_id, amount
from {{ ref('stg_payments') }}
where amount < 0
