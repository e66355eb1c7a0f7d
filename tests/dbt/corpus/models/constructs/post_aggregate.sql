-- Arithmetic over aggregates: a helper groups, the model computes.
select
    customer_id,
    sum(amount) / count(*) as average_amount,
    max(amount) - min(amount) as spread
from {{ ref('stg_orders') }}
group by customer_id
having count(*) > 1
