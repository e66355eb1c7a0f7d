-- Timestamps: truncation to the day, a window over them.
select
    customer_id,
    kind,
    {{ dbt.date_trunc('day', 'happened_at') }} as day,
    happened_at + interval 1 day as next_day,
    lead(kind) over (partition by customer_id order by happened_at) as next_kind
from {{ ref('stg_events') }}
