select
    c.customer_id,
    c.name,
    sum(o.amount) as total,
    cast('{{ run_started_at }}' as timestamp) as loaded_at,
    '{{ invocation_id }}' as loaded_by
from {{ ref('stg_customers') }} as c
join {{ ref('stg_orders') }} as o on o.customer_id = c.customer_id
group by c.customer_id, c.name
