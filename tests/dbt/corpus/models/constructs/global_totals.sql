-- Aggregates with no group by: one row.
select
    count(*) as orders,
    sum(amount) as revenue,
    avg(amount) as average_amount
from {{ ref('stg_orders') }}
